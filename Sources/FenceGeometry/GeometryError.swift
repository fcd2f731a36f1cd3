/// A shape or coordinate that cannot be used, with the shape it belongs to and what is wrong.
///
/// Thrown where geometry enters the library (initializers of ``Coordinate``, ``Circle``,
/// ``Polygon``, ``Polyline``), so that nothing invalid reaches the hot path.
public struct GeometryError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Fault: Hashable, Sendable {
    /// A latitude or longitude is NaN or infinite.
    case notFinite(latitude: Double, longitude: Double)
    /// A latitude outside [-90, 90] or a longitude outside [-180, 180].
    case outOfRange(latitude: Double, longitude: Double)
    /// A latitude outside [-90, 90] whose longitude would be a valid latitude:
    /// the pair was probably given in (lat, lon) order where (lon, lat) was expected.
    case swappedLooking(latitude: Double, longitude: Double)
    /// A ring whose last vertex differs from its first.
    case unclosedRing(ring: Int)
    /// A ring or polyline with fewer distinct vertices than its kind needs.
    case tooFewPoints(ring: Int, distinct: Int, required: Int)
    /// Two edges of a polygon cross or touch where they should not (GEOS's reason, when known).
    case selfIntersection(reason: String)
    /// Any other invalidity GEOS reports for a polygon.
    case invalid(reason: String)
    /// A circle radius that is zero, negative or not finite.
    case nonPositiveRadius(Double)
    /// A shape with no coordinates at all.
    case empty
  }

  /// The shape's name in the user's terms (a fence id, "circle", "polygon ring 2", ...).
  public var shape: String
  /// What is wrong.
  public var fault: Fault

  public init(shape: String, fault: Fault) {
    self.shape = shape
    self.fault = fault
  }

  /// The same error attributed to another shape name (for example a fence id, once known).
  public func named(_ shape: String) -> GeometryError {
    GeometryError(shape: shape, fault: fault)
  }

  public var description: String {
    "\(shape): \(faultDescription)"
  }

  /// The fault alone, as a sentence fragment.
  public var faultDescription: String {
    switch fault {
    case .notFinite(let lat, let lon):
      return "coordinate is not finite (lat \(lat), lon \(lon))"
    case .outOfRange(let lat, let lon):
      return "coordinate out of range (lat \(lat), lon \(lon)); latitude must be in [-90, 90] and longitude in [-180, 180]"
    case .swappedLooking(let lat, let lon):
      return "latitude \(lat) is out of range but longitude \(lon) is not: were latitude and longitude swapped? GeoJSON positions are [longitude, latitude]"
    case .unclosedRing(let ring):
      return "ring \(ring) is not closed (its last position must equal its first)"
    case .tooFewPoints(let ring, let distinct, let required):
      return "ring \(ring) has \(distinct) distinct points; at least \(required) are required"
    case .selfIntersection(let reason):
      return "self-intersection (\(reason))"
    case .invalid(let reason):
      return "invalid geometry (\(reason))"
    case .nonPositiveRadius(let radius):
      return "radius must be a finite number of metres greater than 0, got \(radius)"
    case .empty:
      return "empty geometry"
    }
  }
}
