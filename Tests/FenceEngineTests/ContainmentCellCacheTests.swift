import Testing

@testable import FenceEngine

/// The cell table's bookkeeping: entries packed in 16 bytes (key and 16-bit epoch in one tag),
/// emptied in O(1) by a new epoch, and cleared when the epoch wraps around.
@Suite struct ContainmentCellCacheTests {
  /// A level-0 key of the cell at `row`, `column` (as `ContainmentCellCache.key` makes them).
  private func key(row: UInt64, column: UInt64) -> UInt64 { (row << 20 | column) + 1 }

  @Test func entriesAreSixteenBytes() {
    #expect(MemoryLayout<ContainmentCellCache.Entry>.stride == 16)
  }

  /// A cell's box has its edges at whole multiples of the cell's size, 1/1024 degree (a
  /// parent's: 1/256), exactly: the cell holding a position contains it, the parent's box
  /// holds its cells', and the edges are the quotients of the cell numbers by the cells per
  /// degree, bit for bit.
  @Test(arguments: [(40.6, -74.0), (40.700_001, -74.012_345), (-33.86, 151.21), (89.8, 179.8)])
  func aCellsBoxHasExactEdgesAndHoldsItsPosition(latitude: Double, longitude: Double) {
    let key = ContainmentCellCache.key(latitude: latitude, longitude: longitude)
    let box = ContainmentCellCache.cell(key)
    let row = Double(((key - 1) >> 20) & 0xF_FFFF)
    let column = Double((key - 1) & 0xF_FFFF)
    #expect(box.south == row / 1024 - 90 && box.north == (row + 1) / 1024 - 90)
    #expect(box.west == column / 1024 - 180 && box.east == (column + 1) / 1024 - 180)
    #expect(box.south <= latitude && latitude <= box.north)
    #expect(box.west <= longitude && longitude <= box.east)
    let parent = ContainmentCellCache.cell(ContainmentCellCache.parent(of: key))
    #expect(parent.south == (row / 4).rounded(.down) / 256 - 90)
    #expect(parent.west == (column / 4).rounded(.down) / 256 - 180)
    #expect(parent.south <= box.south && box.north <= parent.north)
    #expect(parent.west <= box.west && box.east <= parent.east)
  }

  @Test func filedCellsAreFoundUntilTheCacheIsEmptied() throws {
    var cache = ContainmentCellCache(capacity: 4_096)
    let a = key(row: 133_800, column: 108_500)
    let b = key(row: 133_801, column: 108_500)
    let filing = cache.file(a, inside: [7, 9], test: [3])
    let filed = try #require(filing)
    #expect(filed.key == a)
    #expect(filed.insideCount == 2)
    #expect(filed.testCount == 1)
    let lookup = cache.lookup(a)
    let found = try #require(lookup)
    #expect(found.start == filed.start)
    #expect(cache.pool[Int(found.start)..<Int(found.start) + 3].map(\.slot) == [7, 9, 3])
    #expect(cache.pool[Int(found.start)..<Int(found.start) + 3].map(\.link) == [-1, -1, -1])
    let missing = cache.lookup(b)
    #expect(missing == nil)
    let before = cache.emptyings
    cache.removeAll()
    #expect(cache.emptyings == before + 1)
    let emptied = cache.lookup(a)
    #expect(emptied == nil)
  }

  /// The four cells of a 2 × 2 block (rows and columns 2i and 2i + 1) are filed in one 64-byte
  /// cache line, so a device moving on to a neighbouring cell of its block reads the line its
  /// last probe read; the next block's cells are in another line.
  @Test func aBlocksFourCellsShareOneCacheLine() throws {
    var cache = ContainmentCellCache(capacity: 4_096)
    let rows: [UInt64] = [133_800, 133_801]
    let columns: [UInt64] = [108_500, 108_501, 108_502, 108_503]
    for row in rows {
      for column in columns {
        let filing = cache.file(key(row: row, column: column), inside: [1], test: [])
        _ = try #require(filing)
      }
    }
    func line(_ row: UInt64, _ column: UInt64) throws -> Int {
      try #require(cache.entryAddress(of: key(row: row, column: column))) / 64
    }
    let first = try line(133_800, 108_500)
    #expect(try line(133_800, 108_501) == first)
    #expect(try line(133_801, 108_500) == first)
    #expect(try line(133_801, 108_501) == first)
    let second = try line(133_800, 108_502)
    #expect(second != first)
    #expect(try line(133_801, 108_503) == second)
    #expect(cache.entryAddress(of: key(row: 133_802, column: 108_500)) == nil)
  }

  /// Cells that all sit in the same place of their blocks (even rows and columns) share each
  /// line's one place for them: a table filled with only such cells, to its capacity, must
  /// probe on into the lines' other places. Every cell is found with its list, and a cell not
  /// filed is not (the probe ends), for tables of two places up to 2,048.
  @Test(arguments: [1, 2, 4, 1_024])
  func cellsInOnePlaceOfTheirBlocksFillTheTable(capacity: Int) throws {
    var cache = ContainmentCellCache(capacity: capacity)
    let cells = (0..<UInt64(capacity)).map {
      key(row: 2 * (66_000 + $0 / 32), column: 2 * ($0 % 32))
    }
    for (n, cell) in cells.enumerated() {
      let filing = cache.file(cell, inside: [Int32(n)], test: [])
      _ = try #require(filing)
    }
    #expect(cache.emptyings == 0)
    var wrong = 0
    for (n, cell) in cells.enumerated() {
      let entry = cache.lookup(cell)
      if entry?.insideCount != 1 || entry.map({ cache.pool[Int($0.start)].slot }) != Int32(n) {
        wrong += 1
      }
    }
    #expect(wrong == 0)
    #expect(cache.lookup(key(row: 2 * 70_000, column: 0)) == nil)
  }

  /// The batch loop's look-ahead gives the next fix's cell key (the step then does not make it
  /// again) once the table holds a cell, and says "unknown" while it is empty or off; a
  /// position the cache does not serve has key 0, as the step would make it.
  @Test func theProbeAskedAheadGivesTheCellKey() throws {
    var off = ContainmentCellCache(capacity: 0)
    #expect(off.prefetchProbe(latitude: 40.6, longitude: -74) == ContainmentCellCache.unknownKey)
    var cache = ContainmentCellCache(capacity: 4_096)
    #expect(cache.prefetchProbe(latitude: 40.6, longitude: -74) == ContainmentCellCache.unknownKey)
    let filing = cache.file(key(row: 133_800, column: 108_500), inside: [1], test: [])
    _ = try #require(filing)
    for (latitude, longitude) in [(40.6, -74.0), (40.700_001, -74.012_345), (-33.86, 151.21)] {
      let expected = ContainmentCellCache.key(latitude: latitude, longitude: longitude)
      #expect(cache.prefetchProbe(latitude: latitude, longitude: longitude) == expected)
    }
    let harbor = ContainmentCellCache.key(latitude: 40.6, longitude: -74)
    #expect(harbor == key(row: 133_734, column: 108_544))
    #expect(cache.prefetchProbe(latitude: 89.95, longitude: 10) == 0)
    #expect(cache.prefetchProbe(latitude: 10, longitude: 179.95) == 0)
  }

  /// The pool of lists grows apart from the table, as the lists need it: cells of one fence
  /// each (circles) keep it at its first 16,384 slots where the table's growth to 16,384 cells
  /// took 262,144; a long list grows it to twice, or to what the list needs.
  @Test func thePoolGrowsAsItsListsNeed() throws {
    var cache = ContainmentCellCache(capacity: 65_536)
    for column in 0..<UInt64(10_000) {
      let filing = cache.file(key(row: 100_000, column: column), inside: [Int32(column)], test: [])
      _ = try #require(filing)
    }
    #expect(cache.pool.count == 16_384)
    let long = (0..<Int32(10_000)).map { $0 * 2 }
    let filing = cache.file(key(row: 100_001, column: 0), inside: [], test: long)
    let filed = try #require(filing)
    #expect(cache.pool.count == 32_768)
    #expect(cache.pool[Int(filed.start)..<Int(filed.start) + 10_000].map(\.slot) == long)
    let huge = cache.file(key(row: 100_001, column: 1), inside: Array(repeating: 1, count: 40_000), test: [])
    #expect(huge?.insideCount == 40_000)
    #expect(cache.pool.count == 65_536)
    #expect(cache.emptyings == 0)
    // Every cell filed is still found.
    #expect(cache.lookup(key(row: 100_000, column: 9_999))?.insideCount == 1)
    #expect(cache.lookup(key(row: 100_001, column: 0))?.testCount == 10_000)
  }

  /// Full at its largest, the pool empties the cache; so does the table, and then a pool
  /// still short of the filing's lists grows for them.
  @Test func aFullPoolOrTableEmptiesTheCache() throws {
    var cache = ContainmentCellCache(capacity: 64)
    for column in 0..<UInt64(2) {
      let filing = cache.file(key(row: 100_000, column: column), inside: Array(repeating: 5, count: 400), test: [])
      _ = try #require(filing)
    }
    #expect(cache.pool.count == 1_024)
    let third = cache.file(key(row: 100_000, column: 2), inside: Array(repeating: 6, count: 400), test: [])
    #expect(third?.start == 0)
    #expect(cache.emptyings == 1)
    #expect(cache.lookup(key(row: 100_000, column: 0)) == nil)
    #expect(cache.lookup(key(row: 100_000, column: 2))?.insideCount == 400)

    var tableFull = ContainmentCellCache(capacity: 2_048)
    for column in 0..<UInt64(2_048) {
      let filing = tableFull.file(key(row: 100_000, column: column), inside: [1], test: [])
      _ = try #require(filing)
    }
    #expect(tableFull.emptyings == 0)
    #expect(tableFull.pool.count == 16_384)
    let list = Array(repeating: Int32(3), count: 20_000)
    let filing = tableFull.file(key(row: 100_001, column: 0), inside: list, test: [])
    let filed = try #require(filing)
    #expect(tableFull.emptyings == 1)
    #expect(tableFull.pool.count == 32_768)
    #expect(tableFull.pool[Int(filed.start)..<Int(filed.start) + 20_000].allSatisfy { $0.slot == 3 })
  }

  /// A filing that empties a full cache notes its cell's parent (or the parent it files) as
  /// visited: every cell in the table has its parent admitted, which lets the evaluator read
  /// the table before the admission bits.
  @Test func aFilingThatEmptiesTheCacheAdmitsWhatItFiles() throws {
    for filesParent in [false, true] {
      var cache = ContainmentCellCache(capacity: 64)
      for column in 0..<UInt64(64) {
        let filing = cache.file(key(row: 100_000, column: 4 * column), inside: [1], test: [])
        _ = try #require(filing)
      }
      #expect(cache.emptyings == 0)
      let cell = key(row: 133_800, column: 108_500)
      let parent = ContainmentCellCache.parent(of: cell)
      let filing = cache.file(filesParent ? parent : cell, inside: [2], test: [])
      let filed = try #require(filing)
      #expect(cache.emptyings == 1)
      let found = cache.lookup(filesParent ? parent : cell)
      #expect(found?.start == filed.start)
      let firstVisits = cache.firstVisits
      let admitted = cache.admit(parent: parent)
      #expect(admitted)
      #expect(cache.firstVisits == firstVisits)
      // Other parents were forgotten with the emptying.
      let other = cache.admit(parent: ContainmentCellCache.parent(of: key(row: 100_000, column: 0)))
      #expect(!other)
    }
  }

  /// A parent is admitted on its second visit; emptying the cache forgets the visits, and a
  /// quarter of the visit bits set (as many parents as the cache has cells) empties it.
  @Test func parentsAreAdmittedOnTheirSecondVisit() throws {
    var cache = ContainmentCellCache(capacity: 64)
    let parentA = ContainmentCellCache.parent(of: key(row: 133_800, column: 108_500))
    let parentB = ContainmentCellCache.parent(of: key(row: 133_900, column: 108_500))
    let visits = [
      cache.admit(parent: parentA), cache.admit(parent: parentA), cache.admit(parent: parentB),
    ]
    #expect(visits == [false, true, false])
    #expect(cache.firstVisits == 2)
    let filing = cache.file(parentA, inside: [1], test: [])
    _ = try #require(filing)
    cache.removeAll()
    let afterEmptying = cache.admit(parent: parentA)
    #expect(!afterEmptying)
    #expect(cache.firstVisits == 3)
    // 64 distinct parents in all (A and 63 more) set a quarter of the 256 visit bits: the next
    // new parent empties the cache first.
    let refiling = cache.file(parentA, inside: [1], test: [])
    _ = try #require(refiling)
    var visited = 1
    var column: UInt64 = 0
    let before = cache.emptyings
    while visited < 64 {
      column += 4
      if !cache.admit(parent: ContainmentCellCache.parent(of: key(row: 100_000, column: column))) {
        visited += 1
      }
    }
    #expect(cache.emptyings == before)
    let stillFiled = cache.lookup(parentA)
    #expect(stillFiled != nil)
    column += 4
    var next = cache.admit(parent: ContainmentCellCache.parent(of: key(row: 100_000, column: column)))
    while next {  // a parent sharing a bit with an earlier one: take the next
      column += 4
      next = cache.admit(parent: ContainmentCellCache.parent(of: key(row: 100_000, column: column)))
    }
    #expect(cache.emptyings == before + 1)
    let forgotten = cache.lookup(parentA)
    #expect(forgotten == nil)
    let again = cache.admit(parent: parentA)
    #expect(!again)
  }

  /// After 65,535 emptyings the 16-bit epoch comes back to 1: the table must be cleared then,
  /// or an entry filed 65,535 emptyings ago would be found again.
  @Test func anEntryOfAnEarlierEpochCycleIsNotFoundAfterTheEpochWraps() {
    var cache = ContainmentCellCache(capacity: 1_024)
    let old = key(row: 100_000, column: 200_000)
    #expect(cache.file(old, inside: [1], test: []) != nil)
    let filler = key(row: 100_001, column: 200_000)
    for _ in 0..<Int(UInt16.max) {
      cache.removeAll()
      // `removeAll` acts only on a cache holding something.
      _ = cache.file(filler, inside: [2], test: [])
    }
    #expect(cache.emptyings == UInt64(UInt16.max))
    let stale = cache.lookup(old)
    #expect(stale == nil)
    let fresh = key(row: 100_002, column: 200_000)
    #expect(cache.file(fresh, inside: [3], test: []) != nil)
    let found = cache.lookup(fresh)
    #expect(found?.key == fresh)
  }

  @Test func listsLongerThanAnEntryCanCountAreNotFiled() {
    var cache = ContainmentCellCache(capacity: 8_192)
    let tooMany = [Int32](repeating: 1, count: Int(UInt16.max) + 1)
    let inside = cache.file(key(row: 1, column: 1), inside: tooMany, test: [])
    let test = cache.file(key(row: 1, column: 1), inside: [], test: tooMany)
    #expect(inside == nil)
    #expect(test == nil)
  }
}
