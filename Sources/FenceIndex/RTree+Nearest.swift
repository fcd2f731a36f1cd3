import FenceGeometry

extension RTree {
  /// An item found by ``nearest(to:count:within:exactDistance:into:scratch:)``.
  public struct Neighbor: Hashable, Sendable, CustomStringConvertible {
    public var id: Int32
    /// The exact distance the caller's `exactDistance` gave, in metres.
    public var distance: Double

    public init(id: Int32, distance: Double) {
      self.id = id
      self.distance = distance
    }

    public var description: String { "\(id)@\(distance)m" }
  }

  /// Reusable working memory for ``nearest(to:count:within:exactDistance:into:scratch:)``.
  ///
  /// Keep one per thread and pass it to every call: once its buffer has grown to the largest
  /// search, nearest-neighbour searches allocate nothing.
  public struct NearestScratch: Sendable {
    var heap: ContiguousArray<Candidate> = []
    /// The smallest exact distances measured in the current search, a max-heap of at most
    /// `count`.
    var best: ContiguousArray<Double> = []

    public init() {}
  }

  /// Finds up to `count` items nearest to `position` within `radius` metres, by the caller's exact
  /// distance, sorted by distance then id.
  ///
  /// Best-first search (Hjaltason and Samet 1999, "Distance browsing in spatial databases"):
  /// one priority queue holds nodes and items keyed by a lower bound of the distance to their
  /// boxes, and items whose exact distance is known, keyed by it. An item is emitted when it
  /// reaches the front, that is when its exact distance is no more than every remaining bound;
  /// at equal keys, nodes and unmeasured items come out before measured ones, and measured ones
  /// by id, so ties are broken by id exactly. `exactDistance` is called at most once per item,
  /// and only for items whose box may be within `radius` and may beat the `count`-th smallest
  /// exact distance measured so far (entries keyed beyond it are never queued); items farther
  /// than `radius`, or with a NaN distance, are left out. The bound is `SphericalBoxLowerBound`:
  /// never above ``lowerBoundDistance(from:to:)`` within `radius`, and free of trigonometry.
  ///
  /// `exactDistance(id)` must be at least the box bound for that item (any distance to a shape
  /// inside the box on the ellipsoid is). Queue keys are the bound lowered by a relative 1e-9 and
  /// a micrometre, which absorbs rounding in the caller's formula. An approximate formula that
  /// can fall below the bound by more should be clamped to it by the caller
  /// (`max(exact, RTree.lowerBoundDistance(from:to:))`), or results may come out of order.
  ///
  /// - Parameters:
  ///   - results: cleared, then filled; its capacity is reused.
  ///   - scratch: working memory reused across calls.
  /// - Complexity: roughly O((*k* + log *n*) log *n*) for *k* results on well-spread data.
  public func nearest(
    to position: Position, count: Int, within radius: Double,
    exactDistance: (Int32) -> Double, into results: inout [Neighbor],
    scratch: inout NearestScratch
  ) {
    precondition(count >= 0, "nearest(count:) must not be negative: \(count)")
    results.removeAll(keepingCapacity: true)
    scratch.heap.removeAll(keepingCapacity: true)
    let limit = SphericalBoxDistance.haversineLimit(metres: radius)
    guard count > 0, !isEmpty, limit >= 0 else { return }
    let probe = SphericalBoxLowerBound(
      latitude: position.latitude, longitude: position.longitude, reach: radius)
    // Nothing keyed above `cutoff` can be among the results: at first the radius, then the
    // `count`-th smallest exact distance measured so far (`scratch.best` holds the smallest).
    var cutoff = radius
    scratch.best.removeAll(keepingCapacity: true)

    @inline(__always)
    func key(_ h: Double) -> Double {
      SphericalBoxLowerBound.metres(haversine: h) * (1 - 1e-9) - 1e-6
    }
    func pushEntry(_ entries: EntryList, _ slot: Int, _ layer: Layer) {
      let flags = entries.flags[slot]
      if flags.contains(.removed) { return }
      let b = 4 * slot
      var h = probe.haversine(
        west: entries.boxes[b], south: entries.boxes[b + 1], east: entries.boxes[b + 2],
        north: entries.boxes[b + 3])
      if !flags.isEmpty {
        // A crossing item enters the queue once, through its nearer part (the western on a tie),
        // keyed by that part's bound: the smaller of the two.
        let p = 4 * partner(of: slot, in: layer)
        let other = probe.haversine(
          west: entries.boxes[p], south: entries.boxes[p + 1], east: entries.boxes[p + 2],
          north: entries.boxes[p + 3])
        let isNearer = flags.contains(.firstPart) ? h <= other : h < other
        guard isNearer else { return }
        h = min(h, other)
      }
      let k = key(h)
      guard k <= cutoff else { return }
      scratch.push(
        Candidate(key: k, kind: .box, layer: layer, level: 0, index: Int32(slot), id: entries.id(at: slot)))
    }
    func pushNode(_ tree: PackedTree, _ layer: Layer, node: Int, level: Int) {
      let b = 4 * node
      let k = key(
        probe.haversine(
          west: tree.nodeBoxes[b], south: tree.nodeBoxes[b + 1], east: tree.nodeBoxes[b + 2],
          north: tree.nodeBoxes[b + 3]))
      guard k <= cutoff else { return }
      scratch.push(
        Candidate(
          key: k, kind: .node, layer: layer, level: UInt8(level), index: Int32(node), id: 0))
    }
    func expand(_ tree: PackedTree, _ layer: Layer, node: Int, level: Int) {
      let start = Int(tree.firstChild[node])
      let end = min(start + nodeSize, tree.levelEnds[level - 1])
      if level == 1 {
        for slot in start..<end { pushEntry(tree.entries, slot, layer) }
      } else {
        for child in start..<end { pushNode(tree, layer, node: child, level: level - 1) }
      }
    }

    if main.height > 0 {
      pushNode(main, .main, node: main.levelEnds[main.height - 1] - 1, level: main.height - 1)
    }
    if delta.height > 0 {
      pushNode(delta, .delta, node: delta.levelEnds[delta.height - 1] - 1, level: delta.height - 1)
    }
    for slot in 0..<tail.count { pushEntry(tail, slot, .tail) }

    while let candidate = scratch.pop() {
      // Entries pushed before the cutoff fell may lie beyond it now.
      if candidate.key > cutoff { continue }
      switch candidate.kind {
      case .node:
        expand(
          candidate.layer == .main ? main : delta, candidate.layer,
          node: Int(candidate.index), level: Int(candidate.level))
      case .box:
        let d = exactDistance(candidate.id)
        // `d <= cutoff` also leaves out NaN; at `d == cutoff` the id may still decide a tie.
        if d <= cutoff {
          scratch.push(
            Candidate(
              key: d, kind: .measured, layer: candidate.layer, level: 0,
              index: candidate.index, id: candidate.id))
          if let lowered = scratch.recordMeasured(d, keeping: count) { cutoff = lowered }
        }
      case .measured:
        results.append(Neighbor(id: candidate.id, distance: candidate.key))
        if results.count == count { return }
      }
    }
  }
}

/// An entry of the nearest-neighbour priority queue.
struct Candidate: Sendable {
  enum Kind: UInt8, Sendable {
    /// An internal node, keyed by the bound of its box.
    case node
    /// An item whose exact distance is not yet known, keyed by the bound of its box.
    case box
    /// An item keyed by its exact distance.
    case measured
  }

  var key: Double
  var kind: Kind
  var layer: RTree.Layer
  var level: UInt8
  var index: Int32
  var id: Int32

  /// Queue order: key, then kind (nodes and unmeasured items before measured ones at equal
  /// keys), then id.
  @inline(__always)
  func precedes(_ other: Candidate) -> Bool {
    if key != other.key { return key < other.key }
    if kind != other.kind { return kind.rawValue < other.kind.rawValue }
    return id < other.id
  }
}

extension RTree.NearestScratch {
  /// Adds to the binary min-heap.
  mutating func push(_ candidate: Candidate) {
    heap.append(candidate)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].precedes(heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  /// Records an exact distance; returns the new cutoff (the largest of the `count` smallest
  /// distances) once `count` distances are known and it changed, `nil` otherwise.
  mutating func recordMeasured(_ distance: Double, keeping count: Int) -> Double? {
    if best.count == count {
      guard distance < best[0] else { return nil }
      // Replace the largest and sift it down.
      best[0] = distance
      var parent = 0
      while true {
        let left = 2 * parent + 1
        guard left < count else { break }
        var child = left
        if left + 1 < count, best[left + 1] > best[left] { child = left + 1 }
        guard best[child] > best[parent] else { break }
        best.swapAt(child, parent)
        parent = child
      }
      return best[0]
    }
    best.append(distance)
    var child = best.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard best[child] > best[parent] else { break }
      best.swapAt(child, parent)
      child = parent
    }
    return best.count == count ? best[0] : nil
  }

  /// Removes the first candidate in queue order.
  mutating func pop() -> Candidate? {
    guard let last = heap.popLast() else { return nil }
    guard !heap.isEmpty else { return last }
    let first = heap[0]
    heap[0] = last
    var parent = 0
    let n = heap.count
    while true {
      let left = 2 * parent + 1
      guard left < n else { break }
      var child = left
      if left + 1 < n, heap[left + 1].precedes(heap[left]) { child = left + 1 }
      guard heap[child].precedes(heap[parent]) else { break }
      heap.swapAt(child, parent)
      parent = child
    }
    return first
  }
}
