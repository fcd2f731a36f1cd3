import FenceGeometry
import FenceTestSupport
import Testing

struct PointCase: CustomTestStringConvertible, Sendable {
  let name: String
  let longitude: Double
  let latitude: Double
  let inside: Bool
  var testDescription: String { name }
}

@Suite struct PolygonContainmentTests {
  /// A 10° square with a 2° square hole in the middle.
  static let squareWithHole = [(0.0, 0.0), (10, 0), (10, 10), (0, 10)]
  static let hole = [(4.0, 4.0), (6, 4), (6, 6), (4, 6)]

  @Test(arguments: [
    PointCase(name: "inside the shell", longitude: 2, latitude: 2, inside: true),
    PointCase(name: "inside the hole is outside", longitude: 5, latitude: 5, inside: false),
    PointCase(name: "on a hole edge is inside", longitude: 4, latitude: 5, inside: true),
    PointCase(name: "on a hole vertex is inside", longitude: 6, latitude: 6, inside: true),
    PointCase(name: "on an exterior edge is inside", longitude: 10, latitude: 5, inside: true),
    PointCase(name: "on the bottom edge is inside", longitude: 5, latitude: 0, inside: true),
    PointCase(name: "on an exterior vertex is inside", longitude: 10, latitude: 10, inside: true),
    PointCase(name: "just east of the edge", longitude: 10.nextUp, latitude: 5, inside: false),
    PointCase(name: "just inside the hole edge", longitude: 4.nextUp, latitude: 5, inside: false),
    PointCase(name: "west of the box", longitude: -1, latitude: 5, inside: false),
    PointCase(name: "level with hole vertices", longitude: 2, latitude: 4, inside: true),
    PointCase(name: "level with hole vertices, east", longitude: 8, latitude: 6, inside: true),
  ])
  func squareWithHoleCases(_ c: PointCase) throws {
    let p = try polygon(Self.squareWithHole, holes: [Self.hole])
    #expect(p.contains(latitude: c.latitude, longitude: c.longitude) == c.inside)
    #expect(p.containsByRayCasting(latitude: c.latitude, longitude: c.longitude) == c.inside)
  }

  /// A diagonal edge y = x / 3: exactly on it is inside, the next double above it is outside.
  @Test(arguments: [
    PointCase(name: "on the diagonal edge", longitude: 1.5, latitude: 0.5, inside: true),
    PointCase(name: "one ulp above the edge", longitude: 1.5, latitude: 0.5.nextUp, inside: false),
    PointCase(name: "one ulp below the edge", longitude: 1.5, latitude: 0.5.nextDown, inside: true),
    PointCase(name: "on the diagonal's far vertex", longitude: 3, latitude: 1, inside: true),
    PointCase(name: "beyond the far vertex", longitude: 3.nextUp, latitude: 1, inside: false),
  ])
  func diagonalEdgeIsExact(_ c: PointCase) throws {
    let p = try polygon([(0, 0), (3, 0), (3, 1)])
    #expect(p.contains(latitude: c.latitude, longitude: c.longitude) == c.inside)
  }

  /// Rays through vertices and along horizontal edges, the classic crossing-number traps.
  @Test(arguments: [
    PointCase(name: "ray through two vertices, inside", longitude: 1, latitude: 1, inside: true),
    PointCase(name: "ray along a horizontal edge, outside", longitude: 4, latitude: 1, inside: false),
    PointCase(name: "on the horizontal edge", longitude: 2.5, latitude: 1, inside: true),
    PointCase(name: "under the step, outside", longitude: 2.5, latitude: 0.5, inside: false),
    PointCase(name: "level with the top, inside", longitude: 1, latitude: 2, inside: true),
    PointCase(name: "level with the bottom, west", longitude: -1, latitude: 0, inside: false),
  ])
  func stepPolygonCases(_ c: PointCase) throws {
    let p = try polygon([(0, 0), (2, 0), (2, 1), (3, 1), (3, 2), (0, 2)])
    #expect(p.contains(latitude: c.latitude, longitude: c.longitude) == c.inside)
  }

  @Test func diamondVerticesOnTheRay() throws {
    let diamond = try polygon([(0, -1), (1, 0), (0, 1), (-1, 0)])
    let expected: [(Double, Bool)] = [(-2, false), (-1, true), (-0.5, true), (0.5, true), (1, true),
      (1.5, false)]
    for (x, inside) in expected {
      #expect(diamond.contains(latitude: 0, longitude: x) == inside, "x = \(x)")
    }
  }

  @Test func eitherWindingGivesTheSameAnswer() throws {
    let ccw = try polygon([(0, 0), (4, 0), (4, 4), (0, 4)])
    let cw = try polygon([(0, 0), (0, 4), (4, 4), (4, 0)])
    for (x, y) in [(2.0, 2.0), (4, 2), (5, 2), (0, 0), (-0.1, 3)] {
      #expect(ccw.contains(latitude: y, longitude: x) == cw.contains(latitude: y, longitude: x))
    }
  }

  @Test func multipolygonCoversEachPart() throws {
    let parts = try MultiPolygon([
      polygon([(0, 0), (1, 0), (1, 1), (0, 1)]),
      polygon([(5, 5), (6, 5), (6, 6), (5, 6)]),
    ])
    #expect(parts.contains(latitude: 0.5, longitude: 0.5))
    #expect(parts.contains(latitude: 5.5, longitude: 5.5))
    #expect(parts.contains(latitude: 6, longitude: 6))
    #expect(!parts.contains(latitude: 3, longitude: 3))
    #expect(parts.boundingBox == BoundingBox(south: 0, west: 0, north: 6, east: 6))
  }

  /// A box from longitude 170 to -170 drawn with an edge across the antimeridian.
  @Test func antimeridianPolygonIsUnwrapped() throws {
    let p = try polygon([(170, -10), (-170, -10), (-170, 10), (170, 10)])
    #expect(p.crossesAntimeridian)
    #expect(p.boundingBox == BoundingBox(south: -10, west: 170, north: 10, east: -170))
    let expected: [(Double, Bool)] = [(180, true), (-180, true), (175, true), (-175, true),
      (170, true), (-170, true), (0, false), (165, false), (-165, false), (10, false)]
    for (x, inside) in expected {
      #expect(p.contains(latitude: 0, longitude: x) == inside, "lon \(x)")
      #expect(p.containsByRayCasting(latitude: 0, longitude: x) == inside, "lon \(x)")
    }
  }

  /// An Antarctica-like polygon: a coast from -180 to 180, then down the map's edge to the
  /// pole, along the pole and back up. It is an ordinary planar polygon, as in GEOS.
  @Test func polarPolygonIsPlanar() throws {
    let p = try polygon([
      (-180, -60), (-90, -70), (0, -65), (90, -70), (180, -60), (180, -90), (-180, -90),
    ])
    #expect(!p.crossesAntimeridian)
    #expect(p.boundingBox == BoundingBox(south: -90, west: -180, north: -60, east: 180))
    let expected: [(Double, Double, Bool)] = [
      (0, -89, true), (0, -90, true), (123, -90, true), (0, -66, true), (0, -64, false),
      (-45, -50, false), (180, -75, true), (-180, -75, true), (179.9, -60.001, false), (179.9, -60.02, true),
      (90, -70, true), (90, -69.999, false),
    ]
    for (x, y, inside) in expected {
      #expect(p.contains(latitude: y, longitude: x) == inside, "(\(x), \(y))")
    }
  }

  /// A polygon touching the north pole with its top edge running along latitude 90.
  @Test func northPolarCap() throws {
    let cap = try polygon([(-180, 80), (180, 80), (180, 90), (-180, 90)])
    #expect(cap.contains(latitude: 85, longitude: 0))
    #expect(cap.contains(latitude: 90, longitude: 45))
    #expect(cap.contains(latitude: 80, longitude: -120))
    #expect(!cap.contains(latitude: 79.99, longitude: 0))
  }

  /// The edge-indexed test against plain ray casting over every edge, on star polygons of 10 to
  /// 100,000 vertices (smooth and jagged), at seeded random points, vertices and edge points.
  /// Up to 31 edges, one stripe shares the edge index's buffer and a shared colour buffer.
  @Test(arguments: [10, 16, 31, 32, 100, 1_000, 10_000, 100_000])
  func indexedTestMatchesRayCasting(vertexCount: Int) throws {
    var generator = SeededGenerator(seed: UInt64(vertexCount))
    for jagged in [false, true] {
      let star = try starPolygon(
        count: vertexCount, longitude: -74, latitude: 40.7, radius: 0.5, jagged: jagged,
        generator: &generator)
      let box = star.boundingBox
      let samples = vertexCount >= 100_000 ? 100 : 600
      var insideCount = 0
      for k in 0..<samples {
        let lon: Double
        let lat: Double
        switch k % 4 {
        case 0:  // a vertex
          let v = star.exterior[Int.random(in: 0..<(star.exterior.count - 1), using: &generator)]
          (lon, lat) = (v.longitude, v.latitude)
        case 1:  // a point level with a vertex (on the ray's line)
          let v = star.exterior[Int.random(in: 0..<(star.exterior.count - 1), using: &generator)]
          (lon, lat) = (Double.random(in: box.west...box.east, using: &generator), v.latitude)
        default:
          lon = Double.random(in: (box.west - 0.1)...(box.east + 0.1), using: &generator)
          lat = Double.random(in: (box.south - 0.1)...(box.north + 0.1), using: &generator)
        }
        let indexed = star.contains(latitude: lat, longitude: lon)
        #expect(indexed == star.containsByRayCasting(latitude: lat, longitude: lon),
          "n = \(vertexCount), jagged = \(jagged), (\(lon), \(lat))")
        if indexed { insideCount += 1 }
      }
      #expect(insideCount > samples / 10, "the sample must hit the inside")
      #expect(insideCount < samples * 9 / 10, "the sample must hit the outside")
    }
  }

  @Test func containmentAcrossTheAntimeridianMatchesRayCasting() throws {
    var generator = SeededGenerator(seed: 180)
    let star = try starPolygon(
      count: 5_000, longitude: 180, latitude: -17, radius: 2, jagged: false,
      generator: &generator)
    #expect(star.crossesAntimeridian)
    #expect(star.boundingBox.crossesAntimeridian)
    for _ in 0..<500 {
      let lat = Double.random(in: -20...(-14), using: &generator)
      var lon = Double.random(in: 176...184, using: &generator)
      if lon > 180 { lon -= 360 }
      #expect(star.contains(latitude: lat, longitude: lon)
        == star.containsByRayCasting(latitude: lat, longitude: lon))
    }
    #expect(star.contains(latitude: -17, longitude: 180))
    #expect(star.contains(latitude: -17, longitude: -180))
    #expect(!star.contains(latitude: -17, longitude: 0))
  }
}
