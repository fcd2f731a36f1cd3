#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Coordinate {
  /// The position `north` and `east` metres from this one (negative values go south and west).
  ///
  /// Metres are turned into degrees with the WGS84 radii of curvature at this position's
  /// latitude (meridional for north, prime vertical times cos(latitude) for east), so that
  /// `WGS84.distance` between the two agrees with `hypot(north, east)` to about a millimetre up
  /// to 1 km at mid-latitudes: fine for placing points on either side of a fence's edge. The
  /// latitude is clamped to [-90, 90] and the longitude wrapped into [-180, 180].
  public func moved(north: Double = 0, east: Double = 0) -> Coordinate {
    let degreesPerRadian = 180 / Double.pi
    let latitudeRadians = latitude / degreesPerRadian
    let dLatitude = north / WGS84.meridionalRadius(latitude: latitude) * degreesPerRadian
    let parallelRadius = WGS84.primeVerticalRadius(latitude: latitude) * cos(latitudeRadians)
    let dLongitude = parallelRadius > 1e-9 ? east / parallelRadius * degreesPerRadian : 0
    return Coordinate(
      uncheckedLatitude: min(90, max(-90, latitude + dLatitude)),
      longitude: Coordinate.wrappedLongitude(longitude + dLongitude))
  }

  /// A longitude brought into [-180, 180].
  static func wrappedLongitude(_ longitude: Double) -> Double {
    guard longitude.isFinite else { return 0 }
    var value = longitude
    while value > 180 { value -= 360 }
    while value < -180 { value += 360 }
    return value
  }
}
