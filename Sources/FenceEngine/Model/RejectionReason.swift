/// Why the engine rejected a fix (no state change, no event; counted and reportable).
public enum RejectionReason: String, CaseIterable, Hashable, Sendable, Codable {
  /// A coordinate is not finite, or out of range.
  case invalidCoordinate
  /// Latitude and longitude are both exactly 0.
  case nullIsland
  /// Earlier than the device's last accepted fix.
  case outOfOrder
  /// At the same time as the device's last accepted fix.
  case duplicate
  /// `accuracy` is larger than the engine's maximum accuracy.
  case lowAccuracy
  /// The implied speed from the device's last accepted fix exceeds the configured maximum.
  case implausibleSpeed
}
