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

  /// Manhattan, and boxes over it: of three sizes at random, and small ones on its largest
  /// part's vertices.
  func manhattanAndBoxes() throws -> (shape: MultiPolygon, largest: Polygon, boxes: [BoundingBox]) {
    let manhattan = try #require(
      try PolygonFixtures.read(
        path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name"
      ).first)
    let shape = manhattan.shape
    let largest = try #require(shape.polygons.max { $0.index.edgeCount < $1.index.edgeCount })
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
    return (shape, largest, boxes)
  }

  /// Manhattan's joined index (33 parts, one stripe table, no tree) and its largest part's
  /// own, over boxes of three sizes at random and small boxes on vertices: the stripes answer the small boxes,
  /// leave the large ones to the tree, and never disagree with it or with the edges.
  @Test func stripesAnswerAsTheTreeAndTheEdgesDo() throws {
    let (shape, largest, boxes) = try manhattanAndBoxes()
    let joined = try #require(shape.stripes)
    let margin = MultiPolygon.cellMargin
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

  /// The cell relation read through the unretained containment test (the engine's way, no
  /// reference counting) is the multipolygon's, for one part (its index has a tree) and for the
  /// 33 parts joined (the joined index walks its parts' trees): never nil.
  @Test func theUnretainedRelationIsTheMultipolygons() throws {
    let (shape, largest, boxes) = try manhattanAndBoxes()
    let one = MultiPolygon(largest)
    let cases: [(String, MultiPolygon, Int, [CellRelation: Int])] = [
      ("Manhattan", shape, 0, [.inside: 126, .outside: 884, .mixed: 318]),
      ("largest part", one, 0, [.inside: 124, .outside: 925, .mixed: 279]),
    ]
    for (name, multipolygon, expectedNil, expectedCounts) in cases {
      let test = try #require(multipolygon.unretainedContainmentTest)
      var unanswered = 0
      var disagreements = 0
      var counts: [CellRelation: Int] = [:]
      for box in boxes {
        let relation = multipolygon.relation(toCell: box)
        counts[relation, default: 0] += 1
        guard let unretained = test.relation(toCell: box) else {
          unanswered += 1
          continue
        }
        if unretained != relation { disagreements += 1 }
      }
      #expect(disagreements == 0, "\(name)")
      #expect(unanswered == expectedNil, "\(name)")
      // Every relation occurs: a test that always said one thing would fail here.
      #expect(counts == expectedCounts, "\(name)")
    }
  }

  /// The stripes pass on every edge meeting a box once, the same edges as the chunk tree
  /// (the largest part) or as every edge tested in turn (the joined index, which has no tree):
  /// the cell containment tests gather their edges this way.
  @Test func stripesPassOnEachMeetingEdgeOnce() throws {
    let (shape, largest, boxes) = try manhattanAndBoxes()
    let joined = try #require(shape.stripes)
    let margin = MultiPolygon.cellMargin
    for (name, index, hasTree) in [("joined", joined, false), ("largest part", largest.index, true)] {
      var gathered = 0
      var edgesPassed = 0
      var wrong = 0
      for box in boxes {
        var passed: [Int] = []
        let stopped = index.forEachStripeEdge(
          meetingBox: box.west, box.south, box.east, box.north, margin: margin
        ) { k in
          passed.append(k)
          return false
        }
        guard let stopped else { continue }
        gathered += 1
        edgesPassed += passed.count
        var expected: [Int] = []
        if hasTree {
          _ = index.forEachEdge(
            meetingBox: box.west, box.south, box.east, box.north, margin: margin
          ) { k in
            expected.append(k)
            return false
          }
        } else {
          expected = (0..<index.edgeCount).filter { k in
            let (ax, ay, bx, by) = index.edge(k)
            return EdgeIndex.edge(
              ax: ax, ay: ay, bx: bx, by: by, meetsBox: box.west - margin, box.south - margin,
              box.east + margin, box.north + margin)
          }
        }
        if stopped || passed.sorted() != expected.sorted() { wrong += 1 }
      }
      #expect(wrong == 0, "\(name)")
      // Boxes the stripes answered, and the edges they passed on, each once.
      #expect(gathered == (name == "joined" ? 281 : 551), "\(name)")
      #expect(edgesPassed == (name == "joined" ? 273 : 284), "\(name)")
    }
  }
}
