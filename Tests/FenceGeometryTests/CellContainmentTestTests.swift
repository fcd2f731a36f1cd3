import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// `MultiPolygon.cellContainmentTest(cell:edgeLimit:edges:colours:)`: wherever the cell's test
/// answers, it must equal `MultiPolygon.contains(latitude:longitude:)` exactly, boundary
/// included; checked at vertices, on edges, at the cell's corners and sides, and at random
/// points of cells around real and synthetic polygons.
@Suite struct CellContainmentTestTests {
  /// What the checks saw.
  struct Tally: Equatable {
    /// Cells tried, and those for which a test was made.
    var cells = 0
    var tests = 0
    /// Points of the tests' boxes asked, points the test answered, and points it left to the
    /// full test (a vertex on the segment to the reference point).
    var points = 0
    var answered = 0
    var covered = 0
    var fellBack = 0
    /// Tests whose edges have several stripe colours (parts with overlapping boxes), and tests
    /// of boxes that no edge meets.
    var multiColour = 0
    var withoutEdges = 0
    /// Quarter tests made from their cell's test.
    var quarterTests = 0
    /// Answers that differ from the full test.
    var wrong = 0
  }

  /// The cell of 1/1024 degree holding a coordinate, as the evaluator's cell cache cuts them.
  static func gridCell(latitude: Double, longitude: Double) -> BoundingBox {
    let row = ((latitude + 90) * 1024).rounded(.down)
    let column = ((longitude + 180) * 1024).rounded(.down)
    return BoundingBox(
      south: row / 1024 - 90, west: column / 1024 - 180, north: (row + 1) / 1024 - 90,
      east: (column + 1) / 1024 - 180)
  }

  /// Makes the test of `shape` for `cell` (into shared storage, so that tests start at
  /// varied offsets), then the tests of its four quarters from it, and checks them at `points`
  /// (longitude, latitude) plus the cell's corners, side midpoints, centre, and the vertices
  /// and edge midpoints of the polygon inside it. A quarter's test must hold the same edges
  /// as one made from the polygon's index.
  static func check(
    _ shape: MultiPolygon, cell: BoundingBox, points: [(Double, Double)],
    edges: inout [CellEdge], colours: inout [UInt8], tally: inout Tally
  ) {
    tally.cells += 1
    let before = edges.count
    guard
      let test = shape.cellContainmentTest(
        cell: cell, edgeLimit: 64, edges: &edges, colours: &colours)
    else {
      #expect(edges.count == before && colours.count == before, "nothing kept on failure")
      return
    }
    tally.tests += 1
    if Set(colours[before...]).count > 1 { tally.multiColour += 1 }
    var all = points
    let xs = [cell.west, (cell.west + cell.east) / 2, cell.east]
    let ys = [cell.south, (cell.south + cell.north) / 2, cell.north]
    for x in xs { for y in ys { all.append((x, y)) } }
    let near = BoundingBox(
      south: cell.south - 1e-11, west: cell.west - 1e-11, north: cell.north + 1e-11,
      east: cell.east + 1e-11)
    for polygon in shape.polygons {
      for ring in polygon.rings {
        for i in 0..<(ring.count - 1) {
          let a = ring[i]
          let b = ring[i + 1]
          if near.contains(a) { all.append((a.longitude, a.latitude)) }
          let mid = ((a.longitude + b.longitude) / 2, (a.latitude + b.latitude) / 2)
          if near.contains(latitude: mid.1, longitude: mid.0) { all.append(mid) }
        }
      }
    }
    func verify(_ test: CellContainmentTest, _ box: BoundingBox) {
      if test.edgeCount == 0 { tally.withoutEdges += 1 }
      edges.withUnsafeBufferPointer { e in
        colours.withUnsafeBufferPointer { c in
          for (x, y) in all {
            let d = CellContainmentTest.pointMargin
            guard x >= box.west - d, x <= box.east + d, y >= box.south - d, y <= box.north + d
            else {
              #expect(test.covers(x: x, y: y, edges: e, colours: c) == nil)
              continue
            }
            tally.points += 1
            let full = shape.contains(latitude: y, longitude: x)
            guard let answer = test.covers(x: x, y: y, edges: e, colours: c) else {
              tally.fellBack += 1
              continue
            }
            tally.answered += 1
            if answer { tally.covered += 1 }
            if answer != full {
              tally.wrong += 1
              Issue.record("box \(box): (\(x), \(y)) answered \(answer), contains says \(full)")
            }
          }
        }
      }
    }
    verify(test, cell)
    let parentEdges = edges
    let parentColours = colours
    let midX = (cell.west + cell.east) / 2
    let midY = (cell.south + cell.north) / 2
    for (west, south, east, north) in [
      (cell.west, cell.south, midX, midY), (midX, cell.south, cell.east, midY),
      (cell.west, midY, midX, cell.north), (midX, midY, cell.east, cell.north),
    ] {
      let quarter = BoundingBox(south: south, west: west, north: north, east: east)
      var alone: [CellEdge] = []
      var aloneColours: [UInt8] = []
      let direct = shape.cellContainmentTest(
        cell: quarter, edgeLimit: 64, edges: &alone, colours: &aloneColours)
      guard
        let test = shape.cellContainmentTest(
          box: quarter, within: test, parentEdges: parentEdges, parentColours: parentColours,
          edgeLimit: 64, edges: &edges, colours: &colours)
      else {
        #expect(direct == nil, "quarter \(quarter) has a test from the index only")
        continue
      }
      tally.quarterTests += 1
      #expect(direct?.edgeCount == test.edgeCount, "quarter \(quarter): the same edges")
      verify(test, quarter)
    }
  }

  /// Random points of a cell.
  static func randomPoints(
    in cell: BoundingBox, count: Int, generator: inout SeededGenerator
  ) -> [(Double, Double)] {
    (0..<count).map { _ in
      (
        generator.double(in: cell.west...cell.east),
        generator.double(in: cell.south...cell.north)
      )
    }
  }

  /// The cells holding a sample of the vertices of real polygons (always crossed by an edge),
  /// and random cells over their boxes: Manhattan, the five boroughs (many parts, several
  /// stripe colours), and the harbor zones.
  @Test func realPolygonCellsAgreeWithContainment() throws {
    var shapes = try PolygonFixtures.read(
      path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name"
    ).map(\.shape)
    shapes += try PolygonFixtures.read(
      path: fixturePath("zones/nyc-boroughs.geojson"), nameProperty: "name"
    ).map(\.shape)
    shapes += try PolygonFixtures.read(
      path: fixturePath("zones/nyharbor-zones.geojson"), nameProperty: "name"
    ).map(\.shape)
    #expect(shapes.count == 8)
    var generator = SeededGenerator(seed: 21)
    var tally = Tally()
    var edges: [CellEdge] = []
    var colours: [UInt8] = []
    for shape in shapes {
      let vertices = shape.polygons.flatMap { $0.rings.joined() }
      let step = max(1, vertices.count / 150)
      for k in stride(from: 0, to: vertices.count, by: step) {
        let cell = Self.gridCell(latitude: vertices[k].latitude, longitude: vertices[k].longitude)
        let points = Self.randomPoints(in: cell, count: 12, generator: &generator)
        Self.check(
          shape, cell: cell, points: points, edges: &edges, colours: &colours, tally: &tally)
      }
      let box = shape.boundingBox
      for _ in 0..<40 {
        let cell = Self.gridCell(
          latitude: generator.double(in: box.south...box.north),
          longitude: generator.double(in: box.west...box.east))
        guard shape.relation(toCell: cell) == .mixed else { continue }
        let points = Self.randomPoints(in: cell, count: 12, generator: &generator)
        Self.check(
          shape, cell: cell, points: points, edges: &edges, colours: &colours, tally: &tally)
      }
    }
    #expect(tally.wrong == 0)
    // Most cells get a test (the others have over 64 edges), and so do all their quarters
    // (a third of them meet no edge); every answer is checked, both answers occur, and the
    // four cells of parts with overlapping boxes use several colours.
    #expect(
      tally
        == Tally(
          cells: 952, tests: 807, points: 105_401, answered: 105_397, covered: 72_092,
          fellBack: 4, multiColour: 4, withoutEdges: 1_163, quarterTests: 3_228))
  }

  /// A cell of 1/1024 degree at New York and a point of it on a grid of 1/16 of its side
  /// (`i`, `j` may leave the cell): every such point is exact in binary.
  static let cell = BoundingBox(
    south: 40.5, west: -74, north: 40.5 + 1.0 / 1024, east: -74 + 1.0 / 1024)
  static func at(_ i: Double, _ j: Double) -> (Double, Double) {
    (cell.west + i * (cell.east - cell.west) / 16, cell.south + j * (cell.north - cell.south) / 16)
  }
  static func shape(_ rings: [[(Double, Double)]]...) throws -> MultiPolygon {
    try MultiPolygon(
      rings.map { rings in
        try Polygon(
          exterior: ring(rings[0].map { at($0.0, $0.1) }),
          holes: rings.dropFirst().map { $0.map { at($0.0, $0.1) } }.map(ring))
      })
  }

  /// Polygons placed on the cell's grid: edges along the cell's sides, a hole, vertical and
  /// horizontal edges through the centre (the first reference point), a vertex at the centre,
  /// a comb whose teeth end on the sides, and overlapping parts (several colours). Checked at
  /// every point of the 1/16 grid over the cell and a little beyond, and at random points.
  @Test func syntheticPolygonsOnTheCellGridAgreeWithContainment() throws {
    let shapes = [
      // The cell itself, with a hole.
      try Self.shape([[(0, 0), (16, 0), (16, 16), (0, 16)], [(4, 4), (12, 4), (12, 12), (4, 12)]]),
      // A vertical edge through the centre.
      try Self.shape([[(-16, -16), (8, -16), (8, 32), (-16, 32)]]),
      // A horizontal edge through the centre, and a slanted one through a corner.
      try Self.shape([[(-16, 8), (32, 8), (32, 32), (16, 16), (-16, 16)]]),
      // A vertex at the centre.
      try Self.shape([[(8, 8), (24, 0), (24, 24)]]),
      // A comb: teeth from the south side to the north side, vertices on both sides.
      try Self.shape([[
        (0, -4), (16, -4), (16, 16), (14, 16), (14, 0), (12, 0), (12, 16), (10, 16), (10, 3),
        (6, 3), (6, 16), (3, 13), (0, 16),
      ]]),
      // Two overlapping squares: the overlap is covered by both (two colours).
      try Self.shape([[(0, 0), (10, 0), (10, 10), (0, 10)]], [[(6, 6), (16, 6), (16, 16), (6, 16)]]),
      // A diamond with its vertices at the sides' midpoints, and a triangle in a corner.
      try Self.shape([[(8, 0), (16, 8), (8, 16), (0, 8)]], [[(-4, -4), (2, -4), (-4, 2)]]),
      // Squares whose edges meet one quarter only: the others lie all outside, or all inside.
      try Self.shape([[(-8, -8), (4, -8), (4, 4), (-8, 4)]]),
      try Self.shape([[(-8, -8), (12, -8), (12, 12), (-8, 12)]]),
    ]
    var grid: [(Double, Double)] = []
    for i in -1...17 { for j in -1...17 { grid.append(Self.at(Double(i), Double(j))) } }
    var generator = SeededGenerator(seed: 22)
    var tally = Tally()
    var edges: [CellEdge] = []
    var colours: [UInt8] = []
    // The cell, then its quarters (as the evaluator files them: the grid's middle lines are
    // their sides; some quarters meet no edge, and answer every point alike).
    for shape in shapes {
      #expect(shape.relation(toCell: Self.cell) == .mixed)
      let points = grid + Self.randomPoints(in: Self.cell, count: 200, generator: &generator)
      Self.check(
        shape, cell: Self.cell, points: points, edges: &edges, colours: &colours, tally: &tally)
    }
    #expect(tally.wrong == 0)
    // Points whose segment to the reference point passes through a vertex are left to the
    // full test (the grid makes that common here).
    #expect(
      tally
        == Tally(
          cells: 9, tests: 9, points: 9_514, answered: 9_439, covered: 5_041, fellBack: 75,
          multiColour: 1, withoutEdges: 4, quarterTests: 36))
  }

  /// No test when too many edges meet the cell, when every reference point lies on an edge's
  /// line, or across the antimeridian; a point farther than the margin from the cell is left to
  /// the full test.
  @Test func testsAreNotMadeWhereTheyCannotBeExact() throws {
    var edges: [CellEdge] = []
    var colours: [UInt8] = []
    let comb = try Self.shape([[
      (0, -4), (16, -4), (16, 16), (14, 16), (14, 0), (12, 0), (12, 16), (10, 16), (10, 3),
      (6, 3), (6, 16), (3, 13), (0, 16),
    ]])
    #expect(comb.cellContainmentTest(cell: Self.cell, edgeLimit: 8, edges: &edges, colours: &colours) == nil)
    #expect(edges.isEmpty && colours.isEmpty)
    // Edges on the lines through all three reference points: (8, 8), (5, 11), (11, 6.5).
    let blocking = try Self.shape([[(-16, 8), (8, 8), (5, 11), (11, 6.5), (32, 6.5), (32, 32), (-16, 32)]])
    #expect(blocking.cellContainmentTest(cell: Self.cell, edgeLimit: 32, edges: &edges, colours: &colours) == nil)
    let fiji = MultiPolygon(try Polygon(exterior: [
      lonLat(179, -17), lonLat(-179, -17), lonLat(-179, -16), lonLat(179, -16), lonLat(179, -17),
    ]))
    let fijiCell = BoundingBox(south: -17 - 1.0 / 2048, west: 179.5, north: -17 + 1.0 / 2048, east: 179.5 + 1.0 / 1024)
    #expect(fiji.relation(toCell: fijiCell) == .mixed)
    #expect(fiji.cellContainmentTest(cell: fijiCell, edgeLimit: 32, edges: &edges, colours: &colours) == nil)
    #expect(edges.isEmpty && colours.isEmpty)
    let square = try Self.shape([[(-16, -16), (8, -16), (8, 32), (-16, 32)]])
    let test = try #require(square.cellContainmentTest(cell: Self.cell, edgeLimit: 32, edges: &edges, colours: &colours))
    edges.withUnsafeBufferPointer { e in
      colours.withUnsafeBufferPointer { c in
        #expect(test.covers(x: Self.cell.west - 1e-11, y: Self.cell.south, edges: e, colours: c) == true)
        #expect(test.covers(x: Self.cell.west - 1e-9, y: Self.cell.south, edges: e, colours: c) == nil)
        // The centre is on the edge x = 8, so the reference point is (5, 11), inside; the
        // segment from (11, 5) crosses that edge properly at (8, 8): outside.
        #expect(test.covers(x: Self.at(11, 5).0, y: Self.at(11, 5).1, edges: e, colours: c) == false)
      }
    }
  }
}
