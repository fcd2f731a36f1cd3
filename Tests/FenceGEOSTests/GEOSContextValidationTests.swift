import FenceGEOS
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

struct ValidityCase: CustomTestStringConvertible, Sendable {
  let name: String
  let wkt: String
  let fault: GeometryError.Fault?
  var testDescription: String { name }
}

@Suite struct GEOSContextValidationTests {
  /// Shapes used both by the validity cases and by the repair tests.
  static let bowtie = "POLYGON ((0 0, 1 1, 1 0, 0 1, 0 0))"
  static let squareWithTriangularHole =
    "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 2 2))"
  static let collinearRing = "POLYGON ((0 0, 1 0, 2 0, 0 0))"
  static let holePokingOutOfShell =
    "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (5 -1, 6 5, 4 5, 5 -1))"

  @Test(arguments: [
    ValidityCase(
      name: "a square with a hole is valid",
      wkt: Self.squareWithTriangularHole, fault: nil),
    ValidityCase(
      name: "a hole touching the shell at one point is valid",
      wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (0 5, 2 4, 2 6, 0 5))", fault: nil),
    ValidityCase(
      name: "a bowtie self-intersects at its crossing",
      wkt: Self.bowtie,
      fault: .selfIntersection(reason: "Self-intersection[0.5 0.5]")),
    ValidityCase(
      name: "a ring touching itself at a vertex is a ring self-intersection",
      wkt: "POLYGON ((0 0, 2 0, 1 1, 2 2, 0 2, 1 1, 0 0))",
      fault: .selfIntersection(reason: "Ring Self-intersection[1 1]")),
    ValidityCase(
      name: "a collinear ring has no interior and self-intersects",
      wkt: Self.collinearRing,
      fault: .selfIntersection(reason: "Self-intersection[1 0]")),
    ValidityCase(
      name: "a hole crossing the shell self-intersects",
      wkt: Self.holePokingOutOfShell,
      fault: .selfIntersection(reason: "Self-intersection[4.83333333333333 0]")),
    ValidityCase(
      name: "a hole outside the shell is invalid",
      wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (20 20, 21 20, 21 21, 20 20))",
      fault: .invalid(reason: "Hole lies outside shell[20 20]")),
    ValidityCase(
      name: "a hole inside another hole is invalid",
      wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (1 1, 9 1, 9 9, 1 9, 1 1),"
        + " (2 2, 8 2, 8 8, 2 8, 2 2))",
      fault: .invalid(reason: "Holes are nested[2 2]")),
    ValidityCase(
      name: "a hole cutting the interior in pieces is invalid",
      wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (0 5, 5 0, 10 5, 5 10, 0 5))",
      fault: .invalid(reason: "Interior is disconnected[0 5]")),
  ])
  func validate(_ c: ValidityCase) throws {
    let context = try GEOSContext()
    let polygon = try shape(c.wkt, context: context)
    if let fault = c.fault {
      #expect(throws: GeometryError(shape: "fence-7", fault: fault)) {
        try context.validate(polygon, name: "fence-7")
      }
    } else {
      try context.validate(polygon, name: "fence-7")
    }
  }

  @Test func anUnclosedRingIsCaughtByPolygonBeforeGEOS() {
    let ring = [(0.0, 0.0), (1, 0), (1, 1), (0, 1)].map {
      Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
    }
    #expect(throws: GeometryError(shape: "fence-7", fault: .unclosedRing(ring: 0))) {
      try Polygon(exterior: ring, name: "fence-7")
    }
  }

  @Test func anInvalidPartIsNamedByItsIndex() throws {
    let context = try GEOSContext()
    let parts = try shape(
      "MULTIPOLYGON (((20 20, 21 20, 21 21, 20 20)), ((0 0, 1 1, 1 0, 0 1, 0 0)))",
      context: context)
    #expect(
      throws: GeometryError(
        shape: "fence-7 part 1", fault: .selfIntersection(reason: "Self-intersection[0.5 0.5]"))
    ) {
      try context.validate(parts, name: "fence-7")
    }
  }

  @Test func overlappingPartsAreAcceptedBecauseAFenceIsTheirUnion() throws {
    let context = try GEOSContext()
    let parts = try shape(
      "MULTIPOLYGON (((0 0, 2 0, 2 2, 0 2, 0 0)), ((1 1, 3 1, 3 3, 1 3, 1 1)))", context: context)
    try context.validate(parts, name: "fence-7")
  }

  @Test func aSquareAcrossTheAntimeridianIsValid() throws {
    let context = try GEOSContext()
    let square = try Polygon(
      exterior: [(179.0, -1.0), (-179, -1), (-179, 1), (179, 1), (179, -1)].map {
        Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
      })
    try context.validate(square, name: "dateline")
  }

  @Test func realFixturePolygonsAreValid() throws {
    let context = try GEOSContext()
    let features =
      try PolygonFixtures.read(
        path: fixturePath("polygons/tz-world-sample.geojson"), nameProperty: "tzid")
      + PolygonFixtures.read(
        path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name")
    #expect(features.count == 29)
    for feature in features {
      try context.validate(feature.shape, name: feature.name)
    }
  }

  @Test func theRealSelfIntersectionInTzWorldIsFoundWithItsLocation() throws {
    let context = try GEOSContext()
    let magadan = try #require(
      PolygonFixtures.read(
        path: fixturePath("polygons/tz-world-magadan-invalid.geojson"), nameProperty: "tzid"
      ).first)
    #expect(
      throws: GeometryError(
        shape: "tz-4072 Asia/Magadan",
        fault: .selfIntersection(reason: "Self-intersection[145.168074091723 62.4551188698037]"))
    ) {
      try context.validate(magadan.shape, name: magadan.name)
    }
    let repaired = try context.makeValid(magadan.shape, name: magadan.name)
    try context.validate(repaired, name: magadan.name)
  }

  // MARK: - Repair

  @Test func repairingABowtieGivesItsTwoTriangles() throws {
    let context = try GEOSContext()
    let bowtie = try shape(Self.bowtie, context: context)
    let repaired = try context.makeValid(bowtie, name: "bowtie")
    #expect(repaired.polygons.count == 2)
    try context.validate(repaired, name: "bowtie")
    #expect(
      try GEOSGeometry(repaired, context: context).wkt()
        == "MULTIPOLYGON (((0 1, 0.5 0.5, 0 0, 0 1)), ((1 0, 0.5 0.5, 1 1, 1 0)))")
    // The crossing point belongs to both triangles; the pinched-off regions do not exist.
    #expect(repaired.contains(latitude: 0.5, longitude: 0.5))
    #expect(repaired.contains(latitude: 0.5, longitude: 0.1))
    #expect(!repaired.contains(latitude: 0.1, longitude: 0.5))
  }

  @Test func repairKeepsOnlyPolygonalParts() throws {
    let context = try GEOSContext()
    // A hole poking out of its shell: the repair is the shell minus the hole plus the tip.
    let poking = try shape(Self.holePokingOutOfShell, context: context)
    let repaired = try context.makeValid(poking, name: "poking")
    #expect(repaired.polygons.count == 2)
    try context.validate(repaired, name: "poking")
  }

  @Test func repairThatLeavesNoAreaIsAnError() throws {
    let context = try GEOSContext()
    let sliver = try shape(Self.collinearRing, context: context)
    #expect(throws: GeometryError(shape: "sliver", fault: .empty)) {
      try context.makeValid(sliver, name: "sliver")
    }
  }

  @Test func repairingAValidShapeKeepsItsRings() throws {
    let context = try GEOSContext()
    let square = try shape(Self.squareWithTriangularHole, context: context)
    let repaired = try context.makeValid(square, name: "square")
    #expect(repaired.polygons.count == 1)
    #expect(Set(repaired.polygons[0].exterior) == Set(square.polygons[0].exterior))
    #expect(Set(repaired.polygons[0].rings[1]) == Set(square.polygons[0].rings[1]))
  }

  // MARK: - Repair part by part

  /// `repair` and MakeValid over the whole give the same area (GEOS's own equality).
  static func expectSameArea(
    _ repaired: MultiPolygon, _ whole: MultiPolygon, context: GEOSContext
  ) throws {
    #expect(
      try GEOSGeometry(repaired, context: context).isTopologicallyEqual(
        to: GEOSGeometry(whole, context: context)))
  }

  @Test func repairingOnlyTheInvalidPartKeepsTheOthersAsTheyAre() throws {
    let context = try GEOSContext()
    let square = "((5 5, 6 5, 6 6, 5 6, 5 5))"
    let holed = "((10 0, 20 0, 20 10, 10 10, 10 0), (12 2, 12 4, 14 4, 12 2))"
    let parts = try shape(
      "MULTIPOLYGON (\(square), ((0 0, 1 1, 1 0, 0 1, 0 0)), \(holed))", context: context)
    let repaired = try context.repair(parts, name: "fence-7")
    // The square, the bowtie's two triangles in its place, then the holed square.
    #expect(repaired.polygons.count == 4)
    #expect(repaired.polygons[0] == parts.polygons[0])
    #expect(repaired.polygons[3] == parts.polygons[2])
    #expect(
      try GEOSGeometry(MultiPolygon(Array(repaired.polygons[1...2])), context: context).wkt()
        == "MULTIPOLYGON (((0 1, 0.5 0.5, 0 0, 0 1)), ((1 0, 0.5 0.5, 1 1, 1 0)))")
    try context.validate(repaired, name: "fence-7")
    try Self.expectSameArea(repaired, try context.makeValid(parts, name: "fence-7"), context: context)
  }

  @Test func aPartWhoseRepairReachesAnotherIsRepairedOverTheWhole() throws {
    let context = try GEOSContext()
    // The bowtie's right triangle overlaps the square: only MakeValid over the whole decides.
    let parts = try shape(
      "MULTIPOLYGON (((0 0, 1 1, 1 0, 0 1, 0 0)), ((0.8 0.2, 2 0.2, 2 0.8, 0.8 0.8, 0.8 0.2)))",
      context: context)
    #expect(try context.repair(parts, name: "fence-7") == context.makeValid(parts, name: "fence-7"))
  }

  @Test func overlappingValidPartsBesideAnInvalidOneAreRepairedOverTheWhole() throws {
    let context = try GEOSContext()
    let parts = try shape(
      "MULTIPOLYGON (((10 0, 12 0, 12 2, 10 2, 10 0)), ((11 1, 13 1, 13 3, 11 3, 11 1)),"
        + " ((0 0, 1 1, 1 0, 0 1, 0 0)))",
      context: context)
    #expect(try context.repair(parts, name: "fence-7") == context.makeValid(parts, name: "fence-7"))
  }

  @Test func aPartThatLeavesNoAreaIsDroppedAsOverTheWhole() throws {
    let context = try GEOSContext()
    let parts = try shape(
      "MULTIPOLYGON (((5 5, 6 5, 6 6, 5 6, 5 5)), \(Self.collinearRing.dropFirst("POLYGON ".count)))",
      context: context)
    let repaired = try context.repair(parts, name: "fence-7")
    #expect(repaired.polygons == [parts.polygons[0]])
    try Self.expectSameArea(repaired, try context.makeValid(parts, name: "fence-7"), context: context)
  }

  @Test func aSinglePolygonIsRepairedAsMakeValidRepairsIt() throws {
    let context = try GEOSContext()
    let bowtie = try shape(Self.bowtie, context: context)
    #expect(try context.repair(bowtie, name: "bowtie") == context.makeValid(bowtie, name: "bowtie"))
    let sliver = try shape(Self.collinearRing, context: context)
    #expect(throws: GeometryError(shape: "sliver", fault: .empty)) {
      try context.repair(sliver, name: "sliver")
    }
  }

  @Test func theRealSelfIntersectionInTzWorldIsRepairedToMakeValidsArea() throws {
    let context = try GEOSContext()
    let magadan = try #require(
      PolygonFixtures.read(
        path: fixturePath("polygons/tz-world-magadan-invalid.geojson"), nameProperty: "tzid"
      ).first)
    let repaired = try context.repair(magadan.shape, name: magadan.name)
    try context.validate(repaired, name: magadan.name)
    try Self.expectSameArea(
      repaired, try context.makeValid(magadan.shape, name: magadan.name), context: context)
  }

  /// Random multipolygons of a few parts (quadrilaterals with random corners: some cross
  /// themselves, some overlap or touch their neighbours): `repair` gives MakeValid's area every
  /// time, by GEOS's own equality, whether it repairs part by part or falls back.
  @Test func randomMultipolygonsAreRepairedToMakeValidsArea() throws {
    let context = try GEOSContext()
    var random = SeededGenerator(seed: 2_026_12_04)
    var compared = 0
    var partByPart = 0
    for _ in 0..<300 {
      var parts: [String] = []
      for _ in 0..<Int.random(in: 2...5, using: &random) {
        // A quadrilateral in a cell of a 4 x 4 grid, corners anywhere in a slightly larger
        // square: neighbours overlap now and then, and some rings cross themselves.
        let x = Double(Int.random(in: 0..<4, using: &random)) * 10
        let y = Double(Int.random(in: 0..<4, using: &random)) * 10
        var corners = (0..<4).map { _ in
          "\(x + random.double(in: -1...11)) \(y + random.double(in: -1...11))"
        }
        corners.append(corners[0])
        parts.append("((" + corners.joined(separator: ", ") + "))")
      }
      let wkt = "MULTIPOLYGON (" + parts.joined(separator: ", ") + ")"
      guard let shape = try? shape(wkt, context: context) else { continue }
      let whole: MultiPolygon
      do {
        whole = try context.makeValid(shape, name: "random")
      } catch {
        #expect(throws: error) { try context.repair(shape, name: "random") }
        continue
      }
      let repaired = try context.repair(shape, name: "random")
      try Self.expectSameArea(repaired, whole, context: context)
      if repaired != whole { partByPart += 1 }
      compared += 1
    }
    #expect(compared == 300)
    // Both ways are taken: many repaired part by part, the others over the whole.
    #expect(partByPart >= 20 && partByPart <= compared - 20)
  }

  /// Queens: 18 parts, part 17's ring crosses itself; the others are kept as they are, and the
  /// area is MakeValid's over the whole borough.
  @Test(.enabled(if: FileManager.default.fileExists(atPath: sharedDataPath("fences"))))
  func theBoroughsAreRepairedToMakeValidsArea() throws {
    let context = try GEOSContext()
    let boroughs = try PolygonFixtures.read(
      path: sharedDataPath("fences/nyc-boroughs.geojson"), nameProperty: "name")
    let queens = try #require(boroughs.first { $0.name.hasSuffix("Queens") })
    #expect(queens.shape.polygons.count == 18)
    let repaired = try context.repair(queens.shape, name: queens.name)
    try context.validate(repaired, name: queens.name)
    let kept = repaired.polygons.filter { queens.shape.polygons.contains($0) }
    #expect(kept.count == 17)
    try Self.expectSameArea(
      repaired, try context.makeValid(queens.shape, name: queens.name), context: context)
  }

  @Test func repairAcrossTheAntimeridianComesBackInRange() throws {
    let context = try GEOSContext()
    // A bowtie whose crossing lies on the antimeridian.
    let bowtie = try Polygon(
      exterior: [(179.0, -1.0), (-179, 1), (-179, -1), (179, 1), (179, -1)].map {
        Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
      })
    let repaired = try context.makeValid(MultiPolygon(bowtie), name: "dateline")
    #expect(repaired.polygons.count == 2)
    let longitudes = repaired.polygons.flatMap { $0.exterior.map(\.longitude) }
    #expect(Set(longitudes) == [179, 180, -179])
  }
}
