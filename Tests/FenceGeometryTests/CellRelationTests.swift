import FenceGeometry
import FenceTestSupport
import Testing

/// `MultiPolygon.relation(toCell:)` and `Circle.relation(toCell:)`: an `.inside` or `.outside`
/// answer must hold for every point of the cell, checked on a grid of points that includes the
/// cell's corners and edges, against the shapes' own containment tests.
@Suite struct CellRelationTests {
  /// Cells of 1/1024 degree at random over Manhattan's box, and cells centred on its vertices
  /// (always crossed by an edge).
  @Test func manhattanCellsAgreeWithContainmentAtEveryPoint() throws {
    let manhattan = try #require(
      try PolygonFixtures.read(path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name").first)
    let shape = manhattan.shape
    let box = shape.boundingBox
    var generator = SeededGenerator(seed: 11)
    var counts: [CellRelation: Int] = [:]
    var wrong = 0
    let size = 1.0 / 1024
    for _ in 0..<1_500 {
      let south = generator.double(in: (box.south - 0.01)...(box.north + 0.01))
      let west = generator.double(in: (box.west - 0.01)...(box.east + 0.01))
      let cell = BoundingBox(south: south, west: west, north: south + size, east: west + size)
      let relation = shape.relation(toCell: cell)
      counts[relation, default: 0] += 1
      wrong += CellRelationProbe.contradictions(relation, cell: cell) { shape.contains(latitude: $0, longitude: $1) }
    }
    let vertices = shape.polygons.flatMap { $0.rings.joined() }
    for k in stride(from: 0, to: vertices.count, by: 50) {
      let v = vertices[k]
      let cell = BoundingBox(
        south: v.latitude - size / 2, west: v.longitude - size / 2,
        north: v.latitude + size / 2, east: v.longitude + size / 2)
      #expect(shape.relation(toCell: cell) == .mixed, "cell around vertex \(v)")
    }
    #expect(wrong == 0)
    // Every kind occurs: the test would not notice a relation that always says `.mixed`.
    #expect(counts[.inside] == 245)
    #expect(counts[.outside] == 1_188)
    #expect(counts[.mixed] == 67)
  }

  /// Manhattan's 33 parts, each made a multipolygon of its own, as the reference for the whole:
  /// a cell is `.mixed` when it is for some part, otherwise `.inside` when some part holds it.
  /// Cells of three sizes, so that some meet many parts' extents and some none; also a
  /// multipolygon with one part across the antimeridian, whose every cell is `.mixed`.
  @Test func multipartCellsAgreeWithTheirPartsOneByOne() throws {
    let manhattan = try #require(
      try PolygonFixtures.read(path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name").first)
    let shape = manhattan.shape
    let parts = shape.polygons.map { MultiPolygon($0) }
    #expect(parts.count == 33)
    let box = shape.boundingBox
    var generator = SeededGenerator(seed: 13)
    var counts: [CellRelation: Int] = [:]
    var disagreements = 0
    /// Compares the whole's relation to `cell` with the parts' and counts it.
    func check(_ cell: BoundingBox) {
      let byPart = parts.map { $0.relation(toCell: cell) }
      let expected: CellRelation =
        byPart.contains(.mixed) ? .mixed : byPart.contains(.inside) ? .inside : .outside
      let relation = shape.relation(toCell: cell)
      if relation != expected { disagreements += 1 }
      counts[relation, default: 0] += 1
    }
    for size in [1.0 / 1024, 1.0 / 256, 1.0 / 64] {
      for _ in 0..<600 {
        let south = generator.double(in: (box.south - 0.01)...(box.north + 0.01))
        let west = generator.double(in: (box.west - 0.01)...(box.east + 0.01))
        check(BoundingBox(south: south, west: west, north: south + size, east: west + size))
      }
    }
    // Every part, even the smallest islet, is met by a cell on its first vertex and by one
    // at the mean of its vertices.
    for part in shape.polygons {
      let ring = part.rings[0]
      let meanLatitude = ring.map(\.latitude).reduce(0, +) / Double(ring.count)
      let meanLongitude = ring.map(\.longitude).reduce(0, +) / Double(ring.count)
      for (latitude, longitude) in [(ring[0].latitude, ring[0].longitude), (meanLatitude, meanLongitude)] {
        let size = 1.0 / 8192
        check(
          BoundingBox(
            south: latitude - size / 2, west: longitude - size / 2,
            north: latitude + size / 2, east: longitude + size / 2))
      }
    }
    #expect(disagreements == 0)
    #expect(counts[.inside] == 232)
    #expect(counts[.outside] == 1_285)
    #expect(counts[.mixed] == 349)

    let across = try MultiPolygon([
      Polygon(exterior: [lonLat(10, 0), lonLat(11, 0), lonLat(11, 1), lonLat(10, 1), lonLat(10, 0)]),
      Polygon(exterior: [
        lonLat(179, -17), lonLat(-179, -17), lonLat(-179, -16), lonLat(179, -16), lonLat(179, -17),
      ]),
    ])
    // Deep inside the plain part, and far from both: the part across the antimeridian makes
    // every answer `.mixed`.
    #expect(across.relation(toCell: BoundingBox(south: 0.4, west: 10.4, north: 0.5, east: 10.5)) == .mixed)
    #expect(across.relation(toCell: BoundingBox(south: 40, west: 40, north: 40.1, east: 40.1)) == .mixed)
  }

  /// A cell whose edge lies exactly on a polygon edge, one whose corner touches a vertex, and
  /// one a hair away from an edge.
  @Test func cellsTouchingTheBoundaryAreMixed() throws {
    let square = MultiPolygon(try Polygon(exterior: [
      lonLat(0, 0), lonLat(1, 0), lonLat(1, 1), lonLat(0, 1), lonLat(0, 0),
    ]))
    // Sharing the polygon's east edge, from outside.
    #expect(square.relation(toCell: BoundingBox(south: 0.25, west: 1, north: 0.5, east: 1.5)) == .mixed)
    // Touching the corner (1, 1) with its own corner.
    #expect(square.relation(toCell: BoundingBox(south: 1, west: 1, north: 1.5, east: 1.5)) == .mixed)
    // 10⁻¹⁰ degrees away: within the margin, so still tested point by point.
    #expect(square.relation(toCell: BoundingBox(south: 0.25, west: 1 + 1e-10, north: 0.5, east: 1.5)) == .mixed)
    // Well clear of every edge.
    #expect(square.relation(toCell: BoundingBox(south: 0.25, west: 1.001, north: 0.5, east: 1.5)) == .outside)
    #expect(square.relation(toCell: BoundingBox(south: 0.25, west: 0.25, north: 0.5, east: 0.5)) == .inside)
    // A cell inside the box but in a hole.
    let framed = MultiPolygon(try Polygon(
      exterior: [lonLat(0, 0), lonLat(1, 0), lonLat(1, 1), lonLat(0, 1), lonLat(0, 0)],
      holes: [[lonLat(0.2, 0.2), lonLat(0.8, 0.2), lonLat(0.8, 0.8), lonLat(0.2, 0.8), lonLat(0.2, 0.2)]]))
    #expect(framed.relation(toCell: BoundingBox(south: 0.4, west: 0.4, north: 0.6, east: 0.6)) == .outside)
    #expect(framed.relation(toCell: BoundingBox(south: 0.05, west: 0.05, north: 0.1, east: 0.1)) == .inside)
  }

  /// Cells at the antimeridian, or of a polygon crossing it, are always tested point by point.
  @Test func antimeridianCellsAreMixed() throws {
    let fiji = MultiPolygon(try Polygon(exterior: [
      lonLat(179, -17), lonLat(-179, -17), lonLat(-179, -16), lonLat(179, -16), lonLat(179, -17),
    ]))
    #expect(fiji.relation(toCell: BoundingBox(south: -16.6, west: 179.5, north: -16.5, east: 179.6)) == .mixed)
    let plain = MultiPolygon(try Polygon(exterior: [
      lonLat(170, -17), lonLat(180, -17), lonLat(180, -16), lonLat(170, -16), lonLat(170, -17),
    ]))
    #expect(plain.relation(toCell: BoundingBox(south: -16.6, west: 179.9, north: -16.5, east: 180)) == .mixed)
    #expect(plain.relation(toCell: BoundingBox(south: -16.6, west: 175, north: -16.5, east: 175.1)) == .inside)
  }

  /// Cells of 1/1024 degree around circles of 25 m to 2 km at several latitudes.
  @Test func circleCellsAgreeWithTheChordTestAtEveryPoint() throws {
    var generator = SeededGenerator(seed: 12)
    var counts: [CellRelation: Int] = [:]
    var wrong = 0
    let size = 1.0 / 1024
    for k in 0..<600 {
      let latitude = [-60.0, -10, 0.2, 40.7, 71][k % 5]
      let center = lonLat(generator.double(in: -170...170), latitude)
      let radius = generator.double(in: 25...2_000)
      let circle = try Circle(center: center, radius: radius)
      let reach = (radius + 150) / 80_000
      let south = center.latitude + generator.double(in: -reach...reach) - size / 2
      let west = center.longitude + generator.double(in: -reach...reach) - size / 2
      let cell = BoundingBox(south: south, west: west, north: south + size, east: west + size)
      let relation = circle.relation(toCell: Cell(cell))
      counts[relation, default: 0] += 1
      wrong += CellRelationProbe.contradictions(relation, cell: cell) {
        circle.contains(ECEFPosition(latitude: $0, longitude: $1))
      }
    }
    #expect(wrong == 0)
    #expect(counts[.inside] == 202)
    #expect(counts[.outside] == 323)
    #expect(counts[.mixed] == 75)
  }
}
