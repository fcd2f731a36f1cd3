import FenceTestSupport
import Testing

@testable import FenceGeometry

/// A multipolygon's part is searched through its own chunk tree while its edges are read from
/// the joined index's plain copy (`EdgeIndex.withPartEdges`): the same edges as the part's own
/// values give, and a part packed as decimals is never unpacked by the cell queries.
@Suite struct PartEdgesFromJoinedTests {
  /// Each of Manhattan's 33 parts over the boxes of `StripeBoxContactTests`: the tree search
  /// reading the joined copy finds exactly the edges, in the same order and with the same
  /// values, that it finds reading the part's own.
  @Test func aPartReadFromTheJoinedCopyFindsItsOwnEdges() throws {
    let (shape, _, boxes) = try StripeBoxContactTests().manhattanAndBoxes()
    let joined = try #require(shape.stripes)
    let margin = MultiPolygon.cellMargin
    #expect(shape.partCount == 33)
    var found = 0
    var mismatches = 0
    for k in 0..<shape.partCount {
      let part = shape.partIndex(k)
      for box in boxes {
        var own: [Int] = []
        _ = part.forEachEdge(
          meetingBox: box.west, box.south, box.east, box.north, margin: margin
        ) { own.append($0); return false }
        var fromJoined: [Int] = []
        joined.withPartEdges(k) { index, values, stride in
          #expect(stride == 4 && index === part)
          _ = index.forEachEdge(
            meetingBox: box.west, box.south, box.east, box.north, margin: margin,
            values: values, stride: stride
          ) { i in
            let value = (values[4 * i], values[4 * i + 1], values[4 * i + 2], values[4 * i + 3])
            if value != part.edge(i) { mismatches += 1 }
            fromJoined.append(i)
            return false
          }
        }
        if own != fromJoined { mismatches += 1 }
        found += own.count
      }
    }
    #expect(mismatches == 0)
    #expect(found == 22_995)
  }

  /// The cell relation and the cell containment tests of a freshly read Manhattan, over the
  /// same boxes, give the relations the unretained test is checked against and leave every
  /// packed part packed: their trees' searches read the joined copy.
  @Test func cellQueriesLeavePackedPartsPacked() throws {
    let (shape, _, boxes) = try StripeBoxContactTests().manhattanAndBoxes()
    let packed = shape.polygons.filter { $0.index.isPacked }
    #expect(packed.count == 7)
    var relations: [CellRelation: Int] = [:]
    var tests = 0
    var edges: [CellEdge] = []
    var colours: [UInt8] = []
    for box in boxes {
      relations[shape.relation(toCell: box), default: 0] += 1
      if shape.cellContainmentTest(cell: box, edgeLimit: 64, edges: &edges, colours: &colours)
        != nil
      {
        tests += 1
      }
    }
    #expect(relations == [.inside: 126, .outside: 884, .mixed: 318])
    #expect(tests == 1_226)
    #expect(edges.count == 2_514)
    #expect(packed.allSatisfy { !$0.index.hasUnpackedEdges })
  }

  /// The cell tests made through the unretained stripe index (the engine's way, since the
  /// joined index holds its parts) are the multipolygon's: the same reference points, parities
  /// and edges, for every box, for Manhattan's 33 parts and for its largest part alone.
  @Test func unretainedCellTestsAreTheMultipolygons() throws {
    let (shape, largest, boxes) = try StripeBoxContactTests().manhattanAndBoxes()
    for (name, multipolygon, expectedTests) in [
      ("Manhattan", shape, 1_226), ("largest part", MultiPolygon(largest), 1_244),
    ] {
      let unretained = try #require(multipolygon.unretainedContainmentTest)
      var tests = 0
      var different = 0
      var edges: ([CellEdge], [CellEdge]) = ([], [])
      var colours: ([UInt8], [UInt8]) = ([], [])
      for box in boxes {
        let a = multipolygon.cellContainmentTest(
          cell: box, edgeLimit: 64, edges: &edges.0, colours: &colours.0)
        let b = unretained.cellContainmentTest(
          cell: box, edgeLimit: 64, edges: &edges.1, colours: &colours.1)
        if let a, let b {
          tests += 1
          if a.qx != b.qx || a.qy != b.qy || a.referenceParities != b.referenceParities
            || a.edgeStart != b.edgeStart || a.edgeCount != b.edgeCount
          {
            different += 1
          }
        } else if (a == nil) != (b == nil) {
          different += 1
        }
      }
      let sameEdges = zip(edges.0, edges.1).allSatisfy {
        $0.ax == $1.ax && $0.ay == $1.ay && $0.bx == $1.bx && $0.by == $1.by
      }
      #expect(different == 0, "\(name)")
      #expect(tests == expectedTests, "\(name)")
      #expect(edges.0.count == edges.1.count && sameEdges && colours.0 == colours.1, "\(name)")
    }
  }
}
