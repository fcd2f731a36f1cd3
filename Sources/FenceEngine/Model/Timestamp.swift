/// An instant, as whole microseconds since 1970-01-01T00:00:00Z (UTC, no leap seconds).
///
/// Integer microseconds keep time arithmetic exact and replays bit-for-bit deterministic;
/// interpolated GEOLINE crossing times are rounded to the nearest microsecond.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Whole microseconds since 1970-01-01T00:00:00Z; negative before it.
  public var microsecondsSinceEpoch: Int64

  /// An instant from whole microseconds since the epoch.
  @inlinable
  public init(microsecondsSinceEpoch: Int64) {
    self.microsecondsSinceEpoch = microsecondsSinceEpoch
  }

  /// An instant from seconds since the epoch, rounded to the nearest microsecond.
  @inlinable
  public init(secondsSinceEpoch seconds: Double) {
    self.microsecondsSinceEpoch = Int64((seconds * 1_000_000).rounded())
  }

  /// Seconds since the epoch.
  @inlinable
  public var secondsSinceEpoch: Double { Double(microsecondsSinceEpoch) / 1_000_000 }

  /// This instant moved by `seconds` (rounded to the nearest microsecond).
  @inlinable
  public func adding(seconds: Double) -> Timestamp {
    Timestamp(microsecondsSinceEpoch: microsecondsSinceEpoch + Int64((seconds * 1_000_000).rounded()))
  }

  /// Seconds from `other` to this instant (positive when this one is later).
  @inlinable
  public func seconds(since other: Timestamp) -> Double {
    Double(microsecondsSinceEpoch - other.microsecondsSinceEpoch) / 1_000_000
  }

  @inlinable
  public static func < (a: Timestamp, b: Timestamp) -> Bool {
    a.microsecondsSinceEpoch < b.microsecondsSinceEpoch
  }

  public var description: String { RFC3339.format(self) }
}
