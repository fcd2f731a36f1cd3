@testable import FenceGeometry
import Testing

/// Bad input never crashes: each fault is thrown with the shape's name and a sentence.
@Suite struct GeometryErrorTests {
  private func message(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as GeometryError {
      return error.description
    } catch {
      return "unexpected \(error)"
    }
  }

  @Test func coordinates() {
    #expect(message { _ = try Coordinate(latitude: .nan, longitude: 0, shape: "fix 3") }
      == "fix 3: coordinate is not finite (lat nan, lon 0.0)")
    #expect(message { _ = try Coordinate(latitude: 10, longitude: .infinity) }
      == "coordinate: coordinate is not finite (lat 10.0, lon inf)")
    #expect(message { _ = try Coordinate(latitude: 91, longitude: 200) }
      == "coordinate: coordinate out of range (lat 91.0, lon 200.0); latitude must be in [-90, 90] and longitude in [-180, 180]")
    #expect(message { _ = try Coordinate(latitude: -74.1, longitude: 40.7) } == nil)
    #expect(message { _ = try Coordinate(latitude: 120, longitude: 45) }
      == "coordinate: latitude 120.0 is out of range but longitude 45.0 is not: were latitude and longitude swapped? GeoJSON positions are [longitude, latitude]")
  }

  @Test func polygons() {
    #expect(message { _ = try Polygon(exterior: [], name: "zone-a") } == "zone-a: empty geometry")
    #expect(
      message {
        _ = try Polygon(exterior: [lonLat(0, 0), lonLat(1, 0), lonLat(1, 1)], name: "zone-a")
      } == "zone-a: ring 0 is not closed (its last position must equal its first)")
    #expect(
      message {
        _ = try Polygon(exterior: [lonLat(0, 0), lonLat(1, 0), lonLat(0, 0)], name: "zone-a")
      } == "zone-a: ring 0 has 2 distinct points; at least 3 are required")
    #expect(
      message {
        _ = try Polygon(
          exterior: ring([(0, 0), (4, 0), (4, 4), (0, 4)]),
          holes: [[lonLat(1, 1), lonLat(2, 1), lonLat(2, 2)]], name: "zone-b")
      } == "zone-b: ring 1 is not closed (its last position must equal its first)")
    #expect(
      message {
        _ = try Polygon(exterior: ring([(0, 0), (4, 0), (4, 4), (0, 4)]), holes: [[]])
      } == "polygon: ring 1 has 0 distinct points; at least 3 are required")
    #expect(message { _ = try MultiPolygon([], name: "zone-c") } == "zone-c: empty geometry")
  }

  /// The validation's count of distinct positions (up to three) is a `Set`'s count capped at 3,
  /// `-0.0` and `0.0` one position as for the `Set`; a ring of one repeated position has 1.
  @Test func distinctPositionsAreCountedAsASetCountsThem() {
    let rings: [[Coordinate]] = [
      [],
      [lonLat(0, 0)],
      [lonLat(0, 0), lonLat(0, 0), lonLat(0, 0)],
      [lonLat(0, 0), lonLat(-0.0, -0.0), lonLat(0, 0)],
      [lonLat(0, 0), lonLat(1, 0), lonLat(0, 0), lonLat(1, 0), lonLat(0, 0)],
      [lonLat(0, 0), lonLat(0, 0), lonLat(1, 0), lonLat(1, 0), lonLat(1, 1), lonLat(0, 0)],
      [lonLat(0, 0), lonLat(1, 0), lonLat(1, 1), lonLat(2, 2), lonLat(0, 0)],
      [lonLat(5, 5), lonLat(5, 5), lonLat(-0.0, 5), lonLat(0, 5), lonLat(5, 5)],
    ]
    let counts = rings.map { Polygon.distinctPositions(in: $0) }
    #expect(counts == [0, 1, 1, 1, 2, 3, 3, 2])
    #expect(counts == rings.map { min(3, Set($0).count) })
  }

  @Test func polylines() {
    #expect(message { _ = try Polyline([], name: "narrows") } == "narrows: empty geometry")
    #expect(message { _ = try Polyline([lonLat(1, 1), lonLat(1, 1)], name: "narrows") }
      == "narrows: ring 0 has 1 distinct points; at least 2 are required")
  }

  @Test(arguments: [0.0, -5, .nan, .infinity])
  func circleRadius(radius: Double) {
    #expect(message { _ = try Circle(center: lonLat(0, 0), radius: radius, name: "depot") }
      == "depot: radius must be a finite number of metres greater than 0, got \(radius)")
  }
}
