import FenceGEOS
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// Swift point-in-polygon (`MultiPolygon.contains`) against GEOS prepared covers on real
/// polygons: random points over each bounding box, every vertex, exact midpoints of axis-aligned
/// edges, points interpolated along edges and points nudged off them.
///
/// The rule: the two may disagree only within 1e-9 degrees of the boundary (measured by GEOS);
/// vertices and midpoints of axis-aligned edges, which lie exactly on the boundary, must be
/// inside for both. Interpolated points that GEOS measures at distance 0 are counted apart: their
/// rounded coordinates may lie a hair off the edge, where GEOS's own exact covers says outside,
/// so for them the rule is agreement (within the tolerance), not insideness.
@Suite struct PointInPolygonOracleTests {
  /// The largest GEOS distance to the boundary at which Swift and GEOS may disagree, in degrees.
  static let tolerance = 1e-9

  @Test func fixturePolygonsAgreeWithGEOS() throws {
    let features =
      try PolygonFixtures.read(
        path: fixturePath("polygons/tz-world-sample.geojson"), nameProperty: "tzid")
      + PolygonFixtures.read(
        path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name")
    let tally = try Self.compare(features, randomPointsPerFeature: 36_000, seed: 1)
    #expect(tally.points >= 1_000_000)
    #expect(tally.exactlyOnBoundary >= 23_000)
    #expect(tally.atDistanceZero >= 400)
    Self.report("fixtures", tally)
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: sharedDataPath("fences"))))
  func allNYCBoroughsAgreeWithGEOS() throws {
    let boroughs = try PolygonFixtures.read(
      path: sharedDataPath("fences/nyc-boroughs.geojson"), nameProperty: "name")
    #expect(boroughs.count == 5)
    let tally = try Self.compare(boroughs, randomPointsPerFeature: 40_000, seed: 2)
    #expect(tally.exactlyOnBoundary >= 76_000)
    Self.report("NYC boroughs", tally)
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: sharedDataPath("fences"))))
  func aTzWorldSampleAgreesWithGEOS() throws {
    // Every 40th feature: about 700 polygons of every size from the 27,743.
    let zones = try PolygonFixtures.read(
      path: sharedDataPath("fences/tz-world.geojson.gz"), nameProperty: "tzid",
      including: { $0 % 40 == 0 && $0 != 4072 })  // 4072 self-intersects (validation tests)
    #expect(zones.count == 694)
    let tally = try Self.compare(zones, randomPointsPerFeature: 1_000, seed: 3)
    Self.report("tz-world sample", tally)
  }

  // MARK: - The comparison

  struct Tally {
    /// Every point compared.
    var points = 0
    /// Vertices and midpoints of axis-aligned edges (all must be inside for both).
    var exactlyOnBoundary = 0
    /// Other points GEOS measures at distance 0 from the boundary.
    var atDistanceZero = 0
    /// Of those, the ones GEOS's covers puts outside.
    var atDistanceZeroOutside = 0
    /// Points inside per GEOS.
    var inside = 0
    /// Points where Swift and GEOS disagree (all within the tolerance of the boundary).
    var disagreements = 0
    /// The largest GEOS distance to the boundary of a disagreement, in degrees.
    var largestDisagreementDistance = 0.0
    /// Failures recorded so far (recording stops after a few per feature).
    var failures = 0
  }

  static func report(_ label: String, _ tally: Tally) {
    print(
      "\(label): \(tally.points) points, \(tally.inside) inside, \(tally.exactlyOnBoundary)"
        + " vertices or axis-aligned midpoints, \(tally.atDistanceZero) more at GEOS distance 0"
        + " (\(tally.atDistanceZeroOutside) of them outside per GEOS covers),"
        + " \(tally.disagreements) disagreements (largest distance"
        + " \(tally.largestDisagreementDistance) degrees)")
  }

  static func compare(_ features: [PolygonFeature], randomPointsPerFeature: Int, seed: UInt64)
    throws -> Tally
  {
    let context = try GEOSContext()
    var random = SeededGenerator(seed: seed)
    var tally = Tally()
    for feature in features {
      let prepared = try PreparedShape(feature.shape, context: context)
      var checker = Checker(feature: feature, prepared: prepared)
      let box = feature.shape.boundingBox
      precondition(!box.crossesAntimeridian, "Oracle fixtures must not cross 180: \(feature)")
      let padLatitude = (box.north - box.south) * 0.02
      let padLongitude = (box.east - box.west) * 0.02
      let latitudes = max(-90, box.south - padLatitude)...min(90, box.north + padLatitude)
      let longitudes = max(-180, box.west - padLongitude)...min(180, box.east + padLongitude)
      for _ in 0..<randomPointsPerFeature {
        try checker.check(
          latitude: Double.random(in: latitudes, using: &random),
          longitude: Double.random(in: longitudes, using: &random), mustBeInside: false)
      }
      for polygon in feature.shape.polygons {
        for ring in polygon.rings {
          for i in 1..<ring.count {
            let a = ring[i - 1]
            let b = ring[i]
            try checker.check(latitude: a.latitude, longitude: a.longitude, mustBeInside: true)
            if a.latitude == b.latitude || a.longitude == b.longitude {
              // The midpoint of an axis-aligned edge is exactly on it.
              try checker.check(
                latitude: (a.latitude + b.latitude) / 2,
                longitude: (a.longitude + b.longitude) / 2, mustBeInside: true)
            }
            // Interpolated: on the edge only when GEOS says its distance is exactly 0.
            let t = Double.random(in: 0...1, using: &random)
            let latitude = a.latitude + t * (b.latitude - a.latitude)
            let longitude = a.longitude + t * (b.longitude - a.longitude)
            try checker.check(latitude: latitude, longitude: longitude, mustBeInside: nil)
            // Nudged off the edge by 1e-12 ... 1e-6 degrees, on a random side.
            let nudge = pow(10, -Double.random(in: 6...12, using: &random))
            try checker.check(
              latitude: latitude + (Bool.random(using: &random) ? nudge : -nudge),
              longitude: longitude + (Bool.random(using: &random) ? nudge : -nudge),
              mustBeInside: false)
          }
        }
      }
      tally.points += checker.tally.points
      tally.exactlyOnBoundary += checker.tally.exactlyOnBoundary
      tally.atDistanceZero += checker.tally.atDistanceZero
      tally.atDistanceZeroOutside += checker.tally.atDistanceZeroOutside
      tally.inside += checker.tally.inside
      tally.disagreements += checker.tally.disagreements
      tally.largestDisagreementDistance = max(
        tally.largestDisagreementDistance, checker.tally.largestDisagreementDistance)
      tally.failures += checker.tally.failures
    }
    return tally
  }

  /// Compares one feature's answers point by point and records the first few failures.
  struct Checker {
    let feature: PolygonFeature
    let prepared: PreparedShape
    var tally = Tally()

    /// - Parameter mustBeInside: true for points exactly on the boundary (vertices, midpoints of
    ///   axis-aligned edges), nil for points near an edge whose GEOS distance decides, false for
    ///   any other point.
    mutating func check(latitude: Double, longitude: Double, mustBeInside: Bool?) throws {
      tally.points += 1
      let swift = feature.shape.contains(latitude: latitude, longitude: longitude)
      let geos = try prepared.covers(latitude: latitude, longitude: longitude)
      if geos { tally.inside += 1 }
      var onBoundary = false
      if mustBeInside == true {
        tally.exactlyOnBoundary += 1
        onBoundary = true
        if !(swift && geos) {
          fail("exactly on the boundary but Swift says \(swift), GEOS \(geos)", latitude, longitude)
        }
      } else if mustBeInside == nil,
        try prepared.distanceToBoundary(latitude: latitude, longitude: longitude) == 0
      {
        tally.atDistanceZero += 1
        onBoundary = true
        if !geos { tally.atDistanceZeroOutside += 1 }
      }
      // Points on a boundary get a sub-centimetre Swift distance to it (checked sparsely: the
      // ellipsoidal distance is slow in a debug build).
      if onBoundary, (tally.exactlyOnBoundary + tally.atDistanceZero) % 64 == 0 {
        let metres = feature.shape.distanceToBoundary(
          from: Position(Coordinate(uncheckedLatitude: latitude, longitude: longitude)))
        if !(metres < 0.01) {
          fail("on the boundary but Swift's distance is \(metres) m", latitude, longitude)
        }
      }
      guard swift != geos else { return }
      tally.disagreements += 1
      let distance = try prepared.distanceToBoundary(latitude: latitude, longitude: longitude)
      tally.largestDisagreementDistance = max(tally.largestDisagreementDistance, distance)
      if distance > PointInPolygonOracleTests.tolerance {
        fail(
          "Swift says \(swift), GEOS \(geos), \(distance) degrees from the boundary",
          latitude, longitude)
      }
    }

    private mutating func fail(_ what: String, _ latitude: Double, _ longitude: Double) {
      tally.failures += 1
      guard tally.failures <= 5 else { return }
      Issue.record("\(feature.name) at (lat \(latitude), lon \(longitude)): \(what)")
    }
  }
}
