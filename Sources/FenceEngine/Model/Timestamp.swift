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
  ///
  /// Beyond the microseconds' range (about ±292,000 years) the instant is the range's end;
  /// NaN is the epoch. (Readers refuse such times before they get here; this only keeps the
  /// conversion from trapping.)
  @inlinable
  public init(secondsSinceEpoch seconds: Double) {
    self.microsecondsSinceEpoch = Self.saturatingMicroseconds(seconds)
  }

  /// `seconds` as whole microseconds, rounded, clamped to `Int64`'s range (NaN is 0).
  @inlinable
  static func saturatingMicroseconds(_ seconds: Double) -> Int64 {
    let micros = (seconds * 1_000_000).rounded()
    // 2^63 is exactly representable; every double below it converts.
    if micros >= 9_223_372_036_854_775_808.0 { return .max }
    if micros <= -9_223_372_036_854_775_808.0 { return .min }
    if micros.isNaN { return 0 }
    return Int64(micros)
  }

  /// Seconds since the epoch.
  @inlinable
  public var secondsSinceEpoch: Double { Double(microsecondsSinceEpoch) / 1_000_000 }

  /// This instant moved by `seconds` (rounded to the nearest microsecond), stopping at the
  /// ends of the microseconds' range instead of overflowing.
  @inlinable
  public func adding(seconds: Double) -> Timestamp {
    let (sum, overflow) = microsecondsSinceEpoch.addingReportingOverflow(
      Self.saturatingMicroseconds(seconds))
    guard overflow else { return Timestamp(microsecondsSinceEpoch: sum) }
    return Timestamp(microsecondsSinceEpoch: seconds > 0 ? .max : .min)
  }

  /// Seconds from `other` to this instant (positive when this one is later); exact to the
  /// microsecond whenever the difference fits in 64 bits, else as close as a `Double` gets.
  @inlinable
  public func seconds(since other: Timestamp) -> Double {
    let (difference, overflow) = microsecondsSinceEpoch.subtractingReportingOverflow(
      other.microsecondsSinceEpoch)
    guard overflow else { return Double(difference) / 1_000_000 }
    return (Double(microsecondsSinceEpoch) - Double(other.microsecondsSinceEpoch)) / 1_000_000
  }

  @inlinable
  public static func < (a: Timestamp, b: Timestamp) -> Bool {
    a.microsecondsSinceEpoch < b.microsecondsSinceEpoch
  }

  public var description: String { RFC3339.format(self) }
}
