import FenceGeometry
import FenceIndex

extension ZoneEvaluator {
  /// The filed fence lists of the cell holding a coordinate: from the device's memo of its
  /// last cell, from the cache, or made now (from its parent's lists) and filed. `nil` when the
  /// cache is off, does not serve the coordinate (near a pole or longitude ±180), cannot hold
  /// the cell's lists, or sees the cell's parent for the first time since it was emptied; the
  /// caller then searches the index.
  ///
  /// Nearly half the fixes of real tracks fall in the cell of the device's previous fix: the
  /// memo answers those without probing the table, whose entries (over a megabyte on the
  /// harbor week) are mostly out of the processor's nearer caches.
  ///
  /// `fromMemo` says the answer is the device's memo of the cell it was last in, unchanged
  /// since: what ``settledState(_:cell:testAnswers:records:)`` may have vouched for.
  /// `knownKey` is the coordinate's cell key when the caller made it already, else
  /// ``ContainmentCellCache/unknownKey``.
  @inline(__always)
  mutating func cellEntry(
    latitude: Double, longitude: Double, knownKey: UInt64 = ContainmentCellCache.unknownKey,
    device d: Int
  ) -> (entry: ContainmentCellCache.Entry?, fromMemo: Bool) {
    guard cellCache.isOn else { return (nil, false) }
    let key =
      knownKey != ContainmentCellCache.unknownKey
      ? knownKey : ContainmentCellCache.key(latitude: latitude, longitude: longitude)
    guard key != 0 else { return (nil, false) }
    if cellCacheGeneration != zoneGeneration {
      cellCache.removeAll()
      cellCacheGeneration = zoneGeneration
    }
    let searchIsCheap =
      fenceIndex.count <= ContainmentCellCache.bypassableFences || fenceIndex.answersPointsFromGrid
    // No polygon table: no polygon was added since the element tables were last emptied.
    if cellCache.bypasses(searchIsCheap: searchIsCheap, fencesAreCircles: polygonFences.isEmpty) {
      return (nil, false)
    }
    if cellCache.emptyings >> 32 != cellMemoEra { startCellMemoEra() }
    let memo = devices.withUnsafeBufferPointer { $0[d].cellMemo }
    if memo.key == key, memo.emptyings == UInt32(truncatingIfNeeded: cellCache.emptyings) {
      cellCache.hits += 1
      return (memo.entry, true)
    }
    // Filing may empty the cache and so begin a new era: the memo made below then has the new
    // count's low bits, and the era check above forgets it before any fix reads it.
    guard let entry = lookUpOrFileCell(key) else { return (nil, false) }
    let emptyings = cellCache.emptyings
    devices.withUnsafeMutableBufferPointer { devices in
      devices[d].cellMemo = CellMemo(key: key, emptyings: emptyings, entry: entry)
    }
    return (entry, false)
  }

  /// Forgets every device's cell memo when the cache's emptyings reach a new multiple of 2³²
  /// (in practice never: a million emptyings a day take over eleven thousand years). A memo
  /// keeps the emptyings' low 32 bits only; forgetting all memos at each such step means that
  /// every memo alive was made in the current era, so equal low bits are equal counts.
  @inline(never)
  mutating func startCellMemoEra() {
    devices.withUnsafeMutableBufferPointer { devices in
      for d in devices.indices { devices[d].cellMemo = CellMemo() }
    }
    cellMemoEra = cellCache.emptyings >> 32
  }

  /// The entry answering for the cell `key`: its own, its parent's when the parent has nothing
  /// to test, or one made now; `nil` on the first visit to its parent since the cache was
  /// emptied (see ``ContainmentCellCache/admit(parent:)``), which the index answers.
  @inline(__always)
  private mutating func lookUpOrFileCell(_ key: UInt64) -> ContainmentCellCache.Entry? {
    // A filed cell's parent is always admitted, so the table is read first: a cell found there
    // costs no read of the admission bits (a miss of its own, on a large cache).
    if let entry = cellCache.lookup(key) {
      cellCache.hits += 1
      return entry
    }
    let parentKey = ContainmentCellCache.parent(of: key)
    guard cellCache.admit(parent: parentKey) else { return nil }
    let parent = cellCache.lookup(parentKey) ?? fileParent(parentKey)
    // A parent with nothing to test answers for all its cells: no cell of it is filed.
    if let parent, parent.testCount == 0 {
      cellCache.hits += 1
      return parent
    }
    return fileCell(key, parent: parent)
  }

  /// Sorts the fences of the cell `key` by their relation to it and files the cell: the
  /// parent's inside fences as they are, its test fences each against the cell. Without a
  /// parent entry (its lists too long for the pool), every fence whose box meets the cell.
  /// The parent's entry is read before anything is filed (filing may empty the cache).
  mutating func fileCell(
    _ key: UInt64, parent: ContainmentCellCache.Entry?
  ) -> ContainmentCellCache.Entry? {
    var lists = takeCellLists()
    let cell = ContainmentCellCache.cell(key)
    if let parent {
      let start = Int(parent.start)
      let testStart = start + Int(parent.insideCount)
      for k in start..<testStart { lists.inside.append(cellCache.pool[k].slot) }
      var frame: Cell?
      for k in testStart..<(testStart + Int(parent.testCount)) {
        let slot = cellCache.pool[k].slot
        let relation = Self.relation(
          ofFence: slot, to: cell, frame: &frame, cores: elementCores, polygons: polygonFences)
        switch relation {
        case .inside: lists.inside.append(slot)
        case .mixed: lists.test.append(slot)
        case .outside: break
        }
      }
    } else {
      classifyFences(in: cell, inside: &lists.inside, test: &lists.test)
    }
    guard let entry = file(key, &lists) else { return nil }
    awaitContainmentTests(entry)
    return entry
  }

  /// Marks the natively tested polygon fences (those with an ``ElementCore/polygonTest``: one
  /// stripe index, no GEOS backend) in the *test* list of a cell just filed as waiting for
  /// their cell containment tests; circles keep their own test.
  private mutating func awaitContainmentTests(_ entry: ContainmentCellCache.Entry) {
    let testStart = Int(entry.start) + Int(entry.insideCount)
    for k in testStart..<(testStart + Int(entry.testCount)) {
      guard elementCores[Int(cellCache.pool[k].slot)].polygonTest != nil else { continue }
      cellCache.awaitCellTests(slot: k)
    }
  }

  /// Whether the fence in the pool slot `k` of a filed cell's *test* list, `slot`, covers
  /// `coordinate` (a point of that cell): a polygon by its cell containment tests when it has
  /// them and they answer, otherwise as ``fenceContains(_:_:position:)``. The same answer
  /// either way; a cell test reads only the few edges meeting the fix's quarter of the cell.
  /// A polygon's cell tests are made after a few full tests in the cell
  /// (`ContainmentCellCache.fullTestsBeforeCellTests`).
  @inline(__always)
  mutating func cellFenceContains(
    _ slot: Int32, poolSlot k: Int, _ coordinate: Coordinate, position: inout Position?
  ) -> Bool {
    let latitude = coordinate.latitude
    let longitude = coordinate.longitude
    if let answer = cellCache.containment(slot: k, latitude: latitude, longitude: longitude) {
      return answer
    }
    // Through the fence's unretained stripe index (none: the parts are tested one by one, and
    // no cell test can be made).
    if cellCache.countFullTest(slot: k), let test = elementCores[Int(slot)].polygonTest {
      let key = ContainmentCellCache.key(latitude: latitude, longitude: longitude)
      cellCache.attachContainmentTests(test, cell: ContainmentCellCache.cell(key), slot: k)
    }
    return fenceContains(slot, coordinate, position: &position)
  }

  /// Files the parent cell `key` from an index search.
  mutating func fileParent(_ key: UInt64) -> ContainmentCellCache.Entry? {
    var lists = takeCellLists()
    classifyFences(in: ContainmentCellCache.cell(key), inside: &lists.inside, test: &lists.test)
    return file(key, &lists)
  }

  /// The evaluator's empty scratch lists, taken out so that they can be filled while the
  /// evaluator is read; ``file(_:_:)`` puts them back.
  private mutating func takeCellLists() -> CellLists {
    var lists = CellLists()
    swap(&lists, &scratchCellLists)
    return lists
  }

  /// Files `lists` under `key`, then empties them and puts them back as the scratch lists.
  private mutating func file(
    _ key: UInt64, _ lists: inout CellLists
  ) -> ContainmentCellCache.Entry? {
    let entry = cellCache.file(key, inside: lists.inside, test: lists.test)
    lists.inside.empty()
    lists.test.empty()
    swap(&lists, &scratchCellLists)
    return entry
  }

  /// How the fence in `slot` relates to the cell `box`. Circles are related in degrees
  /// (``CircleDegreeTest/relation(toCell:)``), and `.mixed` where those bounds leave the cell
  /// undecided: a per-fix test costs less than the exact relation's trigonometry. Only circles
  /// the degree test never decides (a chord limit past 100 km) need the cell's `Cell` frame (its
  /// centre's ECEF vector), made on the first such circle and kept in `frame`. Polygons read the
  /// box alone, through their unretained containment test when it can tell.
  ///
  /// Static, on the element tables: the mutating steps that file cells call it for every fence,
  /// and a method of the evaluator would copy the whole evaluator at each call (decision 0013).
  @inline(__always)
  static func relation(
    ofFence slot: Int32, to box: BoundingBox, frame: inout Cell?, cores: [ElementCore],
    polygons: [PolygonFence?]
  ) -> CellRelation {
    switch cores[Int(slot)].kind {
    case .circle:
      let degreeTest = cores[Int(slot)].degreeTest
      if let relation = degreeTest.relation(toCell: box) { return relation }
      if degreeTest.decides { return .mixed }
      let cell = frame ?? Cell(box)
      frame = cell
      let circle = cores[Int(slot)].circle
      return Circle.cellRelation(
        centerECEF: circle.centerECEF, chordSquaredLimit: circle.chordSquaredLimit, cell: cell)
    case .polygon:
      // Through the unretained stripe index when it can tell: a copy of the fence's shape
      // retains and releases its parts.
      if let test = cores[Int(slot)].polygonTest, let relation = test.relation(toCell: box) {
        return relation
      }
      return polygons.sparseSlot(slot)?.shape.relation(toCell: box) ?? .outside
    case .geoline, .vacant:
      return .outside
    }
  }

  /// Appends the fences that cover every point of `cell` to `inside` and those that may cover
  /// part of it to `test` (see `CellRelation`). Mutating, and on the tables, so that neither
  /// the call nor the search's closure copies the evaluator (decision 0013).
  mutating func classifyFences(in cell: BoundingBox, inside: inout [Int32], test: inout [Int32]) {
    var frame: Cell?
    let cores = elementCores
    let polygons = polygonFences
    fenceIndex.search(intersecting: cell) { slot in
      let relation = Self.relation(
        ofFence: slot, to: cell, frame: &frame, cores: cores,
        polygons: polygons)
      switch relation {
      case .inside: inside.append(slot)
      case .mixed: test.append(slot)
      case .outside: break
      }
    }
  }

  /// Fixes answered from a filed cell, and cells filed, parents included (both since the
  /// evaluator was made).
  public var cellCacheStatistics: (hits: Int, fills: Int) {
    (cellCache.hits, cellCache.fills)
  }

  /// Fixes that were the first to reach their cell's parent since the cache was last emptied,
  /// answered by the index without filing anything (since the evaluator was made). With
  /// ``cellCacheStatistics`` and ``cellCacheBypassedFixes``, every accepted fix is answered by
  /// a hit, by filing its cell (and sometimes its parent: two fills), as one of these, or as a
  /// bypassed one.
  public var cellCacheFirstVisits: Int { cellCache.firstVisits }

  /// Fixes that skipped the cell cache because it was not paying (few hits over a small fence
  /// set; see ``Configuration/cellCacheCapacity``), answered by the index (since the evaluator
  /// was made).
  public var cellCacheBypassedFixes: Int { cellCache.bypassedFixes }
}

/// A device's last cell: the lists of the entry that answered for it, valid while the cache
/// has not been emptied since. 20 bytes: the entry's tag is not kept (the entry may be the
/// cell's parent's, so the cell's own key is), and the emptyings count only in its low 32 bits
/// (see ``ZoneEvaluator/cellMemoEra``, which makes that exact).
struct CellMemo {
  /// The cell's key (0: none).
  var key: UInt64 = 0
  /// The entry's lists in the cache's pool (``ContainmentCellCache/Entry``).
  var start: Int32 = 0
  var insideCount: UInt16 = 0
  var testCount: UInt16 = 0
  /// The low 32 bits of ``ContainmentCellCache/emptyings`` when the memo was made.
  var emptyings: UInt32 = 0

  init() {}

  init(key: UInt64, emptyings: UInt64, entry: ContainmentCellCache.Entry) {
    self.key = key
    self.start = entry.start
    self.insideCount = entry.insideCount
    self.testCount = entry.testCount
    self.emptyings = UInt32(truncatingIfNeeded: emptyings)
  }

  /// The entry's lists as the caller reads them (its tag is not kept: 0).
  var entry: ContainmentCellCache.Entry {
    ContainmentCellCache.Entry(
      tag: 0, start: start, insideCount: insideCount, testCount: testCount)
  }
}

/// A cell's fences while it is being filed: those covering all of it, and those to test.
struct CellLists {
  var inside: [Int32] = []
  var test: [Int32] = []
}
