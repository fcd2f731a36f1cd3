import FenceGeometry

/// A spatial index of latitude/longitude boxes under caller-assigned `Int32` ids.
///
/// Most items live in a static R-tree packed along the Hilbert curve (flat arrays, no object per
/// node). Changes go to a small dynamic part beside it: inserts land in an unsorted *tail*
/// scanned linearly; when the tail fills it is packed, with the live items of the previous one,
/// into a second Hilbert-packed *delta* tree; removals mark entries removed. When the delta, the
/// tail and the removed entries together exceed an eighth of the index, everything is packed
/// again into one tree. See `Docs/Decisions/0003-rtree-design.md`.
///
/// A box that crosses the antimeridian is stored as its two ``BoundingBox/planarParts`` under
/// one id; every search reports each id at most once. Longitudes 180 and -180 are the same
/// meridian in every search.
///
/// A value type: copies share storage until one of them changes (copy-on-write arrays).
///
/// - Complexity: building from *n* items is O(*n*) (Hilbert keys, radix sort, packing). An
///   insert costs O(1) amortised O(*d* / *t*) for a delta of *d* entries and a tail of *t*; the
///   insert that fills the tail packs the delta again (O(*d*)); the rare insert or removal that
///   triggers a full rebuild costs O(*n*). Removal is O(log *n*).
public struct RTree: Sendable {
  /// The default number of children per node (as in flatbush).
  public static let defaultNodeSize = 16

  /// The number of children per node.
  public let nodeSize: Int
  /// How many entries the tail holds before it is packed into the delta tree.
  let tailCapacity: Int
  /// A full rebuild happens when the dynamic part exceeds the live entries divided by this.
  let rebuildDivisor: Int

  /// The Hilbert-packed tree holding most items.
  @usableFromInline var main: PackedTree
  /// The Hilbert-packed tree of items inserted since the last full rebuild.
  @usableFromInline var delta: PackedTree
  /// The most recent inserts, unsorted.
  @usableFromInline var tail: EntryList
  /// A uniform grid over ``main``'s small entries for point searches, when ``main`` is large
  /// (see ``PointGrid``); `nil` otherwise.
  @usableFromInline var mainGrid: PointGrid?
  /// ``main``'s entries the grid leaves out (wide ones), searched by point beside the grid.
  @usableFromInline var mainWide: PackedTree
  /// Fewest entries of ``main`` for a ``mainGrid``.
  let pointGridMinimum: Int

  /// The number of items (ids) in the index.
  public private(set) var count: Int

  /// An empty index.
  public init(nodeSize: Int = RTree.defaultNodeSize) {
    self.init(packing: [], nodeSize: nodeSize, tailCapacity: 128, rebuildDivisor: 8)
  }

  /// An index of `items`, packed in one pass.
  ///
  /// - Precondition: ids are unique; every box has finite edges, `-90 <= south <= north <= 90`
  ///   and both longitudes in `-180...180` (`west > east` means the box crosses the antimeridian).
  /// - Complexity: O(*n*): about 0.12 s for a million boxes in a release build.
  public init(
    _ items: consuming [(id: Int32, box: BoundingBox)], nodeSize: Int = RTree.defaultNodeSize
  ) {
    self.init(packing: items, nodeSize: nodeSize, tailCapacity: 128, rebuildDivisor: 8)
  }

  /// An index of `items`, packed in one pass (see the overload taking an array).
  ///
  /// Inlinable, so that iterating `items` is specialised in the caller's module; the items are
  /// collected into one array first.
  @inlinable
  public init(
    _ items: some Sequence<(id: Int32, box: BoundingBox)>,
    nodeSize: Int = RTree.defaultNodeSize
  ) {
    self.init(packing: Array(items), nodeSize: nodeSize, tailCapacity: 128, rebuildDivisor: 8)
  }

  /// An index of the items `item(k)` gives for `k` in `0..<count` (`nil` for none), packed in
  /// one pass as ``init(_:nodeSize:)-([(id:box:)],_)`` packs an array of them, without the
  /// array: the entries are filled from the calls (an evaluator's million fences: 40 MB less at
  /// the index build's peak).
  ///
  /// Room is made for `expected` items (`count` when `nil`): a caller that knows how many calls
  /// give an item says so, and the entries are not allocated for the others.
  ///
  /// - Precondition: as for the array; `item` is called once for each `k`, in order.
  public init(
    count: Int, expected: Int? = nil, nodeSize: Int = RTree.defaultNodeSize,
    item: (Int) -> (id: Int32, box: BoundingBox)?
  ) {
    var entries = EntryList(reservingCapacity: expected ?? count)
    var itemCount = 0
    for k in 0..<count {
      guard let (id, box) = item(k) else { continue }
      Self.checkBox(box, id: id)
      entries.append(id: id, box: box)
      itemCount += 1
    }
    self.init(
      packing: consume entries, itemCount: itemCount, nodeSize: nodeSize, tailCapacity: 128,
      rebuildDivisor: 8)
  }

  /// An index with explicit tuning of the dynamic part, for tests that exercise its rebuilds.
  package init(
    _ items: some Sequence<(id: Int32, box: BoundingBox)>, nodeSize: Int,
    tailCapacity: Int, rebuildDivisor: Int,
    pointGridMinimum: Int = PointGrid.defaultMinimumEntries
  ) {
    self.init(
      packing: Array(items), nodeSize: nodeSize, tailCapacity: tailCapacity,
      rebuildDivisor: rebuildDivisor, pointGridMinimum: pointGridMinimum)
  }

  /// An index of `items`: their entries, packed by the initializer below.
  @usableFromInline
  init(
    packing items: consuming [(id: Int32, box: BoundingBox)], nodeSize: Int, tailCapacity: Int,
    rebuildDivisor: Int, pointGridMinimum: Int = PointGrid.defaultMinimumEntries
  ) {
    var entries = EntryList(reservingCapacity: items.count)
    var itemCount = 0
    for (id, box) in items {
      Self.checkBox(box, id: id)
      entries.append(id: id, box: box)
      itemCount += 1
    }
    // The items are copied into `entries`: freed before the packing (when the caller gave its
    // last reference), not held beside its scratch tables.
    items = []
    self.init(
      packing: consume entries, itemCount: itemCount, nodeSize: nodeSize,
      tailCapacity: tailCapacity, rebuildDivisor: rebuildDivisor,
      pointGridMinimum: pointGridMinimum)
  }

  /// The one place an index is built, from the entries (boxes already checked) of `itemCount`
  /// items: O(*n*), one allocation per array, none per item.
  private init(
    packing entries: consuming EntryList, itemCount: Int, nodeSize: Int, tailCapacity: Int,
    rebuildDivisor: Int, pointGridMinimum: Int = PointGrid.defaultMinimumEntries
  ) {
    precondition(nodeSize >= 2 && nodeSize <= 1024, "Node size \(nodeSize) is not in 2...1024")
    precondition(tailCapacity >= 2, "Tail capacity \(tailCapacity) must be at least 2")
    precondition(rebuildDivisor >= 1, "Rebuild divisor \(rebuildDivisor) must be at least 1")
    self.nodeSize = nodeSize
    self.tailCapacity = tailCapacity
    self.rebuildDivisor = rebuildDivisor
    main = PackedTree(packing: consume entries, nodeSize: nodeSize, packingLanes: false)
    delta = PackedTree(nodeSize: nodeSize)
    tail = EntryList()
    count = itemCount
    self.pointGridMinimum = pointGridMinimum
    mainGrid = nil
    mainWide = PackedTree(nodeSize: nodeSize)
    gridMain()
    // Each id is one entry, or two when they are the two parts of one crossing item (as it is
    // when every entry's id is its slot).
    let order = main.idOrder
    var run = 0
    while run < order.count {
      var next = run + 1
      while next < order.count, order[next] >> 32 == order[run] >> 32 { next += 1 }
      let isItem: Bool
      if next - run == 1 {
        isItem = main.entries.flags[Int(order[run] & 0xFFFF_FFFF)].isDisjoint(with: .crossingPart)
      } else {
        let a = main.entries.flags[Int(order[run] & 0xFFFF_FFFF)]
        let b = main.entries.flags[Int(order[run + 1] & 0xFFFF_FFFF)]
        isItem = next - run == 2 && a.union(b) == .crossingPart && a != b
      }
      precondition(isItem, "Duplicate item id \(main.entries.id(at: Int(order[run] & 0xFFFF_FFFF)))")
      run = next
    }
  }

  /// Whether the index holds no item.
  public var isEmpty: Bool { count == 0 }

  /// Whether point searches read a uniform grid (``PointGrid``: a large index of boxes of
  /// about one size) rather than walk the packed tree: they then cost about one cell's list,
  /// whatever the number of items.
  public var answersPointsFromGrid: Bool { mainGrid != nil }

  /// Whether an item with this id is in the index.
  public func contains(id: Int32) -> Bool {
    location(of: id) != nil
  }

  /// The box an item was inserted with, or `nil` when the id is not in the index.
  public func boundingBox(of id: Int32) -> BoundingBox? {
    guard let place = location(of: id) else { return nil }
    return entries(in: place.layer).itemBox(first: place.first, second: place.second)
  }

  /// Adds an item; returns `false`, changing nothing, when the id is already in the index.
  ///
  /// - Precondition: the box is valid (see ``init(_:nodeSize:)``).
  /// - Complexity: amortised O(*d* / *t*) for a delta of *d* entries and a tail of *t* (128);
  ///   the insert that fills the tail packs the delta, O(*d*); a full rebuild, O(*n*), happens
  ///   after about *n* / 8 changes.
  @discardableResult
  public mutating func insert(id: Int32, box: BoundingBox) -> Bool {
    Self.checkBox(box, id: id)
    guard location(of: id) == nil else { return false }
    tail.append(id: id, box: box)
    count += 1
    if tail.count >= tailCapacity { packTail() }
    return true
  }

  /// Packs the unsorted tail into the delta tree now, as the insert that fills it would (or
  /// rebuilds everything when the dynamic part has grown past its share).
  ///
  /// Searches then skip the tail's linear scan: worth it after a batch of inserts that will be
  /// searched many times before the next batch.
  /// - Complexity: O(*d*) for a delta of *d* entries.
  public mutating func packTail() {
    guard tail.count > 0 else { return }
    if needsFullRebuild {
      rebuild()
    } else {
      var pending = EntryList(reservingCapacity: delta.liveEntryCount + tail.count)
      pending.appendLive(from: delta.entries)
      pending.appendLive(from: tail)
      delta = PackedTree(packing: consume pending, nodeSize: nodeSize)
      tail.removeAll()
    }
  }

  /// Removes an item; returns `false` when the id is not in the index.
  ///
  /// - Complexity: O(log *n*), plus the occasional full rebuild (see ``insert(id:box:)``).
  @discardableResult
  public mutating func remove(id: Int32) -> Bool {
    guard let place = location(of: id) else { return false }
    switch place.layer {
    case .main:
      _ = main.markRemoved(place.first)
      if let second = place.second { _ = main.markRemoved(second) }
      if mainGrid != nil { removeFromMainGrid(id: id, slots: place.first, place.second) }
    case .delta:
      _ = delta.markRemoved(place.first)
      if let second = place.second { _ = delta.markRemoved(second) }
    case .tail:
      tail.removeSubrange(place.first..<((place.second ?? place.first) + 1))
    }
    count -= 1
    if needsFullRebuild { rebuild() }
    return true
  }

  /// Packs every item into one tree, emptying the dynamic part.
  ///
  /// Searches are fastest right after; call it after a burst of changes if convenient.
  /// - Complexity: O(*n*).
  public mutating func compact() {
    if delta.entryCount > 0 || tail.count > 0 || main.removedCount > 0 { rebuild() }
  }

  // MARK: - Internals

  /// Which part of the index holds an entry.
  enum Layer: Sendable {
    case main
    case delta
    case tail
  }

  /// Where an item's live entries are.
  struct Location {
    var layer: Layer
    var first: Int
    var second: Int?
  }

  func entries(in layer: Layer) -> EntryList {
    switch layer {
    case .main: main.entries
    case .delta: delta.entries
    case .tail: tail
    }
  }

  /// The live entries of an item. An id removed from a packed tree may live again in a later
  /// layer, so each layer is asked, newest first.
  func location(of id: Int32) -> Location? {
    if let slot = (0..<tail.count).first(where: { tail.id(at: $0) == id }) {
      let second = tail.flags[slot].contains(.firstPart) ? slot + 1 : nil
      return Location(layer: .tail, first: slot, second: second)
    }
    return liveLocation(of: id, in: delta, layer: .delta)
      ?? liveLocation(of: id, in: main, layer: .main)
  }

  private func liveLocation(of id: Int32, in tree: PackedTree, layer: Layer) -> Location? {
    guard let (a, b) = tree.slots(of: id), !tree.entries.flags[a].contains(.removed) else {
      return nil
    }
    // Slot order is curve order: put the western part first.
    if let b, tree.entries.flags[a].contains(.secondPart) {
      return Location(layer: layer, first: b, second: a)
    }
    return Location(layer: layer, first: a, second: b)
  }

  /// The live entries plus the removed ones waiting for a rebuild.
  private var storedEntryCount: Int { main.entryCount + delta.entryCount + tail.count }

  /// Whether the dynamic part (delta, tail, removed entries) exceeds its share of the index.
  private var needsFullRebuild: Bool {
    let dynamic = delta.entryCount + tail.count + main.removedCount
    let live = storedEntryCount - main.removedCount - delta.removedCount
    return dynamic >= tailCapacity && dynamic * rebuildDivisor > live
  }

  private mutating func rebuild() {
    var all = EntryList(
      reservingCapacity: main.liveEntryCount + delta.liveEntryCount + tail.count)
    all.appendLive(from: main.entries)
    all.appendLive(from: delta.entries)
    all.appendLive(from: tail)
    main = PackedTree(packing: consume all, nodeSize: nodeSize, packingLanes: false)
    delta = PackedTree(nodeSize: nodeSize)
    tail.removeAll()
    gridMain()
  }

  /// Builds ``mainGrid`` and ``mainWide`` for the current ``main`` (or drops them). ``main``
  /// keeps its lanes only without a grid: the grid and ``mainWide`` answer its point searches,
  /// and no other search reads them (a million circles: 16 MB).
  private mutating func gridMain() {
    if let (grid, wide) = PointGrid.build(
      over: main.entries, slotsAreIDs: main.idsAreSlots, minimumEntries: pointGridMinimum)
    {
      mainGrid = grid
      mainWide = PackedTree(packing: consume wide, nodeSize: nodeSize)
      main.dropLanes()
    } else {
      mainGrid = nil
      mainWide = PackedTree(nodeSize: nodeSize)
      if !main.hasLanes { main.packLanes() }
    }
  }

  /// Drops an item removed from ``main`` (its entries at `first` and `second`) from the grid,
  /// or from ``mainWide``.
  private mutating func removeFromMainGrid(id: Int32, slots first: Int, _ second: Int?) {
    func unlist(_ slot: Int) {
      let b = 4 * slot
      let boxes = main.entries.boxes
      mainGrid?.remove(
        slot: slot, west: boxes[b], south: boxes[b + 1], east: boxes[b + 2], north: boxes[b + 3])
    }
    unlist(first)
    if let second { unlist(second) }
    if let (a, b) = mainWide.slots(of: id) {
      _ = mainWide.markRemoved(a)
      if let b { _ = mainWide.markRemoved(b) }
    }
  }

  private static func checkBox(_ box: BoundingBox, id: Int32) {
    precondition(
      box.south >= -90 && box.south <= box.north && box.north <= 90
        && box.west >= -180 && box.west <= 180 && box.east >= -180 && box.east <= 180,
      "Invalid box for item \(id): \(box) (need finite edges, -90 <= south <= north <= 90, "
        + "longitudes in -180...180)")
  }
}
