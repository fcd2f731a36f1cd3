/// A WGS84 position in degrees, validated where it enters the library.
///
/// Latitude is in [-90, 90] and longitude in [-180, 180]; both are finite. Polygon edges and
/// GEOLINE segments between coordinates are straight lines in (longitude, latitude), as in
/// GeoJSON (RFC 7946) and GEOS.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
  /// Degrees north of the equator, in [-90, 90].
  public let latitude: Double
  /// Degrees east of Greenwich, in [-180, 180].
  public let longitude: Double

  /// Validates and stores a position.
  ///
  /// - Throws: ``GeometryError`` naming `shape` when a value is NaN or infinite, out of range,
  ///   or looks like latitude and longitude were swapped.
  public init(latitude: Double, longitude: Double, shape: String = "coordinate") throws {
    guard latitude.isFinite, longitude.isFinite else {
      throw GeometryError(shape: shape, fault: .notFinite(latitude: latitude, longitude: longitude))
    }
    guard (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude) else {
      if !(-90.0...90.0).contains(latitude), (-90.0...90.0).contains(longitude),
        (-180.0...180.0).contains(latitude)
      {
        throw GeometryError(
          shape: shape, fault: .swappedLooking(latitude: latitude, longitude: longitude))
      }
      throw GeometryError(shape: shape, fault: .outOfRange(latitude: latitude, longitude: longitude))
    }
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Stores a position the caller has already validated (or generated in range).
  ///
  /// A `precondition` checks the range in debug builds only; use the throwing initializer at
  /// every boundary where input comes from outside.
  @inlinable
  public init(uncheckedLatitude latitude: Double, longitude: Double) {
    assert(latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180,
      "Coordinate out of range: lat \(latitude), lon \(longitude)")
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Whether a latitude/longitude pair would be accepted by the throwing initializer.
  @inlinable
  public static func isValid(latitude: Double, longitude: Double) -> Bool {
    latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
  }

  public var description: String { "(\(latitude), \(longitude))" }
}
