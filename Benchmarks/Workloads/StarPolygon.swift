import FenceGeometry
import FenceTesting

/// A seeded star-shaped polygon: `vertexCount` vertices at evenly spaced angles around a centre,
/// at a radius that alternates between 1 km and a random 0.5...1 km.
///
/// The jagged outline stands in for coastlines: every horizontal line through it crosses many
/// edges near the centre's latitude. Vertices are placed on a local flat-earth approximation,
/// which is fine for a 2 km wide shape.
public enum StarPolygon {
  /// The star's centre: lower Manhattan.
  public static let center = Coordinate(uncheckedLatitude: 40.7, longitude: -74.0)

  /// A star of `vertexCount` distinct vertices (at least 3), closed.
  public static func make(vertexCount: Int, seed: UInt64 = 0x57A2) -> Polygon {
    precondition(vertexCount >= 3, "A star needs 3 vertices, got \(vertexCount)")
    var random = SplitMix64(seed: seed)
    let metresPerDegreeLatitude = 111_132.0
    let metresPerDegreeLongitude = metresPerDegreeLatitude * cos(center.latitude * .pi / 180)
    var ring: [Coordinate] = []
    ring.reserveCapacity(vertexCount + 1)
    for k in 0..<vertexCount {
      let angle = 2 * Double.pi * Double(k) / Double(vertexCount)
      let radius = k % 2 == 0 ? 1000 : 500 + 500 * random.nextUnit()
      ring.append(
        Coordinate(
          uncheckedLatitude: center.latitude + radius * sin(angle) / metresPerDegreeLatitude,
          longitude: center.longitude + radius * cos(angle) / metresPerDegreeLongitude))
    }
    ring.append(ring[0])
    guard let polygon = try? Polygon(exterior: ring, name: "star\(vertexCount)") else {
      preconditionFailure("Star of \(vertexCount) vertices was rejected")
    }
    return polygon
  }

  /// Points uniform in `box`, from `seed`.
  public static func points(in box: BoundingBox, count: Int, seed: UInt64 = 0xB0C5) -> [Position]
  {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { _ in
      Position(
        Coordinate(
          uncheckedLatitude: box.south + (box.north - box.south) * random.nextUnit(),
          longitude: box.west + (box.east - box.west) * random.nextUnit()))
    }
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
