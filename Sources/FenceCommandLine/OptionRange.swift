import ArgumentParser
import FenceEngine

/// Range checks of command-line numbers, worded the same everywhere:
/// `--dwell must be a number of seconds above 0 and at most 1000000000, got -5.`
public enum OptionRange {
  /// Throws a `ValidationError` when `value` is outside `range` (or NaN, or 0 when `aboveZero`).
  public static func check(
    _ option: String, _ value: Double, _ range: ClosedRange<Double>, unit: String, aboveZero: Bool = false
  ) throws {
    let ok = range.contains(value) && (!aboveZero || value > 0)
    guard !ok else { return }
    let low = aboveZero ? "above \(ValidRange.plain(range.lowerBound))" : "from \(ValidRange.plain(range.lowerBound))"
    let high = aboveZero ? "and at most \(ValidRange.plain(range.upperBound))" : "to \(ValidRange.plain(range.upperBound))"
    throw ValidationError("\(option) must be a number of \(unit) \(low) \(high), got \(ValidRange.plain(value)).")
  }

  /// Throws a `ValidationError` when `value` is outside `range`.
  public static func check(_ option: String, _ value: Int, _ range: ClosedRange<Int>) throws {
    guard !range.contains(value) else { return }
    throw ValidationError(
      "\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(value).")
  }
}
