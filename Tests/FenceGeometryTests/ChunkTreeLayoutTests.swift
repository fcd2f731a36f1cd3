import Testing

@testable import FenceGeometry

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The chunk tree keeps no table of where its levels start: they follow from its chunk count.
/// Checked against the layout itself: each level's nodes box exactly its children (or, at
/// level 0, its chunk's edges), the last level is one root, and the nodes fill the array.
@Suite struct ChunkTreeLayoutTests {
  /// A zigzag of `count` edges, each edge's ends distinct: its `x0, y0, x1, y1` per edge
  /// (stride 4), or its vertices (stride 2).
  static func edges(_ count: Int, stride: Int) -> ContiguousArray<Double> {
    func vertex(_ i: Int) -> [Double] { [Double(i) * 0.001, Double(i % 7) * 0.002] }
    var edges = ContiguousArray<Double>()
    if stride == 2 {
      for i in 0...count { edges.append(contentsOf: vertex(i)) }
    } else {
      for i in 0..<count { edges.append(contentsOf: vertex(i) + vertex(i + 1)) }
    }
    return edges
  }

  /// The box (`minX, minY, maxX, maxY`) of some boxes.
  static func union(_ boxes: [[Double]]) -> [Double] {
    let minX = boxes.map { $0[0] }.min()!
    let minY = boxes.map { $0[1] }.min()!
    let maxX = boxes.map { $0[2] }.max()!
    let maxY = boxes.map { $0[3] }.max()!
    return [minX, minY, maxX, maxY]
  }

  /// `minX, minY, maxX, maxY` of node `n`.
  static func box(_ tree: ChunkTree, _ n: Int) -> [Double] {
    tree.storedNodes[(ChunkTree.stride * n)..<(ChunkTree.stride * n + 4)].map(Double.init)
  }

  /// A box rounded outward to `Float`s, as the nodes keep it.
  static func outward(_ box: [Double]) -> [Double] {
    [
      Double(Float(roundingDown: box[0])), Double(Float(roundingDown: box[1])),
      Double(Float(roundingUp: box[2])), Double(Float(roundingUp: box[3])),
    ]
  }

  @Test(arguments: [1, 7, 8, 9, 16, 64, 65, 512, 513, 4_097], [2, 4])
  func levelStartsFollowFromTheChunkCount(edgeCount: Int, stride: Int) {
    let edges = Self.edges(edgeCount, stride: stride)
    #expect(EdgeIndex.edgeCount(values: edges.count, stride: stride) == edgeCount)
    let tree = ChunkTree(edges: edges, stride: stride, storing: true)
    let chunks = (edgeCount + 7) / 8
    #expect(Int(tree.chunkCount) == chunks)
    let starts = tree.withLevelStarts { Array($0) }
    #expect(starts.count == tree.levelCount + 1)
    #expect(starts.first == 0)
    #expect(starts[1] == chunks)
    #expect(starts.last == tree.storedNodes.count / ChunkTree.stride)
    #expect(starts.last == tree.nodeCount)
    #expect(starts.last == ChunkTree.nodeCount(chunks: chunks))
    #expect(starts[starts.count - 1] - starts[starts.count - 2] == 1, "one root")
    // Level 0: each chunk's box is its edges' box.
    for chunk in 0..<chunks {
      let range = (8 * chunk)..<min(edgeCount, 8 * chunk + 8)
      let boxes = range.map { k -> [Double] in
        let i = stride * k
        return [
          min(edges[i], edges[i + 2]), min(edges[i + 1], edges[i + 3]),
          max(edges[i], edges[i + 2]), max(edges[i + 1], edges[i + 3]),
        ]
      }
      let exact = Self.union(boxes)
      #expect(Self.box(tree, chunk) == Self.outward(exact))
      // The cosine and radius are no larger than those of the exact box: bounds stay bounds.
      let n = ChunkTree.stride * chunk
      let polar = max(abs(exact[1]), abs(exact[3]))
      let equatorial = exact[1] > 0 ? exact[1] : (exact[3] < 0 ? -exact[3] : 0)
      #expect(Double(tree.storedNodes[n + 4]) <= cos(polar * .pi / 180))
      #expect(Double(tree.storedNodes[n + 5]) <= WGS84.meridionalRadius(latitude: equatorial))
    }
    // Higher levels: node k of a level boxes nodes 8k ..< 8k + 8 of the level below.
    for level in 1..<starts.count - 1 {
      let below = starts[level - 1]..<starts[level]
      for k in 0..<(starts[level + 1] - starts[level]) {
        let children = (below.lowerBound + 8 * k)..<min(below.upperBound, below.lowerBound + 8 * k + 8)
        let boxes = children.map { Self.box(tree, $0) }
        #expect(Self.box(tree, starts[level] + k) == Self.union(boxes))
      }
    }
  }

  @Test func noEdgesNoLevels() {
    let tree = ChunkTree(edges: [], stride: 4)
    #expect(tree.levelCount == 0)
    #expect(tree.withLevelStarts { $0.count } == 0)
    #expect(tree.storedNodes.isEmpty)
    #expect(tree.nodeCount == 0)
  }

  /// The bit patterns of some node values, so that -0.0 and 0.0 differ.
  static func bits(_ values: some Sequence<Float>) -> [UInt32] { values.map(\.bitPattern) }

  /// A tree of at most four chunks (32 edges) stores no nodes; the nodes it makes for a search
  /// are the stored tree's, bit for bit. Larger trees store theirs.
  @Test(arguments: [1, 7, 8, 9, 16, 31, 32, 33, 64, 65, 512], [2, 4])
  func smallTreesMakeTheNodesTheyDoNotStore(edgeCount: Int, stride: Int) {
    let edges = Self.edges(edgeCount, stride: stride)
    let tree = ChunkTree(edges: edges, stride: stride)
    let stored = ChunkTree(edges: edges, stride: stride, storing: true)
    #expect(tree.storesNodes == (edgeCount > 32))
    #expect(tree.storedNodes.isEmpty == (edgeCount <= 32))
    #expect(tree.nodeCount == ChunkTree.nodeCount(chunks: (edgeCount + 7) / 8))
    let made = tree.withNodes(edges: edges, stride: stride) { Self.bits($0) }
    #expect(made == Self.bits(stored.storedNodes))
    #expect(made.count == ChunkTree.stride * tree.nodeCount)
  }

  /// The root of a tree that stores no nodes is made from the edge index's extent: bit for bit
  /// the stored tree's root, signed zeros included (a ring through 0°, 0° with -0.0 and 0.0 in
  /// either order).
  @Test(arguments: [false, true])
  func theRootMadeFromTheExtentIsTheStoredRoot(negativeZeroFirst: Bool) {
    let zeros: [Double] = negativeZeroFirst ? [-0.0, 0.0] : [0.0, -0.0]
    let ring = [
      Coordinate(uncheckedLatitude: zeros[0], longitude: zeros[1]),
      Coordinate(uncheckedLatitude: 0.001, longitude: zeros[0]),
      Coordinate(uncheckedLatitude: 0.001, longitude: 0.002),
      Coordinate(uncheckedLatitude: zeros[1], longitude: 0.002),
      Coordinate(uncheckedLatitude: zeros[0], longitude: zeros[1]),
    ]
    let index = EdgeIndex(chains: [ring])
    #expect(!index.tree.storesNodes)
    let stored = ChunkTree(edges: index.edges, stride: index.edgeStride, storing: true)
    let root = index.withTreeRoot { Self.bits($0) }
    let storedRoot = Array(Self.bits(stored.storedNodes).suffix(ChunkTree.stride))
    #expect(root == storedRoot)
    #expect(root?.count == ChunkTree.stride)
    // A tree that stores its nodes lends its own root.
    let big = EdgeIndex(chains: [(0...40).map { Coordinate(uncheckedLatitude: Double($0 % 3) * 0.001, longitude: Double($0) * 0.001) } + [Coordinate(uncheckedLatitude: 0, longitude: 0)]])
    #expect(big.tree.storesNodes)
    #expect(big.withTreeRoot { Self.bits($0) } == Array(Self.bits(big.tree.storedNodes).suffix(ChunkTree.stride)))
    #expect(EdgeIndex(chains: []).withTreeRoot { _ in 1 } == nil)
  }
}
