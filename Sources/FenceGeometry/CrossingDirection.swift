/// The way a movement crosses a polyline, relative to walking the polyline from its first vertex
/// to its last.
///
/// Coded as its raw value, as the `direction` member of event lines.
public enum CrossingDirection: String, Hashable, Sendable, CaseIterable, Codable {
  /// From the left-hand side (or from on the line) to the right-hand side.
  case leftToRight
  /// From the right-hand side onto or past the line.
  case rightToLeft
}
