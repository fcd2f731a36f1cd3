import Testing

@testable import FenceGeometry

/// The chunk tree keeps no table of where its levels start: they follow from its chunk count.
/// Checked against the layout itself: each level's nodes box exactly its children (or, at
/// level 0, its chunk's edges), the last level is one root, and the nodes fill the array.
@Suite struct ChunkTreeLayoutTests {
  /// A zigzag of `count` edges, each edge's ends distinct.
  static func edges(_ count: Int) -> ContiguousArray<Double> {
    var edges = ContiguousArray<Double>()
    for i in 0..<count {
      let x0 = Double(i) * 0.001
      let y0 = Double(i % 7) * 0.002
      let x1 = Double(i + 1) * 0.001
      let y1 = Double((i + 1) % 7) * 0.002
      edges.append(contentsOf: [x0, y0, x1, y1])
    }
    return edges
  }

  /// `minX, minY, maxX, maxY` of node `n`.
  static func box(_ tree: ChunkTree, _ n: Int) -> [Double] {
    Array(tree.nodes[(ChunkTree.stride * n)..<(ChunkTree.stride * n + 4)])
  }

  @Test(arguments: [1, 7, 8, 9, 16, 64, 65, 512, 513, 4_097])
  func levelStartsFollowFromTheChunkCount(edgeCount: Int) {
    let edges = Self.edges(edgeCount)
    let tree = ChunkTree(edges: edges)
    let chunks = (edgeCount + 7) / 8
    #expect(Int(tree.chunkCount) == chunks)
    let starts = tree.withLevelStarts { Array($0) }
    #expect(starts.count == tree.levelCount + 1)
    #expect(starts.first == 0)
    #expect(starts[1] == chunks)
    #expect(starts.last == tree.nodes.count / ChunkTree.stride)
    #expect(starts.last == ChunkTree.nodeCount(chunks: chunks))
    #expect(starts[starts.count - 1] - starts[starts.count - 2] == 1, "one root")
    // Level 0: each chunk's box is its edges' box.
    for chunk in 0..<chunks {
      let range = (8 * chunk)..<min(edgeCount, 8 * chunk + 8)
      let xs = range.flatMap { [edges[4 * $0], edges[4 * $0 + 2]] }
      let ys = range.flatMap { [edges[4 * $0 + 1], edges[4 * $0 + 3]] }
      #expect(Self.box(tree, chunk) == [xs.min()!, ys.min()!, xs.max()!, ys.max()!])
    }
    // Higher levels: node k of a level boxes nodes 8k ..< 8k + 8 of the level below.
    for level in 1..<starts.count - 1 {
      let below = starts[level - 1]..<starts[level]
      for k in 0..<(starts[level + 1] - starts[level]) {
        let children = (below.lowerBound + 8 * k)..<min(below.upperBound, below.lowerBound + 8 * k + 8)
        let boxes = children.map { Self.box(tree, $0) }
        #expect(
          Self.box(tree, starts[level] + k) == [
            boxes.map { $0[0] }.min()!, boxes.map { $0[1] }.min()!, boxes.map { $0[2] }.max()!,
            boxes.map { $0[3] }.max()!,
          ])
      }
    }
  }

  @Test func noEdgesNoLevels() {
    let tree = ChunkTree(edges: [])
    #expect(tree.levelCount == 0)
    #expect(tree.withLevelStarts { $0.count } == 0)
    #expect(tree.nodes.isEmpty)
  }
}
