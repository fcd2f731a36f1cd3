import FenceTestSupport
import Testing

@testable import FenceGeometry

/// `EdgeIndex.stripesMeetBox`, the cell relation's short way through a few latitude stripes,
/// gives the chunk tree's answer (`meetsBox`), and both give the answer of every edge tested
/// in turn.
@Suite struct StripeBoxContactTests {
  /// Whether any of the index's edges meets the box widened by `margin`, edge by edge.
  func anyEdgeMeets(_ index: EdgeIndex, _ box: BoundingBox, margin: Double) -> Bool {
    index.withEdges { e in
      (0..<index.edgeCount).contains { k in
        let i = index.edgeStride * k
        return EdgeIndex.edge(
          ax: e[i], ay: e[i + 1], bx: e[i + 2], by: e[i + 3],
          meetsBox: box.west - margin, box.south - margin, box.east + margin, box.north + margin)
      }
    }
  }

  /// Manhattan's joined index (33 parts, one stripe table, no tree) and its largest part's
  /// own, over boxes of three sizes at random and small boxes on vertices: the stripes answer the small boxes,
  /// leave the large ones to the tree, and never disagree with it or with the edges.
  @Test func stripesAnswerAsTheTreeAndTheEdgesDo() throws {
    let manhattan = try #require(
      try PolygonFixtures.read(
        path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name"
      ).first)
    let shape = manhattan.shape
    let joined = try #require(shape.stripes)
    let largest = try #require(shape.polygons.max { $0.index.edgeCount < $1.index.edgeCount })
    let margin = MultiPolygon.cellMargin
    var generator = SeededGenerator(seed: 29)
    var boxes: [BoundingBox] = []
    let extent = shape.boundingBox
    for size in [1.0 / 1024, 1.0 / 256, 1.0 / 64] {
      for _ in 0..<400 {
        let south = generator.double(in: (extent.south - 0.01)...(extent.north + 0.01))
        let west = generator.double(in: (extent.west - 0.01)...(extent.east + 0.01))
        boxes.append(BoundingBox(south: south, west: west, north: south + size, east: west + size))
      }
    }
    for vertex in largest.rings[0].enumerated() where vertex.offset % 40 == 0 {
      let v = vertex.element
      let half = 1.0 / 65_536
      boxes.append(
        BoundingBox(
          south: v.latitude - half, west: v.longitude - half, north: v.latitude + half,
          east: v.longitude + half))
    }
    // The joined index keeps no tree: the cell relation asks the parts' trees instead.
    let partIndexes = shape.polygons.map(\.index)
    let cases: [(String, EdgeIndex, [EdgeIndex])] = [
      ("joined", joined, partIndexes), ("largest part", largest.index, [largest.index]),
    ]
    for (name, index, trees) in cases {
      var byStripes = [true: 0, false: 0]
      var byTree = 0
      var disagreements = 0
      for box in boxes {
        let expected = anyEdgeMeets(index, box, margin: margin)
        let tree = trees.contains {
          $0.meetsBox(
            minX: box.west, minY: box.south, maxX: box.east, maxY: box.north, margin: margin)
        }
        if tree != expected { disagreements += 1 }
        if let stripes = index.stripesMeetBox(
          minX: box.west, minY: box.south, maxX: box.east, maxY: box.north, margin: margin)
        {
          if stripes != expected { disagreements += 1 }
          byStripes[stripes, default: 0] += 1
        } else {
          byTree += 1
        }
      }
      #expect(disagreements == 0, "\(name)")
      // Each way answers some boxes, and the stripes say both yes and no: a scan that always
      // gave up, or always said one thing, would fail here.
      let expected = name == "joined" ? (111, 170, 1_047) : (118, 433, 777)
      #expect(byStripes[true] == expected.0, "\(name)")
      #expect(byStripes[false] == expected.1, "\(name)")
      #expect(byTree == expected.2, "\(name)")
      #expect(byStripes[true]! + byStripes[false]! + byTree == boxes.count)
    }
  }
}
