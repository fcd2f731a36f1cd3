#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Boxes over chunks of consecutive edges, and over groups of consecutive boxes, level by level
/// up to one root: a small static tree in flat arrays for nearest-edge searches.
///
/// Consecutive edges of a ring or polyline are neighbours on the ground, so chunks of
/// ``chunkSize`` of them have small boxes without any sorting (the "natural" index of
/// tidwall/tg, written for this project). Level 0 holds one box per chunk (chunk `k` is edges
/// `k * chunkSize ..< (k + 1) * chunkSize`); node `k` of level `L + 1` covers nodes
/// `k * fanOut ..< (k + 1) * fanOut` of level `L`. Each node stores `minX, minY, maxX, maxY` in
/// the frame's degrees, then the smallest cosine of latitude over its box and the meridional
/// radius at its latitude nearest the equator, which ``BoxDistanceBound`` needs.
///
/// The values are `Float`s rounded outward (24 bytes a node instead of 48: the time zones' trees
/// were 12.8 MB): each box is rounded to the nearest `Float`s that still hold it (less than a
/// metre looser), and the cosine and radius are those of the rounded box, rounded down. Every
/// reader uses a node only to skip what it cannot reach, so a looser box skips less and answers
/// the same; the edges themselves stay `Double`.
struct ChunkTree: Sendable {
  /// Edges per leaf chunk.
  static let chunkSize = 8
  /// Children per inner node.
  static let fanOut = 8
  /// Values stored per node.
  static let stride = 6
  /// The most levels a tree may have (8⁹ chunks of 8 edges, far beyond any real outline): the
  /// search's fixed-size stack holds `fanOut - 1` pending nodes per level.
  static let maximumLevels = 9

  /// The most chunks of a tree whose nodes are not stored but made on the stack when searched
  /// (``withNodes(edges:stride:_:)``): at most 32 edges, five nodes. A million 16-edge polygons
  /// would otherwise each hold three nodes and their array (176 bytes), a sixth of the polygon.
  static let unstoredChunkLimit = 4

  /// `minX, minY, maxX, maxY, cosMin, radius` per node, level 0 (the chunks) first, the root last.
  /// Exactly as long as the nodes: a million small polygons would otherwise each hold room for
  /// a node or two more. Empty for a tree of at most ``unstoredChunkLimit`` chunks, whose nodes
  /// ``withNodes(edges:stride:_:)`` makes when they are read.
  let storedNodes: ContiguousArray<Float>
  /// Level 0's node count (the chunks), and the number of levels (0 without edges). Where each
  /// level starts follows from them (``withLevelStarts(_:)``): an array of them was a heap
  /// block per polygon.
  let chunkCount: Int32
  let levelCount32: Int32

  /// Builds the tree over flat edges at `stride` (see ``EdgeIndex/edgeStride``), in O(*n*).
  init(edges: ContiguousArray<Double>, stride: Int) {
    self.init(edges: edges, stride: stride, storing: nil)
  }

  /// ``init(edges:stride:storing:)`` over an array's values.
  init(edges: ContiguousArray<Double>, stride: Int, storing: Bool?) {
    self = edges.withUnsafeBufferPointer { ChunkTree(edges: $0, stride: stride, storing: storing) }
  }

  /// The tree over `edgeCount` edges with no nodes stored: its shape only, the nodes made for
  /// each search by ``withNodes(edges:stride:_:)``. Allocates nothing and reads no edge.
  init(unstoredOverEdges edgeCount: Int) {
    storedNodes = []
    guard edgeCount > 0 else {
      chunkCount = 0
      levelCount32 = 0
      return
    }
    let chunks = (edgeCount + Self.chunkSize - 1) / Self.chunkSize
    chunkCount = Int32(chunks)
    levelCount32 = Int32(Self.levelCount(chunks: chunks))
  }

  /// Whether a tree over `edgeCount` edges stores its nodes unless told otherwise (more than
  /// ``unstoredChunkLimit`` chunks).
  static func storesNodes(edgeCount: Int) -> Bool {
    (edgeCount + chunkSize - 1) / chunkSize > unstoredChunkLimit
  }

  /// ``init(edges:stride:)``, with `storing` to keep the nodes (`true`) or not (`false`)
  /// whatever the chunk count (for tests; `nil`: as ``unstoredChunkLimit`` says).
  init(edges: UnsafeBufferPointer<Double>, stride: Int, storing: Bool?) {
    let edgeCount = EdgeIndex.edgeCount(values: edges.count, stride: stride)
    guard edgeCount > 0 else {
      storedNodes = []
      chunkCount = 0
      levelCount32 = 0
      return
    }
    let chunkCount = (edgeCount + Self.chunkSize - 1) / Self.chunkSize
    precondition(chunkCount < Int(Int32.max), "too many edges for a chunk tree")
    let nodeCount = Self.nodeCount(chunks: chunkCount)
    let levels = Self.levelCount(chunks: chunkCount)
    precondition(levels <= Self.maximumLevels, "chunk tree too deep")
    self.chunkCount = Int32(chunkCount)
    levelCount32 = Int32(levels)
    if storing ?? (chunkCount > Self.unstoredChunkLimit) {
      storedNodes = ContiguousArray(unsafeUninitializedCapacity: Self.stride * nodeCount) {
        nodes, initialized in
        Self.build(edges: edges, stride: stride, edgeCount: edgeCount, into: nodes.baseAddress!)
        initialized = Self.stride * nodeCount
      }
    } else {
      storedNodes = []
    }
  }

  /// Writes the nodes of the tree over `edgeCount` edges (at least one) into `nodes`, which has
  /// room for ``nodeCount(chunks:)`` nodes: the same values whether they are then stored or
  /// made on the stack for one search.
  private static func build(
    edges: UnsafeBufferPointer<Double>, stride: Int, edgeCount: Int,
    into nodes: UnsafeMutablePointer<Float>
  ) {
    var written = 0
    func append(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) {
      writeNode(minX, minY, maxX, maxY, into: nodes + Self.stride * written)
      written += 1
    }
    let chunkCount = (edgeCount + Self.chunkSize - 1) / Self.chunkSize
    for chunk in 0..<chunkCount {
      var minX = Double.infinity
      var minY = Double.infinity
      var maxX = -Double.infinity
      var maxY = -Double.infinity
      for e in (chunk * Self.chunkSize)..<min(edgeCount, (chunk + 1) * Self.chunkSize) {
        let i = stride * e
        minX = min(minX, edges[i], edges[i + 2])
        maxX = max(maxX, edges[i], edges[i + 2])
        minY = min(minY, edges[i + 1], edges[i + 3])
        maxY = max(maxY, edges[i + 1], edges[i + 3])
      }
      append(minX, minY, maxX, maxY)
    }
    var levelStart = 0
    var levelCount = chunkCount
    while levelCount > 1 {
      let parents = (levelCount + Self.fanOut - 1) / Self.fanOut
      for parent in 0..<parents {
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for child in (parent * Self.fanOut)..<min(levelCount, (parent + 1) * Self.fanOut) {
          let n = Self.stride * (levelStart + child)
          minX = min(minX, Double(nodes[n]))
          minY = min(minY, Double(nodes[n + 1]))
          maxX = max(maxX, Double(nodes[n + 2]))
          maxY = max(maxY, Double(nodes[n + 3]))
        }
        append(minX, minY, maxX, maxY)
      }
      levelStart += levelCount
      levelCount = parents
    }
  }

  /// Writes the node boxing `minX...maxX` × `minY...maxY` (its ``stride`` values) at `node`:
  /// the box rounded outward to `Float`s, then the cosine and radius of that rounded box,
  /// rounded down (see the type's notes). A box already made of `Float`s (a parent's, from its
  /// children) is kept exactly, so a parent holds its children's boxes.
  @inline(__always)
  static func writeNode(
    _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double,
    into node: UnsafeMutablePointer<Float>
  ) {
    let west = Float(roundingDown: minX)
    let south = Float(roundingDown: minY)
    let east = Float(roundingUp: maxX)
    let north = Float(roundingUp: maxY)
    let lower = Double(south)
    let upper = Double(north)
    let polar = max(abs(lower), abs(upper))
    let equatorial = lower > 0 ? lower : (upper < 0 ? -upper : 0)
    node[0] = west
    node[1] = south
    node[2] = east
    node[3] = north
    node[4] = Float(roundingDown: max(0, cos(polar * .pi / 180)))
    node[5] = Float(roundingDown: WGS84.meridionalRadius(latitude: equatorial))
  }

  /// Calls `body` with the nodes (``storedNodes``'s layout): the stored ones, or, for a tree of
  /// at most ``unstoredChunkLimit`` chunks, ones made on the stack from `edges` (the edges the
  /// tree was built over, at `stride`). Allocates nothing.
  @inline(__always)
  func withNodes<R>(
    edges: UnsafeBufferPointer<Double>, stride: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R
  ) rethrows -> R {
    if !storedNodes.isEmpty || levelCount32 == 0 {
      return try storedNodes.withUnsafeBufferPointer(body)
    }
    let count = Self.stride * Self.nodeCount(chunks: Int(chunkCount))
    return try withUnsafeTemporaryAllocation(of: Float.self, capacity: count) { nodes in
      Self.build(
        edges: edges, stride: stride,
        edgeCount: EdgeIndex.edgeCount(values: edges.count, stride: stride),
        into: nodes.baseAddress!)
      return try body(UnsafeBufferPointer(nodes))
    }
  }

  /// ``withNodes(edges:stride:_:)`` over an array's values (tests).
  func withNodes<R>(
    edges: ContiguousArray<Double>, stride: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R
  ) rethrows -> R {
    try edges.withUnsafeBufferPointer { try withNodes(edges: $0, stride: stride, body) }
  }

  /// Whether the nodes are stored (else made for each search).
  var storesNodes: Bool { !storedNodes.isEmpty }

  /// The number of nodes, all levels.
  var nodeCount: Int { levelCount32 == 0 ? 0 : Self.nodeCount(chunks: Int(chunkCount)) }

  /// The levels of a tree over `chunks` chunks (at least one).
  static func levelCount(chunks: Int) -> Int {
    var count = chunks
    var levels = 1
    while count > 1 {
      count = (count + fanOut - 1) / fanOut
      levels += 1
    }
    return levels
  }

  /// The number of levels (0 without edges); the root is the one node of the last level.
  var levelCount: Int { Int(levelCount32) }

  /// The nodes of a tree over `chunks` chunks, all levels.
  static func nodeCount(chunks: Int) -> Int {
    var count = chunks
    var total = chunks
    while count > 1 {
      count = (count + fanOut - 1) / fanOut
      total += count
    }
    return total
  }

  /// Calls `body` with the first node of each level, then the total node count: level `L` is
  /// nodes `starts[L] ..< starts[L + 1]` (`levelCount + 1` values; empty without edges). Made
  /// on the stack from ``chunkCount``, as the build laid the levels out.
  @inline(__always)
  func withLevelStarts<R>(_ body: (UnsafeBufferPointer<Int>) throws -> R) rethrows -> R {
    try withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.maximumLevels + 1) { starts in
      let levels = levelCount
      guard levels > 0 else { return try body(UnsafeBufferPointer(start: starts.baseAddress, count: 0)) }
      var count = Int(chunkCount)
      starts[0] = 0
      for level in 0..<levels {
        starts[level + 1] = starts[level] + count
        count = (count + Self.fanOut - 1) / Self.fanOut
      }
      return try body(UnsafeBufferPointer(start: starts.baseAddress, count: levels + 1))
    }
  }
}
