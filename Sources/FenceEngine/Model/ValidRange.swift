/// The values the engine accepts for every duration, distance, speed and count it is given.
///
/// Each is checked where it enters: ``ZoneEvaluator/add(_:)`` for zone rules (a ``ZoneError``),
/// ``ZoneEvaluator/Configuration/validate()`` for the engine's settings, the zone loader for
/// zone files, and `fencebench`'s and `fenced`'s options. The bounds are far beyond any real
/// use and keep every time the engine computes (a fix time plus a dwell, say) well inside the
/// range of ``Timestamp``'s microseconds, so that no arithmetic can overflow.
public enum ValidRange {
  /// Durations in seconds (minimum retrigger time, dwell): 0 to 1,000,000,000 s (31.7 years).
  public static let duration: ClosedRange<Double> = 0...1_000_000_000
  /// Distances in metres (circle and point radius, exit hysteresis, proximity radius, maximum
  /// accuracy): 0 to 10,000,000 m, a quarter of the Earth's circumference. Radii and the
  /// maximum accuracy must also be above 0.
  public static let distance: ClosedRange<Double> = 0...10_000_000
  /// Speeds in metres per second (the implausible-speed limit): above 0, at most 299,792,458
  /// (the speed of light).
  public static let speed: ClosedRange<Double> = 0...299_792_458
  /// Consecutive fixes outside needed to check out: 1 to 1,000,000.
  public static let exitConfirmations: ClosedRange<Int> = 1...1_000_000
  /// Regions monitored per device (proximity monitoring): 1 to 1,000,000.
  public static let monitoredCount: ClosedRange<Int> = 1...1_000_000

  /// `"from 0 to 1000000000"`: a range as an error message says it.
  public static func describe(_ range: ClosedRange<Double>) -> String {
    "from \(plain(range.lowerBound)) to \(plain(range.upperBound))"
  }

  public static func describe(_ range: ClosedRange<Int>) -> String {
    "from \(range.lowerBound) to \(range.upperBound)"
  }

  /// A whole number without a fraction (`1000000000`), else the number's description.
  public static func plain(_ x: Double) -> String {
    x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
  }
}
