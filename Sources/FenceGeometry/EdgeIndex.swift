/// The straight edges of one shape in a planar (longitude, latitude) frame, in chain order,
/// with a tree of edge-chunk boxes for nearest-edge searches.
///
/// Built once when a ``Polygon`` or ``Polyline`` is made and never changed, so it is shared
/// between copies of the value and across threads; only its stripes and a large chunk tree are
/// made later, by the first query that needs them, and published once (``withStripes(_:)``,
/// ``withTree(_:)``; decision 0017), and so are the values of a large index whose vertices are
/// exact decimals, kept packed until the first query reads them (``withEdges(_:)``; decision
/// 0018). Edges are stored flat (`x0, y0, x1, y1` per edge) in the order of the chains, so consecutive edges are neighbours on the ground; the
/// chunk tree (see `ChunkTree.swift`) groups them by `chunkSize` and boxes the groups, for
/// distances; latitude stripes (see `EdgeIndex+Stripes.swift`) file them for point-in-polygon.
/// A multipolygon's parts are joined in one more index for containment
/// (``init(joining:colours:)``), which has stripes and no tree.
///
/// A shape with an edge spanning more than 180 degrees of longitude crosses the antimeridian:
/// its negative longitudes get 360 added (``isUnwrapped``), so that every edge is short in the
/// frame. Edges running from one side of the map frame to the other (both ends at longitude
/// ±180, such as Antarctica's edge along the south pole) do not count: such shapes stay planar,
/// as in GEOS.
final class EdgeIndex: Sendable {
  /// Whether longitudes were unwrapped into [0, 360] because the shape crosses the antimeridian.
  let isUnwrapped: Bool
  /// ``edgeStride``, in a byte beside the flags.
  private let strideByte: UInt8
  /// How the chunk tree (``ChunkTree``: the boxes of edge chunks and of their groups, level by
  /// level) is held: none (a multipolygon's joined index), made for each search (a small
  /// tree), or stored, built on first use (``withTree(_:)``).
  let treeStorage: TreeStorage
  /// The number of edge values (doubles), plain or packed: edge `k` is values
  /// `s * k ..< s * k + 4` as `x0, y0, x1, y1` (longitude, latitude in the frame), for the
  /// stride `s` = ``edgeStride``; zero-length edges are left out. Read them with
  /// ``withEdges(_:)``.
  let valueCount: Int
  /// The edge values when held plain; empty when packed.
  let plainEdges: ContiguousArray<Double>
  /// The edge values packed as decimals (``DecimalPacking``; never empty: its first byte is the
  /// number of places), or empty when they are held plain: packed for a
  /// shape of at least ``smallEdgeCount`` edges whose values are all exact decimals of a few
  /// places (zone files' text), about 2 bytes a value instead of 8.
  let packedEdges: ContiguousArray<UInt8>
  /// Whether the edge values are held packed as decimals (``packedEdges``; decision 0018) and
  /// unpacked by the first query that reads them, else plain (``plainEdges``).
  var isPacked: Bool { !packedEdges.isEmpty }
  /// A packed index's values unpacked, by the first query that reads them (``withEdges(_:)``).
  let unpackedSlot: PublishedOnce<UnpackedEdges>
  /// Doubles from one edge's start to the next's: 2 when the edges are one chain of vertices
  /// (each edge ends where the next starts, so the values hold each vertex once: a ring or a
  /// polyline, a vertex repeating the one before it left out), 4 otherwise (each edge's four
  /// values).
  var edgeStride: Int { Int(strideByte) }
  /// The frame's extent of all edges.
  let minX: Double
  let maxX: Double
  let minY: Double
  let maxY: Double
  /// The stored chunk tree, when ``treeStorage`` is `.stored`: built by the first search that
  /// needs it (``withTree(_:)``).
  let treeSlot: PublishedOnce<TreeTable>
  /// The latitude stripes (``StripeTable``), filed on the first containment query, not when the
  /// index is made: most polygons of a large zone set are never asked (the time zones' stripes
  /// were 18 MB of the harbor week's memory, of which the harbor's fixes read a few polygons').
  /// An index small enough to be scanned whole starts with the shared empty table
  /// (``withStripes(_:)``).
  let stripeSlot: PublishedOnce<StripeTable>
  /// The colour of each edge (a bit number of the parity word); may be longer than the edges
  /// (``zeroColours``).
  let colours: ContiguousArray<UInt8>
  /// The parts whose edges the index holds: one of colour 0 (``PartTable/single``), or a
  /// multipolygon's parts, joined (see `EdgeIndex+Parts.swift`).
  let parts: PartTable

  /// Indexes the edges between consecutive vertices of each chain (a polygon's closed rings, or
  /// a polyline's vertices).
  init(chains: [[Coordinate]]) {
    let unwrap = EdgeIndex.crossesAntimeridian(chains)
    isUnwrapped = unwrap
    var edges: ContiguousArray<Double> = []
    // One chain is stored as its vertices (stride 2), a vertex repeating the one before it
    // left out: its edges are the same non-degenerate edges, in the same order, as stride 4
    // would keep. Only when a repeat is equal but not identical (0 and -0) does the chain keep
    // four values an edge, each edge's own ends.
    let chained = chains.filter { $0.count >= 2 }
    if chained.count == 1, EdgeIndex.repeatsAreIdentical(chained[0], unwrapped: unwrap) {
      edges.reserveCapacity(2 * chained[0].count)
      var lastX = Double.nan
      var lastY = Double.nan
      for vertex in chained[0] {
        let x = EdgeIndex.frameLongitude(vertex.longitude, unwrapped: unwrap)
        let y = vertex.latitude
        if x == lastX && y == lastY { continue }
        edges.append(x)
        edges.append(y)
        lastX = x
        lastY = y
      }
      // One point repeated: no edge, as four values an edge would have it.
      if edges.count == 2 { edges.removeAll() }
      strideByte = 2
    } else {
      edges.reserveCapacity(4 * chains.reduce(0) { $0 + max(0, $1.count - 1) })
      for chain in chained {
        for i in 0..<(chain.count - 1) {
          let x0 = EdgeIndex.frameLongitude(chain[i].longitude, unwrapped: unwrap)
          let y0 = chain[i].latitude
          let x1 = EdgeIndex.frameLongitude(chain[i + 1].longitude, unwrapped: unwrap)
          let y1 = chain[i + 1].latitude
          if x0 == x1 && y0 == y1 { continue }
          edges.append(x0)
          edges.append(y0)
          edges.append(x1)
          edges.append(y1)
        }
      }
      strideByte = 4
    }
    // Either way the values alternate x, y: the extent is over them all.
    var minX = Double.infinity
    var maxX = -Double.infinity
    var minY = Double.infinity
    var maxY = -Double.infinity
    edges.withUnsafeBufferPointer { values in
      for i in Swift.stride(from: 0, to: values.count, by: 2) {
        minX = min(minX, values[i])
        maxX = max(maxX, values[i])
        minY = min(minY, values[i + 1])
        maxY = max(maxY, values[i + 1])
      }
    }
    let count = EdgeIndex.edgeCount(values: edges.count, stride: Int(strideByte))
    let packed =
      count >= EdgeIndex.smallEdgeCount
      ? edges.withUnsafeBufferPointer(DecimalPacking.pack) : nil
    valueCount = edges.count
    plainEdges = packed == nil ? edges : []
    packedEdges = packed ?? []
    unpackedSlot = PublishedOnce()
    self.minX = minX
    self.maxX = maxX
    self.minY = minY
    self.maxY = maxY
    treeStorage =
      count == 0 ? .none : (ChunkTree.storesNodes(edgeCount: count) ? .stored : .madePerSearch)
    treeSlot = PublishedOnce()
    stripeSlot = PublishedOnce(EdgeIndex.initialStripeSlot(edgeCount: count, parts: 1))
    colours =
      count <= EdgeIndex.zeroColours.count
      ? EdgeIndex.zeroColours : ContiguousArray(repeating: 0, count: count)
    parts = .single
  }

  /// The edges of `parts`, which must share one frame (all unwrapped or none), joined part
  /// after part (four values per edge) and filed by stripe, each part's edges under the colour
  /// at the same position of `colours` (below 64): a multipolygon's containment index. It has
  /// no chunk tree (distances search the parts' own).
  init(joining parts: [EdgeIndex], colours partColours: [UInt8]) {
    self.parts = PartTable(colours: partColours, indexes: parts)
    precondition(!parts.isEmpty && parts.count == partColours.count, "joined index parts")
    precondition(partColours.allSatisfy { $0 < 64 }, "stripe colours are bits of a UInt64")
    let unwrapped = parts[0].isUnwrapped
    precondition(parts.allSatisfy { $0.isUnwrapped == unwrapped }, "parts in one frame")
    isUnwrapped = unwrapped
    var minX = Double.infinity
    var maxX = -Double.infinity
    var minY = Double.infinity
    var maxY = -Double.infinity
    var edgeCount = 0
    for part in parts {
      minX = min(minX, part.minX)
      maxX = max(maxX, part.maxX)
      minY = min(minY, part.minY)
      maxY = max(maxY, part.maxY)
      edgeCount += part.edgeCount
    }
    var joined = ContiguousArray<Double>()
    joined.reserveCapacity(4 * edgeCount)
    var edgeColours = ContiguousArray<UInt8>()
    edgeColours.reserveCapacity(edgeCount)
    for (part, colour) in zip(parts, partColours) {
      // Read once, so a packed part is unpacked for the copy and not kept unpacked.
      part.withEdgesUnpublished { e in
        if part.edgeStride == 4 {
          joined.append(contentsOf: e)
        } else {
          for k in 0..<part.edgeCount {
            joined.append(e[2 &* k])
            joined.append(e[2 &* k &+ 1])
            joined.append(e[2 &* k &+ 2])
            joined.append(e[2 &* k &+ 3])
          }
        }
      }
      edgeColours.append(contentsOf: repeatElement(colour, count: part.edgeCount))
    }
    strideByte = 4
    valueCount = joined.count
    plainEdges = joined
    packedEdges = []
    unpackedSlot = PublishedOnce()
    colours = edgeColours
    self.minX = minX
    self.maxX = maxX
    self.minY = minY
    self.maxY = maxY
    treeStorage = .none
    treeSlot = PublishedOnce()
    stripeSlot = PublishedOnce(
      EdgeIndex.initialStripeSlot(edgeCount: edgeCount, parts: parts.count))
  }

  deinit {
    stripeSlot.releaseObject(keeping: EdgeIndex.emptyStripeTable)
    treeSlot.releaseObject()
    unpackedSlot.releaseObject()
  }

  /// Whether every two consecutive vertices of `chain` that are the same point in the frame (a
  /// zero-length edge, which the index leaves out) are also the same bits, so that the chain
  /// without its repeats has exactly the edges, end for end, that four values an edge would
  /// keep.
  static func repeatsAreIdentical(_ chain: [Coordinate], unwrapped: Bool) -> Bool {
    for i in 0..<(chain.count - 1) {
      let x0 = frameLongitude(chain[i].longitude, unwrapped: unwrapped)
      let x1 = frameLongitude(chain[i + 1].longitude, unwrapped: unwrapped)
      let y0 = chain[i].latitude
      let y1 = chain[i + 1].latitude
      if x0 == x1 && y0 == y1
        && (x0.bitPattern != x1.bitPattern || y0.bitPattern != y1.bitPattern)
      {
        return false
      }
    }
    return true
  }

  /// This index with its chunk tree's nodes stored (itself when they are, or there is no tree):
  /// for the parts of a multipolygon, whose distance search may measure many parts at every
  /// call, where making each part's nodes again would cost a cosine and a sine a node.
  func storingTreeNodes() -> EdgeIndex {
    treeStorage != .madePerSearch ? self : EdgeIndex(self, storingTreeNodes: ())
  }

  /// A copy of `other` (its arrays shared) whose chunk tree stores its nodes.
  private init(_ other: EdgeIndex, storingTreeNodes: Void) {
    isUnwrapped = other.isUnwrapped
    strideByte = other.strideByte
    valueCount = other.valueCount
    plainEdges = other.plainEdges
    packedEdges = other.packedEdges
    // Unpacked again if ever read, as the stripes are filed again (below).
    unpackedSlot = PublishedOnce()
    minX = other.minX
    maxX = other.maxX
    minY = other.minY
    maxY = other.maxY
    treeStorage = .stored
    treeSlot = PublishedOnce()
    // The copy measures distances (a multipolygon's part): its stripes, if ever asked, are
    // filed again rather than shared, which would need a count of owners.
    stripeSlot = PublishedOnce(
      EdgeIndex.initialStripeSlot(edgeCount: other.edgeCount, parts: other.partCount))
    colours = other.colours
    parts = other.parts
  }

  /// Calls `body` with the chunk tree's root node (its ``ChunkTree/stride`` values), or returns
  /// `nil` without a tree. A tree that stores no nodes has the extent as its root's box (both
  /// are the least and greatest of the same values, taken in the same order), so its root is
  /// made from the extent without reading the edges.
  @inline(__always)
  func withTreeRoot<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R? {
    switch treeStorage {
    case .none:
      return nil
    case .stored:
      return try withTree { tree in
        let count = tree.nodeCount
        return try tree.storedNodes.withUnsafeBufferPointer { nodes in
          try body(UnsafeBufferPointer(rebasing: nodes[(ChunkTree.stride * (count - 1))...]))
        }
      }
    case .madePerSearch:
      break
    }
    return try withUnsafeTemporaryAllocation(of: Float.self, capacity: ChunkTree.stride) { root in
      ChunkTree.writeNode(minX, minY, maxX, maxY, into: root.baseAddress!)
      return try body(UnsafeBufferPointer(root))
    }
  }

  /// The number of indexed (non-degenerate) edges.
  var edgeCount: Int { EdgeIndex.edgeCount(values: valueCount, stride: edgeStride) }

  /// The number of edges in `values` doubles at stride `stride` (see ``edgeStride``).
  @inline(__always)
  static func edgeCount(values: Int, stride: Int) -> Int {
    stride == 4 ? values / 4 : max(0, values / 2 - 1)
  }

  /// The edge number of stripe entry `k` (`stripeOffset(s) ..< stripeOffset(s + 1)` are stripe
  /// `s`'s).
  func stripeEntry(_ k: Int) -> Int {
    withStripes { stripes in
      stripes.edgeNumbers.withUnsafeBufferPointer {
        EdgeIndex.value($0, k, narrow: EdgeIndex.hasNarrowEdgeNumbers(edgeCount: edgeCount))
      }
    }
  }

  /// Edge `k` as `x0, y0, x1, y1` in the frame.
  func edge(_ k: Int) -> (Double, Double, Double, Double) {
    let i = edgeStride * k
    precondition(k >= 0 && i + 4 <= valueCount, "edge number out of range")
    return withEdges { e in (e[i], e[i &+ 1], e[i &+ 2], e[i &+ 3]) }
  }

  /// The vertices of the edges as one chain: each edge's start, then the last edge's end. The
  /// chain given when the index holds exactly one, not unwrapped, with no zero-length edge left
  /// out (``Polygon`` keeps such a ring only here).
  func singleChain() -> [Coordinate] {
    let count = edgeCount
    let s = edgeStride
    guard count > 0 else { return [] }
    return [Coordinate](unsafeUninitializedCapacity: count + 1) { chain, initialized in
      withEdgesUnpublished { edges in
        for i in 0..<count {
          chain.initializeElement(
            at: i, to: Coordinate(uncheckedLatitude: edges[s &* i &+ 1], longitude: edges[s &* i]))
        }
        let last = s &* (count &- 1)
        chain.initializeElement(
          at: count,
          to: Coordinate(uncheckedLatitude: edges[last &+ 3], longitude: edges[last &+ 2]))
      }
      initialized = count + 1
    }
  }

  /// A longitude in the shape's frame.
  @inline(__always)
  static func frameLongitude(_ longitude: Double, unwrapped: Bool) -> Double {
    unwrapped && longitude < 0 ? longitude + 360 : longitude
  }

  /// Whether the chains must be unwrapped: some edge spans more than 180 degrees of longitude
  /// (other than a map-frame edge between ±180), and unwrapping leaves every edge short.
  static func crossesAntimeridian(_ chains: [[Coordinate]]) -> Bool {
    var wraps = false
    for chain in chains where chain.count >= 2 {
      for i in 0..<(chain.count - 1) {
        let a = chain[i].longitude
        let b = chain[i + 1].longitude
        if abs(b - a) > 180, !(abs(a) == 180 && abs(b) == 180) { wraps = true }
      }
    }
    guard wraps else { return false }
    for chain in chains where chain.count >= 2 {
      for i in 0..<(chain.count - 1) {
        let a = frameLongitude(chain[i].longitude, unwrapped: true)
        let b = frameLongitude(chain[i + 1].longitude, unwrapped: true)
        if abs(b - a) > 180 { return false }  // wider than half the globe: keep it planar
      }
    }
    return true
  }

  /// The box of the indexed edges in geographic longitudes (`west > east` when unwrapped across
  /// the antimeridian).
  var boundingBox: BoundingBox {
    guard minX <= maxX else { return BoundingBox(south: 0, west: 0, north: 0, east: 0) }
    func geographic(_ x: Double) -> Double { x > 180 ? x - 360 : x }
    if isUnwrapped {
      if maxX - minX >= 360 { return .allLongitudes(south: minY, north: maxY) }
      return BoundingBox(south: minY, west: geographic(minX), north: maxY, east: geographic(maxX))
    }
    return BoundingBox(south: minY, west: minX, north: maxY, east: maxX)
  }
}
