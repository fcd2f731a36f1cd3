import FenceTestSupport
import Testing

@testable import FenceGeometry

/// A polygon of one ring that its edge index holds exactly keeps its vertices only there, and
/// gives its ring back bit for bit; every other polygon keeps its rings as given.
@Suite struct PolygonRingStorageTests {
  /// The coordinates' bit patterns, so that -0.0 and 0.0 differ.
  static func bits(_ rings: [[Coordinate]]) -> [[UInt64]] {
    rings.map { ring in ring.flatMap { [$0.latitude.bitPattern, $0.longitude.bitPattern] } }
  }

  @Test func oneRingIsKeptOnlyInTheEdgeIndexAndComesBackBitForBit() throws {
    var generator = SeededGenerator(seed: 11)
    for count in [3, 16, 41, 1_000] {
      let star = try starPolygon(
        count: count, longitude: -74, latitude: 40.7, radius: 0.01, jagged: count > 16,
        generator: &generator)
      let given = star.rings
      #expect(!star.keepsRings, "\(count) vertices")
      #expect(given.count == 1)
      #expect(given[0].count == count + 1)
      #expect(star.vertexCount == count + 1)
      #expect(star.holes.isEmpty)
      // Made again by a polygon that keeps them: the same values, the same bits.
      let again = try Polygon(exterior: given[0])
      #expect(Self.bits(again.rings) == Self.bits(given))
      #expect(again == star)
      #expect(again.hashValue == star.hashValue)
    }
  }

  @Test func signedZerosAndExactValuesSurvive() throws {
    let exterior = [
      lonLat(-0.0, -0.0), lonLat(0.1, 0.0), lonLat(0.1, 0.1), lonLat(-0.0, 0.1), lonLat(-0.0, -0.0),
    ]
    let square = try Polygon(exterior: exterior)
    #expect(!square.keepsRings)
    #expect(Self.bits(square.rings) == Self.bits([exterior]))
    #expect(Self.bits([square.exterior]) == Self.bits([exterior]))
  }

  @Test func polygonsTheEdgesDoNotHoldExactlyKeepTheirRings() throws {
    // A hole: two rings.
    let holed = try polygon(
      [(0, 0), (4, 0), (4, 4), (0, 4)], holes: [[(1, 1), (2, 1), (2, 2), (1, 2)]])
    #expect(holed.keepsRings)
    #expect(holed.rings == [ring([(0, 0), (4, 0), (4, 4), (0, 4)]), ring([(1, 1), (2, 1), (2, 2), (1, 2)])])
    #expect(holed.holes.count == 1)
    #expect(holed.vertexCount == 10)

    // A repeat that is equal but not the same bits (0 and -0): the index keeps each edge's
    // own ends, and the ring is kept as given.
    let signed = [lonLat(0, 0), lonLat(1, 0), lonLat(1, -0.0), lonLat(1, 1), lonLat(0, 0)]
    let withSignedRepeat = try Polygon(exterior: signed)
    #expect(withSignedRepeat.keepsRings)
    #expect(withSignedRepeat.index.edgeStride == 4)
    #expect(Self.bits(withSignedRepeat.rings) == Self.bits([signed]))
    #expect(withSignedRepeat.vertexCount == 5)

    // Across the antimeridian: the index holds longitudes shifted by 360.
    let across = [lonLat(179, 0), lonLat(-179, 0), lonLat(-179, 1), lonLat(179, 1), lonLat(179, 0)]
    let wrapped = try Polygon(exterior: across)
    #expect(wrapped.crossesAntimeridian)
    #expect(wrapped.keepsRings)
    #expect(Self.bits(wrapped.rings) == Self.bits([across]))
  }

  /// A vertex repeating the one before it (its zero-length edge is left out of the index) is
  /// kept as its position: the ring comes back bit for bit, runs of repeats, a repeated first
  /// vertex and a repeated closing vertex included.
  @Test func repeatedVerticesAreKeptAsPositions() throws {
    let repeated = [lonLat(0, 0), lonLat(1, 0), lonLat(1, 0), lonLat(1, 1), lonLat(0, 0)]
    let withRepeat = try Polygon(exterior: repeated)
    #expect(!withRepeat.keepsRings)
    #expect(Self.bits(withRepeat.rings) == Self.bits([repeated]))
    #expect(withRepeat.vertexCount == 5)
    #expect(withRepeat.index.edgeCount == 3)

    var generator = SeededGenerator(seed: 12)
    for count in [3, 16, 41, 1_000] {
      let star = try starPolygon(
        count: count, longitude: -74, latitude: 40.7, radius: 0.01, jagged: count > 16,
        generator: &generator)
      let plain = star.exterior
      // Each vertex repeated 0 to 3 times, at random; the first and last twice at least once.
      var ring: [Coordinate] = []
      for (i, vertex) in plain.enumerated() {
        let copies = 1 + Int(generator.next() % 4)
        let forced = (count == 41 && (i == 0 || i == plain.count - 1)) ? 2 : copies
        ring.append(contentsOf: repeatElement(vertex, count: forced))
      }
      let polygon = try Polygon(exterior: ring)
      #expect(!polygon.keepsRings, "\(count) vertices")
      #expect(Self.bits(polygon.rings) == Self.bits([ring]), "\(count) vertices")
      #expect(Self.bits([polygon.exterior]) == Self.bits([ring]))
      #expect(polygon.vertexCount == ring.count)
      #expect(polygon.index.edgeStride == 2)
      #expect(polygon.index.edgeCount == count)
      // The same edges as the polygon without repeats, so the same answers.
      #expect(
        (0..<count).map { Self.edgeBits(polygon.index.edge($0)) }
          == (0..<count).map { Self.edgeBits(star.index.edge($0)) })
      let box = star.boundingBox
      for _ in 0..<200 {
        let latitude = generator.double(in: box.south...box.north)
        let longitude = generator.double(in: box.west...box.east)
        #expect(
          polygon.contains(latitude: latitude, longitude: longitude)
            == star.contains(latitude: latitude, longitude: longitude))
      }
      // Equal to the same ring made again, not to the ring without its repeats (rings compare
      // as given).
      #expect(polygon != star)
      #expect(try Polygon(exterior: ring) == polygon)
    }
  }

  /// The edge index holds one chain as its vertices (each once, stride 2; a vertex repeating
  /// the one before left out), anything else as four values per edge (also a chain whose
  /// repeat is 0 for -0); both give the same edges.
  @Test func edgeIndexStridesGiveTheSameEdges() throws {
    let square = ring([(0, 0), (1, 0), (1, 1), (0, 1)])
    let single = try Polygon(exterior: square)
    #expect(single.index.edgeStride == 2)
    #expect(single.index.edges.count == 2 * 5)
    let holed = try Polygon(exterior: square, holes: [ring([(0.25, 0.25), (0.5, 0.25), (0.5, 0.5)])])
    #expect(holed.index.edgeStride == 4)
    let repeated = [lonLat(0, 0), lonLat(1, 0), lonLat(1, 0), lonLat(1, 1), lonLat(0, 1), lonLat(0, 0)]
    let withRepeat = try Polygon(exterior: repeated)
    #expect(withRepeat.index.edgeStride == 2)
    #expect(withRepeat.index.edges.count == 2 * 5)
    let signed = [lonLat(0, 0), lonLat(1, 0), lonLat(1, -0.0), lonLat(1, 1), lonLat(0, 1), lonLat(0, 0)]
    let withSignedRepeat = try Polygon(exterior: signed)
    #expect(withSignedRepeat.index.edgeStride == 4)
    for polygon in [single, holed, withRepeat, withSignedRepeat] {
      #expect((0..<4).map { Self.edgeBits(polygon.index.edge($0)) } == Self.squareEdges)
    }
    #expect(holed.index.edgeCount == 7)
    #expect(withRepeat.index.edgeCount == 4)
    // A polyline is one chain too.
    let line = try Polyline([lonLat(0, 0), lonLat(1, 0), lonLat(1, 1)])
    #expect(line.index.edgeStride == 2)
    #expect(line.index.edgeCount == 2)
  }

  static func edgeBits(_ edge: (Double, Double, Double, Double)) -> [Double] {
    [edge.0, edge.1, edge.2, edge.3]
  }

  static let squareEdges: [[Double]] = [[0, 0, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 0, 0]]
}
