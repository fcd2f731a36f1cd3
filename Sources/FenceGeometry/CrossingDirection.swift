/// The way a movement crosses a polyline, relative to walking the polyline from its first vertex
/// to its last.
public enum CrossingDirection: String, Hashable, Sendable, CaseIterable {
  /// From the left-hand side (or from on the line) to the right-hand side.
  case leftToRight
  /// From the right-hand side onto or past the line.
  case rightToLeft
}
