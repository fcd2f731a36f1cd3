import FenceGeometry
import Foundation
import FenceTestSupport
import Testing

@testable import FenceEngine

/// `CircleDegreeTest` answers circle containment from degree differences when its bounds
/// decide: its answer must be the exact chord test's (`Circle.contains`) for every point,
/// including points within 1 % of the radius from the boundary, at every latitude.
@Suite struct CircleDegreeTestTests {
  @Test func decidedAnswersEqualTheChordTestNearBoundaries() throws {
    var generator = SeededGenerator(seed: 41)
    var decided = 0
    var wrong = 0
    let latitudes = [-89.0, -60, -33.9, 0, 0.001, 40.7, 64.1, 78, 89.5]
    for k in 0..<300 {
      let center = try Coordinate(
        latitude: latitudes[k % latitudes.count], longitude: generator.double(in: -180...180))
      let radius = [5.0, 100, 2_000, 25_000, 90_000][k % 5]
      let circle = try Circle(center: center, radius: radius)
      let test = CircleDegreeTest(center: center, chordSquaredLimit: circle.chordSquaredLimit)
      for _ in 0..<100 {
        // A point at 0.99 to 1.01 radii in a random direction, on a local plane.
        let distance = radius * generator.double(in: 0.99...1.01)
        let bearing = generator.double(in: 0...(2 * Double.pi))
        let latitude = min(
          90, max(-90, center.latitude + distance * cos(bearing) / 111_000))
        var longitude =
          center.longitude + distance * sin(bearing)
          / (111_000 * max(1e-6, cos(center.latitude * .pi / 180)))
        longitude = (longitude + 540).truncatingRemainder(dividingBy: 360) - 180
        guard let answer = test.contains(latitude: latitude, longitude: longitude) else {
          continue
        }
        decided += 1
        let exact = circle.contains(ECEFPosition(latitude: latitude, longitude: longitude))
        if answer != exact { wrong += 1 }
      }
    }
    #expect(wrong == 0)
    // The bounds must decide most points: a test that always answered nil would pass the
    // comparison above. (23,111 with latitude scales of each circle's own band; those by ten
    // degrees leave a ring up to 0.2 % of the radius wider to the exact test, and these points
    // are all within 1 % of the boundary.)
    #expect(decided == 22_408)
  }

  /// The bounds are kept as `Float`s rounded outward (`Float(roundingDown:)`, tested with the
  /// packed tree's boxes): a third is no `Float`, and its two roundings are one step apart.
  @Test func floatBoundsAreRoundedOutward() {
    #expect(Float(roundingDown: 1.0 / 3.0).nextUp == Float(roundingUp: 1.0 / 3.0))
    #expect(Double(Float(roundingDown: 1.0 / 3.0)) < 1.0 / 3.0)
    #expect(Float(roundingDown: 2.0) == 2)
    #expect(Float(roundingUp: 2.0) == 2)
    // A circle's stored bounds: the outside limit above the Double one, the inside one below.
    let center = Coordinate(uncheckedLatitude: 40.7, longitude: -74)
    let circle = try! Circle(center: center, radius: 350)
    let test = CircleDegreeTest(center: center, chordSquaredLimit: circle.chordSquaredLimit)
    #expect(Double(test.outsideLimitSquared) >= 350 * 350)
    #expect(Double(test.insideLimitSquared) < circle.chordSquaredLimit)
    #expect(test.outsideLimitSquared > 0)
  }

  /// The latitude scales by ten degrees of the centre's latitude bound the meridional radius
  /// over the stretch widened by a degree (any band), each within a `Float` step of the bound.
  @Test func latitudeScalesBoundTheMeridionalRadius() {
    let radiansPerDegree = Double.pi / 180
    func scale(_ latitude: Double) -> Double {
      WGS84.meridionalRadius(latitude: latitude) * radiansPerDegree
    }
    for tenth in 0..<10 {
      let start = Double(tenth) * 10
      for center in stride(from: start, to: start + 10, by: 0.25) {
        for sign in [-1.0, 1.0] {
          let scales = CircleDegreeTest.latitudeScales(at: sign * center)
          for latitude in stride(from: max(0, center - 0.9), through: min(90, center + 0.9), by: 0.1) {
            #expect(scales.low < scale(latitude))
            #expect(scales.high > scale(latitude))
          }
        }
      }
      let scales = CircleDegreeTest.latitudeScales(at: start + 5)
      let least = scale(max(0, start - 1)) * (1 - 1e-9)
      let greatest = scale(min(90, start + 11)) * (1 + 1e-9)
      #expect(Double(Float(scales.low)) == scales.low && Double(Float(scales.high)) == scales.high)
      #expect(scales.low <= least && Double(Float(scales.low).nextUp) > least)
      #expect(scales.high >= greatest && Double(Float(scales.high).nextDown) < greatest)
    }
    #expect(CircleDegreeTest.latitudeScales(at: 90) == CircleDegreeTest.latitudeScales(at: -90))
  }

  /// An element's core is the degree test with its centre (32 bytes) and the fields the
  /// per-fix step reads after it: 48 bytes.
  @Test func elementCoreTakesFortyEightBytes() {
    #expect(MemoryLayout<CircleDegreeTest>.size == 32)
    #expect(MemoryLayout<ElementCore>.size == 48)
    #expect(MemoryLayout<ElementCore>.stride == 48)
    #expect(ElementCore.bytesBeforePayload == 40)
  }

  /// A cell's relation in degrees, where it decides, holds at every point of the cell by the
  /// exact chord test (a grid of 9 × 9 points with the corners and edges), and never
  /// contradicts the exact relation (`Circle.relation(toCell:)`). Cells of a cache cell and of
  /// a parent (1/1024 and 1/256 degree) at random around circles from 5 m to 90 km, at every
  /// latitude and across the antimeridian.
  @Test func cellRelationsInDegreesHoldAtEveryPoint() throws {
    var generator = SeededGenerator(seed: 43)
    var counts: [CellRelation?: Int] = [:]
    var wrong = 0
    var contradicted = 0
    let latitudes = [-89.0, -60, -33.9, 0, 0.001, 40.7, 64.1, 78, 89.5]
    for k in 0..<400 {
      let longitude = k % 7 == 0 ? 179.999 : generator.double(in: -180...180)
      let center = try Coordinate(latitude: latitudes[k % latitudes.count], longitude: longitude)
      let radius = [5.0, 100, 2_000, 25_000, 90_000][k % 5]
      let circle = try Circle(center: center, radius: radius)
      let test = CircleDegreeTest(center: center, chordSquaredLimit: circle.chordSquaredLimit)
      let reach = radius * 1.3 / 111_000
      for _ in 0..<25 {
        let size = generator.double(in: 0...1) < 0.5 ? 1.0 / 1024 : 1.0 / 256
        let south = min(90 - size, max(-90, center.latitude + generator.double(in: -reach...reach)))
        let westOffset =
          generator.double(in: -reach...reach) / max(1e-3, cos(center.latitude * .pi / 180))
        var west = center.longitude + westOffset
        west = (west + 540).truncatingRemainder(dividingBy: 360) - 180
        guard west + size <= 180 else { continue }
        let cell = BoundingBox(south: south, west: west, north: south + size, east: west + size)
        let relation = test.relation(toCell: cell)
        counts[relation, default: 0] += 1
        guard let relation else { continue }
        wrong += CellRelationProbe.contradictions(relation, cell: cell) { latitude, longitude in
          circle.contains(ECEFPosition(latitude: latitude, longitude: longitude))
        }
        let exact = circle.relation(toCell: Cell(cell))
        if exact != .mixed && exact != relation { contradicted += 1 }
      }
    }
    #expect(wrong == 0)
    #expect(contradicted == 0)
    // Each answer occurs: a relation that never decided would pass the checks above.
    #expect(counts[.inside] == 2_554)
    #expect(counts[.outside] == 3_901)
    #expect(counts[nil] == 3_262)
  }

  /// Circles whose chord limit reaches past 100 km are never decided in degrees.
  @Test func hugeCirclesAreLeftToTheChordTest() throws {
    let center = try Coordinate(latitude: 10, longitude: 20)
    let circle = try Circle(center: center, radius: 200_000)
    let test = CircleDegreeTest(center: center, chordSquaredLimit: circle.chordSquaredLimit)
    #expect(test.contains(latitude: 10, longitude: 20) == nil)
  }
}
