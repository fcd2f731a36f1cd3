import FenceGeometry

/// A GEOLINE: a polyline that checks its zone in when a device crosses it.
///
/// "Left" is the left-hand side when walking from the first vertex to the last; a position on
/// the line counts as left.
public struct Geoline: Hashable, Sendable {
  /// Which crossings trigger.
  public enum DirectionFilter: String, Hashable, Sendable, CaseIterable {
    case both, leftToRight, rightToLeft

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

  public var id: String
  public var name: String?
  public var line: Polyline
  public var direction: DirectionFilter

  public init(id: String, name: String? = nil, line: Polyline, direction: DirectionFilter = .both) {
    self.id = id
    self.name = name
    self.line = line
    self.direction = direction
  }
}
