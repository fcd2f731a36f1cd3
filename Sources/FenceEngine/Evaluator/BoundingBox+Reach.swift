#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

import FenceGeometry

extension BoundingBox {
  /// A box holding every point within `metres` of `center` (for small distances, up to a few
  /// kilometres), by any of the engine's distance measures, with a 1 % and 1 m margin.
  ///
  /// A degree of latitude is at least 110,574 m (the meridional radius at the equator), and a
  /// degree of longitude at least the equatorial radius times the cosine of the latitude
  /// farthest from the equator that the reach touches. Near a pole the box takes every
  /// longitude; across the antimeridian it is a crossing box (`west > east`).
  static func reach(around center: Coordinate, metres: Double) -> BoundingBox {
    let padded = metres * 1.01 + 1
    let latitudeDegrees = padded / 110_574
    let south = max(-90, center.latitude - latitudeDegrees)
    let north = min(90, center.latitude + latitudeDegrees)
    let farthest = max(abs(south), abs(north))
    guard farthest < 89 else { return .allLongitudes(south: south, north: north) }
    let longitudeDegrees =
      padded / (WGS84.semiMajorAxis * .pi / 180 * cos(farthest * .pi / 180))
    guard longitudeDegrees < 90 else { return .allLongitudes(south: south, north: north) }
    var west = center.longitude - longitudeDegrees
    var east = center.longitude + longitudeDegrees
    if west < -180 { west += 360 }
    if east > 180 { east -= 360 }
    return BoundingBox(south: south, west: west, north: north, east: east)
  }
}
