import FenceTestSupport
import Testing

@testable import FenceGeometry

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
    // Two bytes an entry: a thousand edges fit 16-bit numbers.
    #expect(stripes.edgeNumbers.count == stripes.stripeOffset(stripes.stripeCount))
    // Two bytes an offset: the entries number under 65,536.
    #expect(stripes.offsets.count == stripes.stripeCount + 1)
    #expect(stripes.edgeNumbers.count >= edgeCount)
    expectEachEdgeInTheStripesOfItsLatitudes(stripes)
  }

  /// Up to 65,536 edges the numbers take 2 bytes, beyond 4 (two halves); either way each edge
  /// is filed in the stripes its latitudes span, and containment agrees with a plain
  /// crossing-number test over the ring.
  @Test(arguments: [(65_536, true), (65_537, false)])
  func edgeNumbersAreNarrowUpTo65536Edges(edgeCount: Int, narrow: Bool) throws {
    var generator = SeededGenerator(seed: 11)
    let star = try starPolygon(
      count: edgeCount, longitude: 10, latitude: 20, radius: 1, jagged: true,
      generator: &generator)
    let stripes = star.index
    #expect(stripes.edgeCount == edgeCount)
    let entries = stripes.stripeOffset(stripes.stripeCount)
    #expect(stripes.edgeNumbers.count == (narrow ? entries : 2 * entries))
    // Each has over 65,535 entries: offsets of 4 bytes, in two halves.
    #expect(entries > 65_535)
    #expect(stripes.offsets.count == 2 * (stripes.stripeCount + 1))
    expectEachEdgeInTheStripesOfItsLatitudes(stripes)
    let ring = star.exterior
    var unit = SeededGenerator(seed: 12)
    for _ in 0..<150 {
      let x = Double.random(in: 8.5...11.5, using: &unit)
      let y = Double.random(in: 18.5...21.5, using: &unit)
      var inside = false
      for k in 0..<(ring.count - 1) {
        let (a, b) = (ring[k], ring[k + 1])
        if (a.latitude > y) != (b.latitude > y) {
          let crossing =
            a.longitude + (y - a.latitude) / (b.latitude - a.latitude) * (b.longitude - a.longitude)
          if x < crossing { inside.toggle() }
        }
      }
      #expect(star.contains(latitude: y, longitude: x) == inside)
    }
  }

  /// Each edge appears exactly in the stripes of its latitude range, in edge order within a
  /// stripe.
  func expectEachEdgeInTheStripesOfItsLatitudes(
    _ index: EdgeIndex, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    var filed = [[Int]](repeating: [], count: index.edgeCount)
    for s in 0..<index.stripeCount {
      let numbers = (index.stripeOffset(s)..<index.stripeOffset(s + 1)).map(index.stripeEntry)
      #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, sourceLocation: sourceLocation)
      for number in numbers { filed[number].append(s) }
    }
    var misfiled = 0
    for k in 0..<index.edgeCount {
      let (_, y0, _, y1) = index.edge(k)
      let first = EdgeIndex.stripe(
        min(y0, y1), minY: index.minY, scale: index.stripeScale, count: index.stripeCount)
      let last = EdgeIndex.stripe(
        max(y0, y1), minY: index.minY, scale: index.stripeScale, count: index.stripeCount)
      if filed[k] != Array(first...last) { misfiled += 1 }
    }
    #expect(misfiled == 0, sourceLocation: sourceLocation)
  }

  /// One part's edges are all of colour 0: up to 65,536 edges share one array of zeros, more
  /// have their own.
  @Test(arguments: [(5_000, true), (65_536, true), (65_537, false)])
  func onePartSharesItsZeroColours(edgeCount: Int, shared: Bool) throws {
    let ring = (0..<edgeCount).map { k -> Coordinate in
      let angle = Double(k) / Double(edgeCount) * 2 * Double.pi
      return Coordinate(
        uncheckedLatitude: 40.7 + 0.01 * sin(angle), longitude: -74 + 0.01 * cos(angle))
    }
    let index = EdgeIndex(chains: [ring + [ring[0]]])
    #expect(index.edgeCount == edgeCount)
    #expect(index.colours.allSatisfy { $0 == 0 })
    let sameStorage = index.colours.withUnsafeBufferPointer { colours in
      EdgeIndex.zeroColours.withUnsafeBufferPointer { $0.baseAddress == colours.baseAddress }
    }
    #expect(sameStorage == shared)
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
