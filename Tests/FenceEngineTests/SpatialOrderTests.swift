import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceEngine
@testable import FenceIndex

/// A large load applies its zones in the curve order of their first fence's box centre
/// (`ZoneEvaluator.spatialOrder(of:)`), taking a circle's centre for its box's where the box
/// cannot wrap or reach a pole. The fence index, packed afterwards from the boxes, must find
/// its entries in the same order, so that its ids are its slots and it keeps no id index
/// (decision 0003, "Ids that are slots": 17 MB at a million circles).
@Suite struct SpatialOrderTests {
  /// `count` circles of 20-3,000 m, at random over a box of `degrees` around (`latitude`,
  /// `longitude`), in random order.
  static func circles(
    count: Int, latitude: Double, longitude: Double, degrees: Double, seed: UInt64
  ) throws -> [Zone] {
    var generator = SeededGenerator(seed: seed)
    return try (0..<count).map { index in
      let center = try Coordinate(
        latitude: latitude + Double.random(in: -degrees...degrees, using: &generator),
        longitude: longitude + Double.random(in: -degrees...degrees, using: &generator))
      let radius = Double.random(in: 20...3_000, using: &generator)
      return Zone(id: "c\(index)", fences: [try .circle(id: "c\(index)", center: center, radius: radius)])
    }
  }

  @Test(arguments: [
    // New York; within 10° of the antimeridian (the boxes' centres taken); above 80° north (the
    // same).
    (40.7, -74.0, 2.0), (-17.0, 175.0, 2.0), (81.5, 20.0, 1.0),
  ])
  func aLargeLoadOfCirclesGivesAnIndexWhoseIDsAreItsSlots(
    latitude: Double, longitude: Double, degrees: Double
  ) throws {
    let zones = try Self.circles(
      count: 3_000, latitude: latitude, longitude: longitude, degrees: degrees, seed: 5)
    // The centre stands for the box only where the box is symmetric about it.
    let taken = zones.filter {
      guard case .circle(let circle) = $0.fences[0].area else { return false }
      return ZoneEvaluator.boxCentre(of: circle) != nil
    }
    #expect(taken.count == (abs(longitude) < 170 && abs(latitude) < 80 ? 3_000 : 0))
    for fileOrder in [true, false] {
      var evaluator = ZoneEvaluator()
      try evaluator.add(zones, fileOrderAllowed: fileOrder)
      #expect(evaluator.fenceIndex.main.idsAreSlots, "file order \(fileOrder)")
      #expect(evaluator.fenceIndex.main.idOrder.isEmpty, "file order \(fileOrder)")
    }
  }

  @Test func aCircleCentreIsItsBoxCentreWhereTheBoxIsSymmetric() throws {
    var generator = SeededGenerator(seed: 8)
    for _ in 0..<2_000 {
      let circle = try Circle(
        center: Coordinate(
          latitude: Double.random(in: -79.9...79.9, using: &generator),
          longitude: Double.random(in: -169.9...169.9, using: &generator)),
        radius: Double.random(in: 1...99_999, using: &generator))
      let centre = try #require(ZoneEvaluator.boxCentre(of: circle))
      let box = circle.boundingBox
      #expect(box.west <= box.east, "the box does not wrap")
      #expect(abs((box.west + box.east) * 0.5 - centre.x) <= 1e-12)
      #expect(abs((box.south + box.north) * 0.5 - centre.y) <= 1e-12)
    }
  }
}
