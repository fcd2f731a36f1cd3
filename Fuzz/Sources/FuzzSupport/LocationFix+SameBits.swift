import FenceEngine

extension LocationFix {
  /// Whether two fixes are the same down to the bits of every number, so that a NaN read from
  /// the same text counts as the same value (`==` says NaN is never equal to itself).
  public func hasSameBits(as other: LocationFix) -> Bool {
    func same(_ a: Double?, _ b: Double?) -> Bool { a?.bitPattern == b?.bitPattern }
    return device == other.device && time == other.time
      && latitude.bitPattern == other.latitude.bitPattern
      && longitude.bitPattern == other.longitude.bitPattern && same(accuracy, other.accuracy)
      && same(speed, other.speed) && same(course, other.course)
  }
}

/// Whether two lists of fixes are the same fix by fix (see ``FenceEngine/LocationFix/hasSameBits(as:)``).
public func haveSameBits(_ a: [LocationFix], _ b: [LocationFix]) -> Bool {
  a.count == b.count && zip(a, b).allSatisfy { $0.hasSameBits(as: $1) }
}
