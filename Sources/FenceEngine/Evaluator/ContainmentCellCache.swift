import CMemoryHints
import FenceGeometry

/// Which fences hold every point of a small latitude-longitude cell, and which must be tested,
/// remembered for the cells that fixes have visited.
///
/// The world is cut into cells of 1/1024 degree (about 110 m by 85 m at New York), grouped in
/// parents of 4 × 4 cells (1/256 degree, about 430 m by 340 m). The first fix in a parent
/// finds the fences whose boxes meet the parent and files each as *inside* (covers the whole
/// parent), *test* (its boundary may cross the parent) or drops it (covers none of it), see
/// `CellRelation`. The first fix in a cell sorts only its parent's *test* fences the same way
/// against the cell (the parent's *inside* fences cover the cell too); a parent with no *test*
/// fences answers for all its cells itself. Later fixes in the cell,
/// of any device, read its two short lists instead of searching the R-tree and testing every
/// polygon whose box holds them. Real tracks revisit cells all the time (ferries, anchorages,
/// depots, roads), so most fixes take this path; see `Docs/Decisions/0005-cell-cache.md`.
///
/// The cache is an open-addressing hash table (filled to at most a half) over one pool of fence
/// slots; the four cells of a 2 × 2 block start their probes in one cache line (``home(of:)``),
/// so a device moving to a neighbouring cell often finds it in the line it last read. Both
/// start at 1,024 cells when the first cell is filed; the table doubles as cells fill, up to
/// ``capacity`` cells (a power of two), and the pool as their lists fill, up to
/// ``slotsPerCell`` slots per cell of capacity; when either is full at that size the whole
/// cache is emptied (in O(1), by an epoch count) and refilled as fixes arrive, so it stops
/// allocating once it has grown to the stream's working set or to its capacity. Answers never
/// depend on what the cache holds: it only saves work. The evaluator empties it whenever a zone
/// changes.
///
/// A polygon on a cell's *test* list may also have a `CellContainmentTest` for each quarter of
/// that cell: its exact containment over only the edges meeting the quarter, linked from the
/// pool slot (``PoolEntry/link``). Those tests are made as cells are filed, forgotten with the
/// cache, and hold at most ``edgesPerCell`` edges (33 bytes each) and ``testsPerCell`` tests
/// (64 bytes each) per cell of capacity, allocated as they are first needed.
struct ContainmentCellCache {
  /// Cells per degree of latitude and of longitude.
  static let cellsPerDegree = 1024.0
  /// Pool entries per cell of capacity.
  static let slotsPerCell = 16

  /// One filed cell: its key, the emptying it was filed after (an entry of an earlier
  /// ``epoch`` is free), and its lists in ``pool``: `inside` slots from `start`, then `test`
  /// slots.
  ///
  /// 16 bytes, so that four share a cache line: the key (41 bits) and the epoch (16 bits) are
  /// packed in one word, compared at once by a lookup. The table (over a megabyte on the harbor
  /// week with 24-byte entries) is probed at random, and its probe was the largest stall of the
  /// per-fix step.
  struct Entry {
    /// `key | epoch << 48`; an epoch of 0 is never current, so a zero tag is free.
    var tag: UInt64 = 0
    var start: Int32 = 0
    var insideCount: UInt16 = 0
    var testCount: UInt16 = 0

    var key: UInt64 { tag & Entry.keyMask }
    var epoch: UInt16 { UInt16(truncatingIfNeeded: tag >> 48) }

    static let keyMask: UInt64 = (1 << 48) - 1

    /// The tag of `key` filed in `epoch`.
    @inline(__always)
    static func tag(_ key: UInt64, epoch: UInt16) -> UInt64 { key | UInt64(epoch) << 48 }
  }

  /// The most cells held at once (0: the cache is off).
  let capacity: Int
  /// The table (twice the cells it may hold now; empty until the first cell is filed).
  private var entries: [Entry] = []
  /// The filed cells' lists: each entry a fence slot and, on a *test* list, its link to its
  /// cell containment tests. One array of pairs, not two arrays: a fix testing a fence reads
  /// both, and they were two cache misses (the harbor week's hits read 2-4 test fences).
  private(set) var pool: [PoolEntry] = []
  private var poolUsed = 0

  /// One place of ``pool``.
  struct PoolEntry {
    /// The fence's element slot.
    var slot: Int32
    /// On a *test* list: the index in ``containmentTests`` of the first of the polygon's four
    /// tests for the cell's quarters (see ``quarter(latitude:longitude:)``); -1 when it has
    /// none and gets none (a circle, or no test could be made); below -1 while the polygon
    /// waits for its tests, counting up to -1 by one per full test (see
    /// ``countFullTest(slot:)``). -1 on an *inside* list.
    var link: Int32
  }
  /// The cell containment tests made since the last emptying, and their edges and the edges'
  /// colours (see `CellContainmentTest`).
  private(set) var containmentTests: [CellContainmentTest] = []
  private var cellEdges: [CellEdge] = []
  private var cellEdgeColours: [UInt8] = []
  /// The whole cell's edges while its quarters' tests are made from them.
  private var scratchEdges: [CellEdge] = []
  private var scratchColours: [UInt8] = []
  private var entryCount = 0
  /// Entries filed since the last emptying carry this; emptying the cache increments it
  /// instead of clearing the table (zone changes empty it often: adding fences one by one).
  private var epoch: UInt16 = 1
  private var mask = 0
  /// The table's first place in ``entries`` (0 to 3): see ``grow(toCells:)``.
  private var tableStart = 0
  private var shift: UInt64 = 63
  /// Fixes answered from a filed cell, and cells filed (parents included).
  var hits = 0
  var fills = 0
  /// The adaptive bypass's state (see `ContainmentCellCache+Bypass.swift`): fixes counted in
  /// the current window, ``hits`` and ``fills`` when it began, windows in a row with few hits
  /// and with many fills, bypass runs since a window last paid, fixes left to bypass, fixes
  /// bypassed in all.
  var windowFixes = 0
  var windowStartHits = 0
  var windowStartFills = 0
  var lowWindows = 0
  var fillingWindows = 0
  var bypassRuns = 0
  var bypassLeft = 0
  var bypassedFixes = 0

  /// The cells the table holds when first made; it doubles up to ``capacity`` as cells fill.
  static let initialCells = 1_024

  /// A cache of up to `capacity` cells (rounded up to a power of two; 0 turns it off). Its
  /// memory, 32 bytes per cell for the table and 8 per fence slot of the filed lists (at most
  /// ``slotsPerCell`` per cell, plus the cell tests, see ``edgesPerCell``), starts at 1,024
  /// cells with the first cell filed; the table doubles as cells fill, up to `capacity`, and
  /// the pool of lists as they fill; then the cache is emptied when full.
  init(capacity: Int) {
    var cells = 1
    while cells < capacity { cells <<= 1 }
    self.capacity = capacity > 0 ? cells : 0
  }

  /// The cells the table can hold now (half its size; none before it is made).
  private var currentCapacity: Int { entries.isEmpty ? 0 : (mask &+ 1) / 2 }

  /// Makes the table for `cells` cells and refiles the current entries.
  ///
  /// The array has three places more than the table, so that the table can start where a
  /// 64-byte cache line does (``tableStart``): the four places of a line are the four cells of
  /// a block (``home(of:)``). Where the array lies decides only how fast a probe is, never what
  /// it finds.
  private mutating func grow(toCells cells: Int) {
    let old = entries
    entries = Array(repeating: Entry(), count: 2 * cells + 3)
    tableStart = entries.withUnsafeBufferPointer { table in
      let offset = Int(bitPattern: table.baseAddress) & 63
      return ((64 - offset) & 63) / MemoryLayout<Entry>.stride
    }
    mask = 2 * cells - 1
    shift = UInt64(64 - (2 * cells).trailingZeroBitCount)
    for entry in old where entry.epoch == epoch { insert(entry) }
  }

  /// The most pool entries: ``slotsPerCell`` per cell of capacity.
  private var poolLimit: Int { capacity * Self.slotsPerCell }

  /// Grows the pool, keeping its contents, to hold `needed` entries: to twice its size (at
  /// least ``initialCells`` cells' worth), or more if that is not enough, and at most
  /// ``poolLimit``.
  ///
  /// Apart from the table, as lists need it: circles' lists are a few slots long, so a table
  /// of 65,536 cells over a million circles used a tenth of the 8 MB pool it was given with it.
  private mutating func growPool(toHold needed: Int) {
    let size = min(poolLimit, max(needed, 2 * pool.count, Self.initialCells * Self.slotsPerCell))
    pool.append(contentsOf: repeatElement(PoolEntry(slot: 0, link: -1), count: size - pool.count))
  }

  /// Where the probe for `key` starts: the four cells of a 2 × 2 block of its level (rows and
  /// columns 2i and 2i + 1) start in the four places of one cache line (four 16-byte entries),
  /// the block's line chosen by a multiplicative hash. A vessel moving on to a neighbouring cell
  /// often stays in its block, and finds the cell's entry in the line its last probe read; the
  /// blocks' lines are still spread at random over the table.
  @inline(__always)
  private func home(of key: UInt64) -> Int {
    let k = key &- 1
    let withinBlock = (k >> 19 & 2) | (k & 1)
    let block = k & ~(1 << 20 | 1)
    let line = (block &* 0x9E37_79B9_7F4A_7C15) >> (shift &+ 2)
    // Masked: a table of fewer than four places (a cache of one cell) takes the low bits.
    return Int(truncatingIfNeeded: line << 2 | withinBlock) & mask
  }

  /// The place a probe reads after place `i`: the same place of the next line (the next cell
  /// in the same position of another block, not the block's own neighbours, which have their
  /// own home places), and past the last line the next position of the first line. The
  /// sequence visits every place of the table, so a probe always ends at a free one.
  @inline(__always)
  private func nextPlace(after i: Int) -> Int {
    let next = i &+ 4
    return next <= mask ? next : (next &+ 1) & 3 & mask
  }

  /// Puts an entry of the current epoch in its probe sequence's first free place.
  private mutating func insert(_ entry: Entry) {
    var i = home(of: entry.key)
    while entries[tableStart &+ i].epoch == epoch { i = nextPlace(after: i) }
    entries[tableStart &+ i] = entry
  }

  var isOn: Bool { capacity > 0 }

  /// The key of the cell holding a coordinate, or 0 when the cache does not serve it (within
  /// 0.1 degree of a pole or of longitude ±180, where cells would reach the frame's edges).
  ///
  /// A key is `level << 40 | row << 20 | column`, plus 1 so that 0 means "none": level 0 for
  /// cells of 1/``cellsPerDegree`` degree, level 1 for their parents, 4 × 4 cells each.
  @inline(__always)
  static func key(latitude: Double, longitude: Double) -> UInt64 {
    guard abs(latitude) < 89.9, abs(longitude) < 179.9 else { return 0 }
    // Through Int64, whose conversion is one instruction and two checks (the values are
    // positive and below 2^18 here, so both conversions truncate alike).
    let row = UInt64(bitPattern: Int64((latitude + 90) * cellsPerDegree))
    let column = UInt64(bitPattern: Int64((longitude + 180) * cellsPerDegree))
    return (row << 20 | column) + 1
  }

  /// Cells of a parent per side.
  static let parentSpan: UInt64 = 4

  /// The key of the parent cell holding the cell `key` (of level 0).
  @inline(__always)
  static func parent(of key: UInt64) -> UInt64 {
    let row = (key - 1) >> 20
    let column = (key - 1) & 0xF_FFFF
    return (1 << 40 | (row / parentSpan) << 20 | column / parentSpan) + 1
  }

  /// The closed box of the cell with `key` (not 0), of either level. Exact: the edges are
  /// multiples of a power of two, so a cell lies inside its parent.
  ///
  /// The cell's size in degrees multiplies rather than divides: a power of two, so the
  /// products are the quotients, bit for bit, without four divisions (a full evaluation that
  /// settles a device where GEOLINEs exist reads its cell's box).
  static func cell(_ key: UInt64) -> BoundingBox {
    let level = (key - 1) >> 40
    let size = level == 0 ? 1 / cellsPerDegree : Double(parentSpan) / cellsPerDegree
    let row = Double(((key - 1) >> 20) & 0xF_FFFF)
    let column = Double((key - 1) & 0xF_FFFF)
    return BoundingBox(
      south: row * size - 90, west: column * size - 180,
      north: (row + 1) * size - 90, east: (column + 1) * size - 180)
  }

  /// The entry filed under `key`, if any.
  ///
  /// Its own probe loop (``entryAddress(of:)`` has the same one): written once for both, as a
  /// helper returning the entry and its place, it cost the harbor week 1.4 instructions a fix.
  @inline(__always)
  mutating func lookup(_ key: UInt64) -> Entry? {
    guard entryCount > 0 else { return nil }
    var i = home(of: key)
    let tag = Entry.tag(key, epoch: epoch)
    let start = tableStart
    return entries.withUnsafeBufferPointer { entries in
      while true {
        let entry = entries[start &+ i]
        if entry.tag == tag { return entry }
        guard entry.epoch == epoch else { return nil }
        i = nextPlace(after: i)
      }
    }
  }

  /// Asks for the cache line where the probe for the cell holding a position starts (its
  /// block's line), so that it arrives while the fixes before it are processed: the probe's
  /// first read was the per-fix step's largest stall on the harbor week. Returns the cell's
  /// key (``key(latitude:longitude:)``, for the step to use rather than make again), or
  /// ``unknownKey`` when the cache is off, bypassed or empty and nothing was asked for.
  ///
  /// Mutating only so that callers reach it in place: a non-mutating call from the batch loop's
  /// closure copied the whole cache (retaining each of its arrays) at every fix.
  @inline(__always)
  mutating func prefetchProbe(latitude: Double, longitude: Double) -> UInt64 {
    // A filed entry means the cache is on: this is `!asksIndexDirectly`, one check fewer.
    guard entryCount > 0, bypassLeft == 0 else { return Self.unknownKey }
    let key = Self.key(latitude: latitude, longitude: longitude)
    guard key != 0 else { return key }
    let place = tableStart &+ home(of: key)
    entries.withUnsafeBufferPointer { fencekit_prefetch($0.baseAddress.unsafelyUnwrapped + place) }
    return key
  }

  /// A key no cell has (``key(latitude:longitude:)`` makes at most 41 bits): "not made yet".
  static let unknownKey = UInt64.max

  /// The memory address of the entry filed under `key`, if any (tests: which cache line it
  /// is in), found by ``lookup(_:)``'s probe.
  func entryAddress(of key: UInt64) -> Int? {
    guard entryCount > 0 else { return nil }
    var i = home(of: key)
    let tag = Entry.tag(key, epoch: epoch)
    return entries.withUnsafeBufferPointer { entries in
      while true {
        let place = tableStart &+ i
        if entries[place].tag == tag { return Int(bitPattern: entries.baseAddress! + place) }
        guard entries[place].epoch == epoch else { return nil }
        i = nextPlace(after: i)
      }
    }
  }

  /// Files the cell `key` with its `inside` and `test` slots, emptying the cache first when
  /// the table or the pool is full; `nil` when the lists alone exceed the pool, or a list holds
  /// more than 65,535 fences (an entry counts them in 16 bits).
  mutating func file(_ key: UInt64, inside: [Int32], test: [Int32]) -> Entry? {
    let needed = inside.count + test.count
    guard isOn, needed <= capacity * Self.slotsPerCell, inside.count <= Int(UInt16.max),
      test.count <= Int(UInt16.max)
    else { return nil }
    if entries.isEmpty { grow(toCells: min(capacity, Self.initialCells)) }
    while entryCount + 1 > currentCapacity || poolUsed + needed > pool.count {
      if entryCount + 1 <= currentCapacity, pool.count < poolLimit {
        growPool(toHold: poolUsed + needed)
      } else if entryCount + 1 > currentCapacity, currentCapacity < capacity {
        grow(toCells: 2 * currentCapacity)
      } else {
        removeAll()
        // The cell is filed because a fix reached it: its parent counts as reached (see
        // ``admit(parent:)``), so that a cell in the table always has its parent's bit set.
        markSeen(parent: (key - 1) >> 40 == 0 ? Self.parent(of: key) : key)
        break
      }
    }
    // Emptied because the table was full, the pool may still be short of this cell's lists.
    if poolUsed + needed > pool.count { growPool(toHold: poolUsed + needed) }
    let start = poolUsed
    pool.withUnsafeMutableBufferPointer { pool in
      for (k, slot) in inside.enumerated() { pool[start + k] = PoolEntry(slot: slot, link: -1) }
      for (k, slot) in test.enumerated() {
        pool[start + inside.count + k] = PoolEntry(slot: slot, link: -1)
      }
    }
    poolUsed += needed
    let entry = Entry(
      tag: Entry.tag(key, epoch: epoch), start: Int32(start),
      insideCount: UInt16(inside.count), testCount: UInt16(test.count))
    insert(entry)
    entryCount += 1
    fills += 1
    return entry
  }

  // MARK: - Admission

  /// One bit per hash of a parent key: set when a fix first reaches that parent after the last
  /// emptying (see ``admit(parent:)``). ``seenBitsPerCell`` bits per cell of capacity, made
  /// with the first visit.
  private var seenParents: [UInt64] = []
  /// Bits set in ``seenParents``.
  private var seenCount = 0
  /// `64 - log2(bits of seenParents)`.
  private var seenShift: UInt64 = 58
  /// Fixes that reached a parent for the first time since an emptying (answered by the index).
  private(set) var firstVisits = 0
  /// Bits of ``seenParents`` per cell of capacity: a quarter of them set empties the cache, so
  /// that a bit stands for one parent most of the time.
  static let seenBitsPerCell = 4

  /// Whether the parent cell `key` was reached since the cache was last emptied; notes that it
  /// is reached now. A parent is filed on its second visit, not its first: ground that fixes
  /// cross once (a device that keeps reaching new places) is answered by the index alone, at
  /// the cost of the plain search, instead of paying to file cells nobody reads again.
  ///
  /// `false` guarantees that neither the parent nor any of its cells is filed: filing happens
  /// only after this answered `true`, and emptying the cache clears the bits. Conversely a
  /// filed cell or parent always has its parent's bit set (a filing that empties a full cache
  /// sets it again), so a cell found in the table needs no call here. Two parents may share a
  /// bit; the second of them is then filed on its first visit, which changes no answer. When a
  /// quarter of the bits are set, the cache is emptied (with them).
  @inline(__always)
  mutating func admit(parent key: UInt64) -> Bool {
    let (word, mask) = seenBit(parent: key)
    let seen = seenParents.withUnsafeBufferPointer { $0[word] } & mask != 0
    if seen { return true }
    firstVisits += 1
    if seenCount >= capacity {
      removeAll()
    }
    seenParents.withUnsafeMutableBufferPointer { $0[word] |= mask }
    seenCount += 1
    return false
  }

  /// Sets the parent cell `key`'s bit, if clear, without counting a first visit.
  private mutating func markSeen(parent key: UInt64) {
    let (word, mask) = seenBit(parent: key)
    guard seenParents[word] & mask == 0 else { return }
    seenParents[word] |= mask
    seenCount += 1
  }

  /// The word and mask of the parent cell `key`'s bit in ``seenParents``, made on first use.
  @inline(__always)
  private mutating func seenBit(parent key: UInt64) -> (word: Int, mask: UInt64) {
    if seenParents.isEmpty {
      let words = max(1, capacity * Self.seenBitsPerCell / 64)
      seenParents = Array(repeating: 0, count: words)
      seenShift = UInt64(64 - (words * 64).trailingZeroBitCount)
    }
    // The high bits of a mixed key. A plain multiplicative hash put 814 parents of the harbor
    // hour on 773 bits (keys differ in a few structured bits); this mix puts them on 814.
    var mixed = key ^ (key >> 33)
    mixed &*= 0xFF51_AFD7_ED55_8CCD
    mixed ^= mixed >> 33
    let bit = Int(truncatingIfNeeded: mixed >> seenShift)
    return (bit >> 6, 1 << UInt64(bit & 63))
  }

  /// How many times the cache has been emptied: an entry copied out (a device's
  /// ``CellMemo``) is still valid while this has not changed. 64 bits, so it never wraps (the
  /// table's 16-bit epochs do, every 65,535 emptyings, and then the table is cleared). Set
  /// from outside only by tests, to reach the counts at which memos change era.
  var emptyings: UInt64 = 0

  /// Forgets every cell (after a zone change, or when full): O(1), by starting a new epoch;
  /// the table is cleared only when the epoch counter wraps around.
  mutating func removeAll() {
    if seenCount > 0 {
      seenParents.withUnsafeMutableBufferPointer { bits in
        for i in bits.indices { bits[i] = 0 }
      }
      seenCount = 0
    }
    guard entryCount > 0 else { return }
    emptyings += 1
    epoch &+= 1
    if epoch == 0 {
      entries.withUnsafeMutableBufferPointer { entries in
        for i in entries.indices { entries[i].tag = 0 }
      }
      epoch = 1
    }
    entryCount = 0
    poolUsed = 0
    containmentTests.empty()
    cellEdges.empty()
    cellEdgeColours.empty()
  }

  // MARK: - Containment tests of mixed polygons

  /// The most edges one cell containment test holds: more, and the polygon is tested in full
  /// in that quarter of the cell. Past about this many, walking the edges costs as much as the
  /// stripe test.
  static let edgesPerTest = 32
  /// Edges, and tests, held per cell of capacity over all cells: once either budget is spent,
  /// no more tests are made until the cache is emptied. The harbor week's visited cells hold
  /// about 0.27 edges and 0.23 tests each (3,796 edges and 795 × 4 tests over 13,847 cells;
  /// temporary counters, not committed).
  static let edgesPerCell = 4
  static let testsPerCell = 4

  /// Full tests of a polygon in a cell before its cell tests are made: making them costs about
  /// as much as twenty full tests, and many cells see only a fix or two.
  static let fullTestsBeforeCellTests: Int32 = 4

  /// Marks the pool slot `k` (of a *test* list) as a polygon that gets cell tests after
  /// ``fullTestsBeforeCellTests`` full tests.
  mutating func awaitCellTests(slot k: Int) {
    pool[k].link = -1 - Self.fullTestsBeforeCellTests
  }

  /// Counts a full test of the polygon in pool slot `k`; `true` when its cell tests are due
  /// now (the caller then makes them, or the slot stays at -1).
  @inline(__always)
  mutating func countFullTest(slot k: Int) -> Bool {
    guard pool[k].link < -1 else { return false }
    pool[k].link += 1
    return pool[k].link == -1
  }

  /// Makes the containment tests of `shape` (a polygon fence's unretained stripe index, which
  /// the evaluator keeps alive) for the pool slot `k` (of a *test* list of the
  /// cell `cell` just filed), one per quarter of the cell (2 × 2, each with its own reference
  /// point, so that a fix reads only the edges meeting its quarter), and links the slot to
  /// them. A quarter whose test cannot be made gets `CellContainmentTest.undecided`; the slot
  /// stays unlinked when no quarter has a test or a budget is spent.
  mutating func attachContainmentTests(
    _ shape: UnretainedContainmentTest, cell: BoundingBox, slot k: Int
  ) {
    guard containmentTests.count + 4 <= capacity * Self.testsPerCell else { return }
    let base = containmentTests.count
    let midX = (cell.west + cell.east) / 2
    let midY = (cell.south + cell.north) / 2
    // The whole cell's edges first (one search of the polygon's index), then each quarter's
    // from those.
    scratchEdges.empty()
    scratchColours.empty()
    let whole = shape.cellContainmentTest(
      cell: cell, edgeLimit: 4 * Self.edgesPerTest, edges: &scratchEdges,
      colours: &scratchColours)
    var made = 0
    for quarter in 0..<4 {
      let quarterBox = BoundingBox(
        south: quarter & 2 == 0 ? cell.south : midY, west: quarter & 1 == 0 ? cell.west : midX,
        north: quarter & 2 == 0 ? midY : cell.north, east: quarter & 1 == 0 ? midX : cell.east)
      let room = min(Self.edgesPerTest, capacity * Self.edgesPerCell - cellEdges.count)
      let test =
        if let whole {
          shape.cellContainmentTest(
            box: quarterBox, within: whole, parentEdges: scratchEdges,
            parentColours: scratchColours, edgeLimit: room, edges: &cellEdges,
            colours: &cellEdgeColours)
        } else {
          shape.cellContainmentTest(
            cell: quarterBox, edgeLimit: room, edges: &cellEdges, colours: &cellEdgeColours)
        }
      if let test {
        containmentTests.append(test)
        made += 1
      } else {
        containmentTests.append(.undecided)
      }
    }
    if made > 0 { pool[k].link = Int32(base) } else { containmentTests.removeLast(4) }
  }

  /// Which quarter of its cell holds a coordinate (bit 0: east half, bit 1: north half), as
  /// the cell's key rounds it; a point within 10⁻¹⁰ degree of the quarter is answered by the
  /// quarter's test, so the rounding cannot make an answer wrong.
  @inline(__always)
  static func quarter(latitude: Double, longitude: Double) -> Int {
    let column = Int((longitude + 180) * (2 * cellsPerDegree))
    let row = Int((latitude + 90) * (2 * cellsPerDegree))
    return (column & 1) | (row & 1) << 1
  }

  /// The answer of the containment tests linked to pool slot `k` at a coordinate of the cell:
  /// exactly the polygon's containment, or `nil` when the slot has no tests or its quarter's
  /// test leaves the point to the full one (see `CellContainmentTest`).
  @inline(__always)
  func containment(slot k: Int, latitude: Double, longitude: Double) -> Bool? {
    let link = pool[k].link
    guard link >= 0 else { return nil }
    let test = containmentTests[Int(link) + Self.quarter(latitude: latitude, longitude: longitude)]
    return cellEdges.withUnsafeBufferPointer { edges in
      cellEdgeColours.withUnsafeBufferPointer { colours in
        test.covers(x: longitude, y: latitude, edges: edges, colours: colours)
      }
    }
  }
}
