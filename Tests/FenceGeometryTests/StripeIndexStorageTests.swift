import FenceTestSupport
import Testing

@testable import FenceGeometry

/// An edge index's stripes file edge numbers (4 bytes) per stripe, not copies of the edges (32
/// bytes): large polygons held most of their memory in those copies. A polygon's stripes are
/// its edge index's own (one object); a multipolygon's join its parts' edges.
@Suite struct StripeIndexStorageTests {
  @Test func largePolygonsFileEdgeNumbers() throws {
    var generator = SeededGenerator(seed: 5)
    let star = try starPolygon(
      count: 1_000, longitude: -74, latitude: 40.7, radius: 0.5, jagged: true,
      generator: &generator)
    let stripes = star.index
    let edgeCount = star.index.edgeCount
    #expect(edgeCount == 1_000)
    // The edges once (each vertex once), the numbers per stripe.
    #expect(stripes.edgeStride == 2)
    #expect(stripes.edges.count == 2 * (edgeCount + 1))
    #expect(MultiPolygon(star).stripes === star.index)
    #expect(stripes.stripeCount > 1)
    #expect(stripes.edgeNumbers.count == Int(stripes.offsets[stripes.stripeCount]))
    #expect(stripes.edgeNumbers.count >= edgeCount)
    // Each edge appears in the stripes of its latitude range, in edge order within a stripe.
    for s in 0..<stripes.stripeCount {
      let numbers = stripes.edgeNumbers[Int(stripes.offsets[s])..<Int(stripes.offsets[s + 1])]
      #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 })
    }
  }

  /// One stripe over one part needs no numbers and no offsets: entry k is edge k.
  @Test func smallPolygonsNeedNoNumbers() throws {
    var generator = SeededGenerator(seed: 6)
    let star = try starPolygon(
      count: 16, longitude: -74, latitude: 40.7, radius: 0.01, jagged: false,
      generator: &generator)
    #expect(star.index.stripeCount == 1)
    #expect(star.index.edgeNumbers.isEmpty)
    #expect(star.index.offsets.isEmpty)
    // Every edge is read: the centre is covered, points beyond each vertex are not.
    #expect(star.contains(latitude: 40.7, longitude: -74))
    for coordinate in star.exterior.dropLast() {
      let outward = (coordinate.latitude - 40.7, coordinate.longitude + 74)
      #expect(
        !star.contains(
          latitude: 40.7 + 1.5 * outward.0, longitude: -74 + 1.5 * outward.1))
    }
  }

  /// Several parts: their edges joined, part after part, each with its part's colour.
  @Test func multipolygonsJoinTheirPartsEdges() throws {
    var generator = SeededGenerator(seed: 7)
    let west = try starPolygon(
      count: 100, longitude: -74.5, latitude: 40.7, radius: 0.2, jagged: false,
      generator: &generator)
    let east = try starPolygon(
      count: 200, longitude: -73.5, latitude: 40.7, radius: 0.2, jagged: false,
      generator: &generator)
    let both = try MultiPolygon([west, east])
    let stripes = try #require(both.stripes)
    // Joined as four values per edge, whatever the parts' strides.
    #expect(stripes.edgeStride == 4)
    #expect(stripes.edges.count == 4 * 300)
    let partEdges = (0..<100).flatMap { k -> [Double] in
      let (x0, y0, x1, y1) = west.index.edge(k)
      return [x0, y0, x1, y1]
    } + (0..<200).flatMap { k -> [Double] in
      let (x0, y0, x1, y1) = east.index.edge(k)
      return [x0, y0, x1, y1]
    }
    #expect(Array(stripes.edges) == partEdges)
    #expect(stripes.colours.count == 300)
    // Distances search the parts' own trees: the joined index has none.
    #expect(stripes.tree.levelCount == 0)
    #expect(both.contains(latitude: 40.7, longitude: -74.5))
    #expect(both.contains(latitude: 40.7, longitude: -73.5))
    #expect(!both.contains(latitude: 40.7, longitude: -74.0))
  }
}
