import FenceGeometry
import FenceTestSupport
import Testing

/// The capped boundary distance (`distanceToBoundary(from:within:)`) against the uncapped one:
/// exactly the same value below the cap, exactly the cap at or above it, for polygons of 12 to
/// 20,000 vertices, multipolygons (parts searched in any order) and circles.
@Suite struct CappedDistanceTests {
  /// Caps from none at all to the whole Earth, including the engine's safe-radius limits.
  static let caps: [Double] = [0, 0.5, 3, 40, 250, 1_000, 2_000, 30_000, .infinity]

  /// The capped value is the uncapped one when that is below the cap, else the cap: compared
  /// with `==`, since the capped search must find the very edge the uncapped one finds.
  static func expectCapped(
    _ capped: (Double) -> Double, uncapped: Double, _ comment: String
  ) -> (below: Int, above: Int) {
    var counts = (below: 0, above: 0)
    for cap in caps {
      let value = capped(cap)
      if uncapped < cap {
        #expect(value == uncapped, "cap \(cap): \(comment)")
        counts.below += 1
      } else {
        #expect(value == cap, "cap \(cap), uncapped \(uncapped): \(comment)")
        counts.above += 1
      }
    }
    return counts
  }

  @Test(arguments: [12, 500, 20_000])
  func polygonCappedDistanceIsTheUncappedOneCapped(vertexCount: Int) throws {
    var generator = SeededGenerator(seed: 31 + UInt64(vertexCount))
    var counts = (below: 0, above: 0)
    for (c, centre) in ChunkTreeDistanceTests.centres.enumerated() {
      let radius = 0.02
      let shape = try ChunkTreeDistanceTests.star(
        count: vertexCount, centre: centre, radius: radius, wiggle: c % 2 == 0 ? 0.2 : 0.002,
        generator: &generator)
      // Near the vertices (within about 100 m, below the small caps), anywhere in the box, and
      // kilometres away.
      for p in ChunkTreeDistanceTests.probes(
        shape, centre: centre, radius: radius, count: 30, generator: &generator)
      {
        let uncapped = shape.distanceToBoundary(from: p)
        let area = Area.polygon(MultiPolygon(shape))
        let polygonCounts = Self.expectCapped(
          { shape.distanceToBoundary(from: p, within: $0) }, uncapped: uncapped,
          "\(vertexCount) vertices at \(p.coordinate)")
        _ = Self.expectCapped(
          { area.distanceToBoundary(from: p, within: $0) }, uncapped: uncapped,
          "area of \(vertexCount) vertices at \(p.coordinate)")
        counts.below += polygonCounts.below
        counts.above += polygonCounts.above
      }
    }
    // Both sides of the cap are exercised, at every size.
    #expect(counts.below > 300)
    #expect(counts.above > 300)
  }

  @Test func multipolygonCappedDistanceIsTheUncappedOneCapped() throws {
    var generator = SeededGenerator(seed: 37)
    let parts = try ChunkTreeDistanceTests.starGrid(firstCount: 100, countStep: 50, generator: &generator)
    let shape = try MultiPolygon(parts)
    var counts = (below: 0, above: 0)
    for k in 0..<150 {
      // Every third probe near a vertex of some part, so that the small caps find edges.
      var longitude = Double.random(in: -74.2 ... -73.6, using: &generator)
      var latitude = Double.random(in: 40.4...41.0, using: &generator)
      if k % 3 == 0 {
        let part = parts[k / 3 % parts.count].exterior
        let vertex = part[Int.random(in: 0..<part.count, using: &generator)]
        longitude = vertex.longitude + Double.random(in: -0.0005...0.0005, using: &generator)
        latitude = vertex.latitude + Double.random(in: -0.0005...0.0005, using: &generator)
      }
      let p = Position(lonLat(longitude, latitude))
      let uncapped = shape.distanceToBoundary(from: p)
      let scanned = parts.map { $0.distanceToBoundaryByScanning(from: p) }.min() ?? .infinity
      #expect(uncapped == scanned, "\(p.coordinate)")
      let partCounts = Self.expectCapped(
        { shape.distanceToBoundary(from: p, within: $0) }, uncapped: uncapped, "\(p.coordinate)")
      counts.below += partCounts.below
      counts.above += partCounts.above
    }
    #expect(counts.below > 300)
    #expect(counts.above > 300)
  }

  @Test func aPositionOnTheBoundaryIsAtZeroUnderAnyPositiveCap() throws {
    let square = try polygon([(10, 50), (10.01, 50), (10.01, 50.01), (10, 50.01)])
    let corner = Position(lonLat(10.01, 50))
    #expect(square.distanceToBoundary(from: corner, within: 250) == 0)
    #expect(square.distanceToBoundary(from: corner, within: 0.5) == 0)
    // A cap below the true distance gives the cap: so the zeros above come from the boundary.
    let offEdge = Position(lonLat(10.005, 50.0001))  // about 11 m inside the south edge
    #expect(square.distanceToBoundary(from: offEdge, within: 0.5) == 0.5)
    // Far away: the cap itself, whatever the true distance.
    let far = Position(lonLat(12, 50))
    #expect(square.distanceToBoundary(from: far, within: 250) == 250)
    #expect(MultiPolygon(square).distanceToBoundary(from: far, within: 2_000) == 2_000)
  }

  @Test func circleCappedDistanceIsTheUncappedOneCapped() throws {
    let circle = try Circle(center: lonLat(-74, 40.7), radius: 300)
    let area = Area.circle(circle)
    // From the centre the boundary is exactly the radius away.
    let centre = Position(lonLat(-74, 40.7))
    #expect(area.distanceToBoundary(from: centre, within: 1_000) == 300)
    #expect(area.distanceToBoundary(from: centre, within: 250) == 250)
    var generator = SeededGenerator(seed: 41)
    for _ in 0..<100 {
      let p = Position(
        lonLat(
          -74 + Double.random(in: -0.02...0.02, using: &generator),
          40.7 + Double.random(in: -0.02...0.02, using: &generator)))
      _ = Self.expectCapped(
        { area.distanceToBoundary(from: p, within: $0) },
        uncapped: area.distanceToBoundary(from: p), "\(p.coordinate)")
    }
  }
}
