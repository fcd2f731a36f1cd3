/// The area of a fence: a circle (point fences are circles of the default radius) or a
/// (multi)polygon.
///
/// The boundary counts as inside for every kind of area.
public enum Area: Hashable, Sendable {
  case circle(Circle)
  case polygon(MultiPolygon)

  /// Whether the area covers a position (boundary included).
  @inlinable
  public func contains(_ p: Position) -> Bool {
    switch self {
    case .circle(let circle): return circle.contains(p.ecef)
    case .polygon(let polygon): return polygon.contains(latitude: p.latitude, longitude: p.longitude)
    }
  }

  /// Metres from a position to the area: 0 inside, else the distance to its boundary.
  @inlinable
  public func distance(from p: Position) -> Double {
    switch self {
    case .circle(let circle): return circle.distance(from: p.ecef)
    case .polygon(let polygon): return polygon.distance(from: p)
    }
  }

  /// Metres from a position to the area's boundary, whether inside or outside.
  @inlinable
  public func distanceToBoundary(from p: Position) -> Double {
    switch self {
    case .circle(let circle): return circle.distanceToBoundary(from: p.ecef)
    case .polygon(let polygon): return polygon.distanceToBoundary(from: p)
    }
  }

  /// Metres from a position to the area's boundary when that is less than `limit` metres, else
  /// `limit`: exactly ``distanceToBoundary(from:)`` capped at `limit`, at a cost that grows with
  /// the edges within `limit` rather than with the distance (see
  /// ``MultiPolygon/distanceToBoundary(from:within:)``).
  @inlinable
  public func distanceToBoundary(from p: Position, within limit: Double) -> Double {
    switch self {
    case .circle(let circle): return min(limit, circle.distanceToBoundary(from: p.ecef))
    case .polygon(let polygon): return polygon.distanceToBoundary(from: p, within: limit)
    }
  }

  /// A box that holds the whole area.
  public var boundingBox: BoundingBox {
    switch self {
    case .circle(let circle): return circle.boundingBox
    case .polygon(let polygon): return polygon.boundingBox
    }
  }
}
