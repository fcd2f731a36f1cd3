@testable import FenceGEOS
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// `ValidityProof` against GEOS's `IsValidOp`: whatever the proof accepts, GEOS finds valid;
/// the plainly simple rings it is there for are accepted; anything doubtful is left to GEOS.
@Suite struct ValidityProofTests {
  /// GEOS's verdict on the rings, in the frame `validate` gives GEOS.
  static func geosFindsValid(_ rings: [[Coordinate]], context: GEOSContext) throws -> Bool {
    let shift = GEOSGeometry.crossesAntimeridian(rings)
    let geometry = try GEOSGeometry(rings: rings, shift: shift, context: context)
    return try context.validityReason(geometry) == nil
  }

  static func proves(_ rings: [[Coordinate]]) -> Bool {
    ValidityProof.provesValid(rings: rings, shift: GEOSGeometry.crossesAntimeridian(rings))
  }

  static func ring(_ points: [(Double, Double)]) -> [Coordinate] {
    points.map { Coordinate(uncheckedLatitude: $0.1, longitude: $0.0) }
  }


  /// A ring written as `"x y, x y, ..."` (longitude, latitude).
  static func ring(_ text: String) -> [Coordinate] {
    text.split(separator: ",").map { pair in
      let values = pair.split(separator: " ").map { Double($0)! }
      return Coordinate(uncheckedLatitude: values[1], longitude: values[0])
    }
  }

  /// Rings with whether GEOS finds them valid: the plainly simple ones are proven, the invalid
  /// ones never.
  static let rings: [(name: String, points: String, valid: Bool)] = [
    ("a square", "0 0, 1 0, 1 1, 0 1, 0 0", true),
    ("a triangle", "0 0, 2 0, 1 1, 0 0", true),
    ("a square with vertices along its edges", "0 0, 1 0, 2 0, 2 1, 2 2, 0 2, 0 0", true),
    ("a square with repeated vertices", "0 0, 0 0, 1 0, 1 1, 1 1, 0 1, 0 0", true),
    ("a comb", "0 0, 5 0, 5 3, 4 3, 4 1, 3 1, 3 3, 2 3, 2 1, 1 1, 1 3, 0 3, 0 0", true),
    ("a ring across the antimeridian", "179 0, -179 0, -179 1, 179 1, 179 0", true),
    ("a bowtie", "0 0, 1 1, 1 0, 0 1, 0 0", false),
    ("a ring touching itself at a vertex", "0 0, 2 0, 1 1, 2 2, 0 2, 1 1, 0 0", false),
    ("a collinear ring", "0 0, 1 0, 2 0, 0 0", false),
    ("a spike back along an edge", "0 0, 2 0, 2 2, 2 1, 2 3, 0 3, 0 0", false),
    ("a vertex on another edge", "0 0, 4 0, 4 4, 2 0, 0 4, 0 0", false),
    ("a spike out and back", "0 0, 2 0, 3 0, 2 0, 2 2, 0 2, 0 0", false),
  ]

  @Test(arguments: Self.rings)
  func provesPlainlySimpleRingsAndNeverInvalidOnes(
    _ ring: (name: String, points: String, valid: Bool)
  ) throws {
    let rings = [Self.ring(ring.points)]
    #expect(Self.proves(rings) == ring.valid)
    #expect(try Self.geosFindsValid(rings, context: GEOSContext()) == ring.valid)
  }

  /// A triangle of sides 10⁻¹⁶⁰ degrees: its orientation products (about 10⁻³²⁰) are
  /// subnormal, where the error bound no longer holds. Valid, and left to GEOS.
  @Test func leavesRingsSmallEnoughToUnderflowToGEOS() throws {
    let rings = [Self.ring("0 0, 1e-160 0, 0 1e-160, 0 0")]
    #expect(!Self.proves(rings))
    #expect(try Self.geosFindsValid(rings, context: GEOSContext()))
    // The same triangle a hundred billion billion times larger is proven.
    #expect(Self.proves([Self.ring("0 0, 1e-140 0, 0 1e-140, 0 0")]))
  }

  @Test func leavesPolygonsWithHolesToGEOS() throws {
    let rings = [
      Self.ring("0 0, 10 0, 10 10, 0 10, 0 0"),
      Self.ring("2 2, 2 4, 4 4, 2 2"),
    ]
    #expect(!Self.proves(rings))
    #expect(try Self.geosFindsValid(rings, context: GEOSContext()))
  }

  /// A star-shaped ring: vertices at increasing angles around a centre, at random radii in
  /// `radii`. Simple by construction (each ray from the centre meets it once).
  static func star(
    vertices: Int, centre: (Double, Double), radii: ClosedRange<Double> = 0.99...1.0,
    using random: inout SeededGenerator
  ) -> [Coordinate] {
    var points: [(Double, Double)] = []
    for k in 0..<vertices {
      let angle = (Double(k) + random.double(in: 0.1...0.9)) / Double(vertices) * 2 * .pi
      let radius = random.double(in: radii)
      points.append((centre.0 + radius * cos(angle), centre.1 + radius * sin(angle)))
    }
    points.append(points[0])
    return ring(points)
  }

  @Test(arguments: [5, 12, 31, 32, 33, 100, 2_000])
  func provesStarRingsOfEverySize(vertices: Int) throws {
    var random = SeededGenerator(seed: UInt64(vertices))
    let context = try GEOSContext()
    for _ in 0..<20 {
      let rings = [Self.star(vertices: vertices, centre: (10, 50), using: &random)]
      #expect(Self.proves(rings))
      #expect(try Self.geosFindsValid(rings, context: context))
    }
  }

  /// A star of 2,000 long spikes: each edge spans a fifth of the ring's width, so the sweep
  /// meets hundreds of edges per edge and gives up (its budget) rather than cost more than
  /// GEOS. Valid, and left to GEOS.
  @Test func leavesRingsThatPileUpAlongTheSweepToGEOS() throws {
    var random = SeededGenerator(seed: 2_000)
    let rings = [Self.star(vertices: 2_000, centre: (10, 50), radii: 0.2...1.0, using: &random)]
    #expect(!Self.proves(rings))
    #expect(try Self.geosFindsValid(rings, context: GEOSContext()))
  }

  /// Stars with one fault put in: two vertices swapped (the edges around them cross), a vertex
  /// moved onto another edge's midpoint, or a vertex repeated further on (a self-touch).
  @Test(arguments: [8, 31, 32, 200, 3_000])
  func neverProvesAFaultPutIntoAStar(vertices: Int) throws {
    var random = SeededGenerator(seed: 7 &+ UInt64(vertices))
    let context = try GEOSContext()
    for trial in 0..<30 {
      var ring = Array(Self.star(vertices: vertices, centre: (-70, 40), using: &random).dropLast())
      let a = random.int(below: ring.count)
      let b = (a + 2 + random.int(below: ring.count - 3)) % ring.count
      switch trial % 3 {
      case 0:
        ring.swapAt(a, b)
      case 1:
        let next = (b + 1) % ring.count
        ring[a] = Coordinate(
          uncheckedLatitude: (ring[b].latitude + ring[next].latitude) / 2,
          longitude: (ring[b].longitude + ring[next].longitude) / 2)
      default:
        ring[a] = ring[b]
      }
      ring.append(ring[0])
      let rings = [ring]
      let valid = try Self.geosFindsValid(rings, context: context)
      if Self.proves(rings) {
        #expect(valid, "trial \(trial): proven, but GEOS finds it invalid")
      }
      if trial % 3 == 2 {
        #expect(!Self.proves(rings), "trial \(trial): a repeated vertex touches the ring")
        #expect(!valid)
      }
    }
  }

  /// Random rings on a small grid: collinear runs, touching vertices, spikes and crossings
  /// come up often. Every ring the proof accepts, GEOS finds valid; the counts of each kind are
  /// fixed by the seed. On a grid of integers every orientation is exact; on a grid of tenths
  /// around New York (not exact in binary) vertices in a row are only nearly in line, for GEOS
  /// too (ten more rings are valid there), and the proof's error bound still tells them apart.
  @Test(arguments: [
    (1.0, 0.0, 0.0, 319, 0, 2_655),
    (0.1, -74.0, 40.6, 329, 0, 2_645),
  ])
  func randomGridRingsNeverProvenWhenGEOSFindsThemInvalid(
    step: Double, west: Double, south: Double, provenCount: Int, validUnprovenCount: Int,
    invalidCount: Int
  ) throws {
    var random = SeededGenerator(seed: 2026)
    let context = try GEOSContext()
    var proven = 0
    var validUnproven = 0
    var invalid = 0
    for trial in 0..<3_000 {
      let count = 3 + random.int(below: trial % 2 == 0 ? 8 : 60)
      var points: [(Double, Double)] = []
      for _ in 0..<count {
        points.append(
          (west + step * Double(random.int(below: 6)), south + step * Double(random.int(below: 6))))
      }
      points.append(points[0])
      let rings = [Self.ring(points)]
      guard (try? Polygon(exterior: rings[0])) != nil else { continue }
      let valid = try Self.geosFindsValid(rings, context: context)
      if Self.proves(rings) {
        #expect(valid, "trial \(trial): \(points) proven, but GEOS finds it invalid")
        proven += 1
      } else if valid {
        validUnproven += 1
      } else {
        invalid += 1
      }
    }
    #expect(proven == provenCount)
    #expect(validUnproven == validUnprovenCount)
    #expect(invalid == invalidCount)
  }

  @Test func validateStillWordsGEOSsReasonForWhatTheProofLeaves() throws {
    let context = try GEOSContext()
    let polygon = try Polygon(exterior: Self.ring("0 0, 1 1, 1 0, 0 1, 0 0"))
    #expect(
      throws: GeometryError(
        shape: "fence-7", fault: .selfIntersection(reason: "Self-intersection[0.5 0.5]"))
    ) {
      try context.validate(polygon, name: "fence-7")
    }
  }
}
