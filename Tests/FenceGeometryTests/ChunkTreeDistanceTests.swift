import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// The chunk-tree nearest-edge search against measuring every edge
/// (`distanceToBoundaryByScanning`), and the multipolygon stripe index against testing each
/// part by ray casting: seeded synthetic outlines of 10 to 100,000 vertices at several latitudes
/// and across the antimeridian, the Manhattan fixture, and the NYC boroughs when the shared data
/// is present.
@Suite struct ChunkTreeDistanceTests {
  /// Where the synthetic outlines are put: (longitude, latitude) of the centre.
  static let centres: [(Double, Double)] = [
    (2.35, 48.85), (-73.9, 40.7), (151.2, -33.9), (179.99, -16.5), (24.9, 60.2), (-20, 74.5),
  ]

  /// A star-shaped outline whose radius follows a random walk of `wiggle / sqrt(count)` steps
  /// (0.2 gives a coastline-like outline at any count; 0.002 a nearly round one).
  static func star(
    count: Int, centre: (Double, Double), radius: Double, wiggle: Double,
    generator: inout SeededGenerator
  ) throws -> Polygon {
    var points: [(Double, Double)] = []
    var r = 1.0
    let step = wiggle / Double(count).squareRoot()
    for i in 0..<count {
      let angle = Double(i) / Double(count) * 2 * .pi
      r = min(1.3, max(0.5, r + Double.random(in: -step...step, using: &generator)))
      var lon = centre.0 + radius * r * cos(angle) / cos(centre.1 * .pi / 180)
      if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
      points.append((lon, centre.1 + radius * r * sin(angle)))
    }
    return try polygon(points)
  }

  /// Positions near the outline's vertices (within about 100 m), anywhere in its box, and up
  /// to ten radii away.
  static func probes(
    _ shape: Polygon, centre: (Double, Double), radius: Double, count: Int,
    generator: inout SeededGenerator
  ) -> [Position] {
    let vertices = shape.exterior
    return (0..<count).map { k in
      var lon: Double
      let lat: Double
      switch k % 3 {
      case 0:
        let v = vertices[Int.random(in: 0..<vertices.count, using: &generator)]
        lon = v.longitude + Double.random(in: -0.001...0.001, using: &generator)
        lat = v.latitude + Double.random(in: -0.001...0.001, using: &generator)
      case 1:
        lon = centre.0 + Double.random(in: -1.3...1.3, using: &generator) * radius
        lat = centre.1 + Double.random(in: -1.3...1.3, using: &generator) * radius
      default:
        lon = centre.0 + Double.random(in: -10...10, using: &generator) * radius
        lat = centre.1 + Double.random(in: -10...10, using: &generator) * radius
      }
      if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
      return Position(lonLat(lon, min(89.9, max(-89.9, lat))))
    }
  }

  @Test(arguments: [10, 100, 1_000, 10_000, 100_000])
  func chunkTreeDistanceMatchesScanning(vertexCount: Int) throws {
    var generator = SeededGenerator(seed: 7 + UInt64(vertexCount))
    let probeCount = vertexCount >= 100_000 ? 6 : (vertexCount >= 10_000 ? 18 : 60)
    var compared = 0
    for (c, centre) in Self.centres.enumerated() {
      // Every other centre gets a nearly round outline: the hardest case for pruning.
      let wiggle = c % 2 == 0 ? 0.2 : 0.002
      let radius = 0.05
      let shape = try Self.star(
        count: vertexCount, centre: centre, radius: radius, wiggle: wiggle,
        generator: &generator)
      let count = vertexCount >= 100_000 && c % 3 != 0 ? 0 : probeCount
      for p in Self.probes(
        shape, centre: centre, radius: radius, count: count, generator: &generator)
      {
        let indexed = shape.distanceToBoundary(from: p)
        let scanned = shape.distanceToBoundaryByScanning(from: p)
        #expect(
          abs(indexed - scanned) <= 1e-6, "\(vertexCount) vertices at \(centre): \(p.coordinate)")
        compared += 1
      }
    }
    #expect(compared >= (vertexCount >= 100_000 ? 12 : 6 * probeCount))
  }

  /// Twelve wiggly stars in a 4 x 3 grid around New York, of `firstCount` vertices and
  /// `countStep` more each: the parts of the multipolygon tests.
  static func starGrid(
    firstCount: Int, countStep: Int, generator: inout SeededGenerator
  ) throws -> [Polygon] {
    var parts: [Polygon] = []
    for k in 0..<12 {
      let centre = (-74.0 + 0.07 * Double(k % 4), 40.6 + 0.07 * Double(k / 4))
      parts.append(
        try star(
          count: firstCount + countStep * k, centre: centre, radius: 0.02, wiggle: 0.2,
          generator: &generator))
    }
    return parts
  }

  /// A multipolygon's distance is the smallest over its parts, searched part by part with the
  /// best distance so far as the limit.
  @Test func multipolygonDistanceMatchesTheSmallestPart() throws {
    var generator = SeededGenerator(seed: 11)
    let parts = try Self.starGrid(firstCount: 200, countStep: 100, generator: &generator)
    let shape = try MultiPolygon(parts)
    for _ in 0..<120 {
      let p = Position(
        lonLat(
          Double.random(in: -74.2 ... -73.6, using: &generator),
          Double.random(in: 40.4...41.0, using: &generator)))
      let scanned = parts.map { $0.distanceToBoundaryByScanning(from: p) }.min() ?? .infinity
      #expect(abs(shape.distanceToBoundary(from: p) - scanned) <= 1e-6, "\(p.coordinate)")
    }
  }

  @Test func manhattanMatchesTheReferences() throws {
    let manhattan = try PolygonFixtures.read(
      path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name")
    #expect(manhattan.count == 1)
    try Self.compareWithReferences(
      manhattan[0].shape, seed: 21, containmentProbes: 3_000, distanceProbes: 150)
  }

  @Test(
    .enabled(
      if: FileManager.default.fileExists(atPath: sharedDataPath("fences/nyc-boroughs.geojson"))))
  func boroughsMatchTheReferences() throws {
    let boroughs = try PolygonFixtures.read(
      path: sharedDataPath("fences/nyc-boroughs.geojson"), nameProperty: "name")
    #expect(boroughs.count == 5)
    for (k, borough) in boroughs.enumerated() {
      try Self.compareWithReferences(
        borough.shape, seed: 31 + UInt64(k), containmentProbes: 800, distanceProbes: 40)
    }
  }

  /// Containment against ray casting each part, and distance against scanning each part, at
  /// random positions over the box (padded), at vertices and next to them.
  static func compareWithReferences(
    _ shape: MultiPolygon, seed: UInt64, containmentProbes: Int, distanceProbes: Int
  ) throws {
    var generator = SeededGenerator(seed: seed)
    let box = shape.boundingBox
    let vertices = shape.polygons.flatMap { $0.rings.joined() }
    let padLat = (box.north - box.south) * 0.1
    let padLon = (box.east - box.west) * 0.1
    for k in 0..<containmentProbes {
      let c: Coordinate
      if k % 4 == 0 {
        c = vertices[Int.random(in: 0..<vertices.count, using: &generator)]
      } else if k % 4 == 1 {
        let v = vertices[Int.random(in: 0..<vertices.count, using: &generator)]
        c = lonLat(
          v.longitude + Double.random(in: -1e-5...1e-5, using: &generator),
          v.latitude + Double.random(in: -1e-5...1e-5, using: &generator))
      } else {
        c = lonLat(
          Double.random(in: (box.west - padLon)...(box.east + padLon), using: &generator),
          Double.random(in: (box.south - padLat)...(box.north + padLat), using: &generator))
      }
      let indexed = shape.contains(latitude: c.latitude, longitude: c.longitude)
      let plain = shape.polygons.contains {
        $0.containsByRayCasting(latitude: c.latitude, longitude: c.longitude)
      }
      #expect(indexed == plain, "\(c)")
      if k % 4 == 0 { #expect(indexed, "a vertex is on the boundary: \(c)") }
      if k < distanceProbes {
        let p = Position(c)
        let scanned =
          shape.polygons.map { $0.distanceToBoundaryByScanning(from: p) }.min() ?? .infinity
        #expect(abs(shape.distanceToBoundary(from: p) - scanned) <= 1e-6, "\(c)")
      }
    }
  }

  /// Parts that overlap (an invalid multipolygon accepted part by part) still answer "covered
  /// by some part": where two or three squares overlap, the crossing parities would cancel if
  /// they were counted together.
  @Test func overlappingPartsCoverTheirUnion() throws {
    let a = try polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    let b = try polygon([(1, 1), (3, 1), (3, 3), (1, 3)])
    let c = try polygon([(1.5, 0.5), (2.5, 0.5), (2.5, 2.5), (1.5, 2.5)])
    let shape = try MultiPolygon([a, b, c])
    var generator = SeededGenerator(seed: 41)
    for _ in 0..<2_000 {
      let lon = Double.random(in: -0.5...3.5, using: &generator)
      let lat = Double.random(in: -0.5...3.5, using: &generator)
      let expected = [a, b, c].contains { $0.containsByRayCasting(latitude: lat, longitude: lon) }
      #expect(shape.contains(latitude: lat, longitude: lon) == expected, "(\(lat), \(lon))")
    }
    #expect(shape.contains(latitude: 1.75, longitude: 1.75))  // inside all three
    #expect(shape.contains(latitude: 1.5, longitude: 1.25))  // inside a and b
  }

  /// More than 64 mutually overlapping parts cannot be coloured: the parts are tested one by
  /// one, with the same answers.
  @Test func manyOverlappingPartsFallBackToPartByPart() throws {
    var parts: [Polygon] = []
    for k in 0..<70 {
      let shift = Double(k) * 0.01
      parts.append(try polygon([(shift, 0), (1 + shift, 0), (1 + shift, 1), (shift, 1)]))
    }
    let shape = try MultiPolygon(parts)
    var generator = SeededGenerator(seed: 43)
    for _ in 0..<500 {
      let lon = Double.random(in: -0.2...2, using: &generator)
      let lat = Double.random(in: -0.2...1.2, using: &generator)
      let expected = parts.contains { $0.containsByRayCasting(latitude: lat, longitude: lon) }
      #expect(shape.contains(latitude: lat, longitude: lon) == expected, "(\(lat), \(lon))")
    }
  }
}
