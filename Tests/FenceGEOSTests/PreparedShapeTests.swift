import FenceGEOS
import FenceGeometry
import FenceTestSupport
import Testing

struct CoverCase: CustomTestStringConvertible, Sendable {
  let name: String
  let latitude: Double, longitude: Double
  let covered: Bool
  var testDescription: String { name }
}

@Suite struct PreparedShapeTests {
  /// A 10 x 10 degree square with a 4 x 4 hole at (4...8, 4...8) in (longitude, latitude).
  static let squareWithHole =
    "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 8 4, 8 8, 4 8, 4 4))"

  @Test(arguments: [
    CoverCase(name: "a point inside is covered", latitude: 2, longitude: 2, covered: true),
    CoverCase(name: "a point outside is not", latitude: 2, longitude: 12, covered: false),
    CoverCase(name: "a shell vertex is covered", latitude: 0, longitude: 0, covered: true),
    CoverCase(name: "a shell edge is covered", latitude: 5, longitude: 10, covered: true),
    CoverCase(name: "a point in the hole is not", latitude: 6, longitude: 6, covered: false),
    CoverCase(name: "a hole edge is covered", latitude: 6, longitude: 4, covered: true),
    CoverCase(name: "a hole vertex is covered", latitude: 8, longitude: 8, covered: true),
    CoverCase(
      name: "just inside the hole is not", latitude: 6, longitude: 4.000_000_000_001,
      covered: false),
    CoverCase(
      name: "just outside the shell is not", latitude: 5, longitude: 10.000_000_000_001,
      covered: false),
  ])
  func covers(_ c: CoverCase) throws {
    let context = try GEOSContext()
    let prepared = try PreparedShape(shape(Self.squareWithHole, context: context), context: context)
    #expect(try prepared.covers(latitude: c.latitude, longitude: c.longitude) == c.covered)
  }

  @Test func randomPointsFollowTheSquareWithHoleExactly() throws {
    let context = try GEOSContext()
    let prepared = try PreparedShape(shape(Self.squareWithHole, context: context), context: context)
    var random = SeededGenerator(seed: 42)
    var covered = 0
    for _ in 0..<2_000 {
      // Far and near points in turn, so that any state kept between queries would show.
      let latitude = Double.random(in: -5...15, using: &random)
      let longitude = Double.random(in: -5...15, using: &random)
      let expected =
        (0...10).contains(latitude) && (0...10).contains(longitude)
        && !((4 < latitude && latitude < 8) && (4 < longitude && longitude < 8))
      let fresh = try PreparedShape(
        GEOSGeometry(latitude: latitude, longitude: longitude, context: context))
      #expect(try fresh.covers(latitude: latitude, longitude: longitude))
      #expect(try prepared.covers(latitude: latitude, longitude: longitude) == expected)
      if expected { covered += 1 }
    }
    #expect(covered > 300 && covered < 550)  // 84 of 400 square degrees: 420 expected
  }

  @Test func distancesAreInDegreesOfThePlane() throws {
    let context = try GEOSContext()
    let prepared = try PreparedShape(shape(Self.squareWithHole, context: context), context: context)
    #expect(try prepared.distance(latitude: 5, longitude: 13) == 3)
    #expect(try prepared.distance(latitude: 2, longitude: 2) == 0)
    #expect(try prepared.distance(latitude: 6, longitude: 6.5) == 1.5)  // in the hole
    #expect(try prepared.distanceToBoundary(latitude: 2, longitude: 1) == 1)
    #expect(try prepared.distanceToBoundary(latitude: 6, longitude: 6.5) == 1.5)
    #expect(try prepared.distanceToBoundary(latitude: 8, longitude: 5) == 0)
    #expect(try prepared.distanceToBoundary(latitude: 14, longitude: 13) == 5)
  }

  @Test func aPolylineCoversOnlyItsOwnPoints() throws {
    let context = try GEOSContext()
    let line = try Polyline(
      [(0.0, 0.0), (10, 0), (10, 10)].map { Coordinate(uncheckedLatitude: $0.1, longitude: $0.0) })
    let prepared = try PreparedShape(line, context: context)
    #expect(try prepared.covers(latitude: 0, longitude: 5))
    #expect(try prepared.covers(latitude: 10, longitude: 10))
    #expect(try !prepared.covers(latitude: 1, longitude: 5))
    #expect(try prepared.distance(latitude: 1, longitude: 5) == 1)
  }

  @Test func aSquareAcrossTheAntimeridianCoversBothSides() throws {
    let context = try GEOSContext()
    let square = try Polygon(
      exterior: [(179.0, -1.0), (-179, -1), (-179, 1), (179, 1), (179, -1)].map {
        Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
      })
    let prepared = try PreparedShape(square, context: context)
    #expect(try prepared.covers(latitude: 0, longitude: 180))
    #expect(try prepared.covers(latitude: 0, longitude: -180))
    #expect(try prepared.covers(latitude: 0, longitude: 179.5))
    #expect(try prepared.covers(latitude: 0, longitude: -179.5))
    #expect(try prepared.covers(latitude: 1, longitude: -179))  // a vertex
    #expect(try !prepared.covers(latitude: 0, longitude: 0))
    #expect(try !prepared.covers(latitude: 0, longitude: -178.5))
    #expect(try !prepared.covers(latitude: 0, longitude: 178.5))
    #expect(try prepared.distance(latitude: 0, longitude: -178.5) == 0.5)
    #expect(try prepared.distanceToBoundary(latitude: 0, longitude: -179.75) == 0.75)
  }

  @Test func longitudes180AndMinus180AreTheSameMeridian() throws {
    let context = try GEOSContext()
    // Like tz_world's Fiji and Anadyr: ends at 180 without crossing it.
    let west = try PreparedShape(
      shape("POLYGON ((179 -1, 180 -1, 180 1, 179 1, 179 -1))", context: context),
      context: context)
    #expect(try west.covers(latitude: 0, longitude: 180))
    #expect(try west.covers(latitude: 0, longitude: -180))
    #expect(try !west.covers(latitude: 2, longitude: -180))
    #expect(try !west.covers(latitude: 0, longitude: -179.5))
  }

  /// `covers(_:)` with a caller's probe (one GEOS point per position, as fencebench's GEOS
  /// loop uses it) answers as `covers(latitude:longitude:)`, across the antimeridian too, where
  /// it needs points of its own.
  @Test func aProbeIsCoveredAsItsPosition() throws {
    let context = try GEOSContext()
    let square = try PreparedShape(
      Polygon(
        exterior: [(179.0, -1.0), (-179, -1), (-179, 1), (179, 1), (179, -1)].map {
          Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
        }),
      context: context)
    let west = try PreparedShape(
      shape("POLYGON ((179 -1, 180 -1, 180 1, 179 1, 179 -1))", context: context),
      context: context)
    let cases: [(shape: PreparedShape, latitude: Double, longitude: Double, covered: Bool)] = [
      (square, 0, 180, true), (square, 0, -180, true), (square, 0, 179.5, true),
      (square, 0, -179.5, true), (square, 1, -179, true), (square, 0, 0, false),
      (square, 0, -178.5, false), (square, 0, 178.5, false),
      (west, 0, 180, true), (west, 0, -180, true), (west, 2, -180, false),
      (west, 0, -179.5, false),
    ]
    for c in cases {
      let probe = try GEOSProbe(latitude: c.latitude, longitude: c.longitude, context: context)
      #expect(try c.shape.covers(probe) == c.covered, "\(c.latitude), \(c.longitude)")
      #expect(try c.shape.covers(latitude: c.latitude, longitude: c.longitude) == c.covered)
    }
  }

  @Test func theShapeKeepsItsContextAlive() throws {
    var prepared: PreparedShape?
    do {
      let context = try GEOSContext()
      prepared = try PreparedShape(shape(Self.squareWithHole, context: context), context: context)
    }
    #expect(try prepared?.covers(latitude: 1, longitude: 1) == true)
  }
}
