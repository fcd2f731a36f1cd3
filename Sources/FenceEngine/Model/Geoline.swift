import FenceGeometry

/// A GEOLINE: a polyline that checks its zone in when a device crosses it.
///
/// "Left" is the left-hand side when walking from the first vertex to the last; a position on
/// the line counts as left.
public struct Geoline: Hashable, Sendable {
  /// Which crossings trigger.
  ///
  /// Coded as its raw value, as the `direction` rule of a GEOLINE's GeoJSON properties.
  public enum DirectionFilter: String, Hashable, Sendable, CaseIterable, Codable {
    /// Every crossing triggers (the default).
    case both
    /// Only crossings from the left-hand side to the right-hand side.
    case leftToRight
    /// Only crossings from the right-hand side to the left-hand side (or onto the line).
    case rightToLeft

    /// Whether a crossing in `direction` passes this filter.
    @inlinable
    public func admits(_ direction: CrossingDirection) -> Bool {
      switch self {
      case .both: return true
      case .leftToRight: return direction == .leftToRight
      case .rightToLeft: return direction == .rightToLeft
      }
    }
  }

  /// Unique across the evaluator, shared with fence ids.
  public var id: String
  /// A human-readable name (not used by the engine).
  public var name: String?
  /// The line; straight segments in (longitude, latitude).
  public var line: Polyline
  /// Which crossings check the zone in.
  public var direction: DirectionFilter

  /// A GEOLINE; `direction` defaults to ``DirectionFilter/both``.
  public init(id: String, name: String? = nil, line: Polyline, direction: DirectionFilter = .both) {
    self.id = id
    self.name = name
    self.line = line
    self.direction = direction
  }
}
