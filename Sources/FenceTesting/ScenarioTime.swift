/// A time in a scenario, written the way a timeline is read.
///
/// - A string literal is a time of the scenario's day, `"10:00:00"`, `"10:00"` or
///   `"10:00:07.25"` (hours may exceed 23 to run into the next day), or an RFC 3339 UTC instant,
///   `"2026-01-05T10:00:00Z"`.
/// - A number literal is seconds after the scenario's origin (by default midnight of its day).
/// - ``instant(_:)`` is an engine ``Timestamp``.
///
/// Text is checked when the scenario runs: a time that does not parse makes
/// ``Scenario/run(until:)`` throw a ``ScenarioError`` quoting it, and an expected event with
/// such a time makes the comparison fail with a line that quotes it.
public enum ScenarioTime: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
  /// A time of the scenario's day or an RFC 3339 UTC instant.
  case text(String)
  /// Seconds after the scenario's origin.
  case offset(Double)
  /// An absolute instant.
  case instant(Timestamp)

  public init(stringLiteral value: String) { self = .text(value) }
  public init(integerLiteral value: Int) { self = .offset(Double(value)) }
  public init(floatLiteral value: Double) { self = .offset(value) }

  public var description: String {
    switch self {
    case .text(let text): return text
    case .offset(let seconds): return "origin + \(seconds) s"
    case .instant(let time): return RFC3339.format(time)
    }
  }
}

/// Parsers for the texts of ``ScenarioTime`` and ``ScenarioClock``.
enum ScenarioTimeText {
  /// Microseconds after midnight of `HH:MM`, `HH:MM:SS` or `HH:MM:SS.ffffff` (up to 6 digits).
  static func microsecondsOfDay(_ text: String) -> Int64? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3 else { return nil }
    guard let hours = digits(parts[0], minCount: 1, maxCount: 3),
      let minutes = digits(parts[1], minCount: 2, maxCount: 2), minutes < 60
    else { return nil }
    var micros = (hours * 3600 + minutes * 60) * 1_000_000
    if parts.count == 3 {
      let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false)
      guard secondParts.count <= 2, let seconds = digits(secondParts[0], minCount: 2, maxCount: 2),
        seconds < 60
      else { return nil }
      micros += seconds * 1_000_000
      if secondParts.count == 2 {
        let fraction = secondParts[1]
        guard let value = digits(fraction, minCount: 1, maxCount: 6) else { return nil }
        var scaled = value
        for _ in fraction.count..<6 { scaled *= 10 }
        micros += scaled
      }
    }
    return micros
  }

  /// Days since 1970-01-01 of `YYYY-MM-DD`.
  static func daysSinceEpoch(_ text: Substring) -> Int64? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, let year = digits(parts[0], minCount: 4, maxCount: 4),
      let month = digits(parts[1], minCount: 2, maxCount: 2),
      let day = digits(parts[2], minCount: 2, maxCount: 2),
      (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month)
    else { return nil }
    return RFC3339.daysSinceEpoch(year: year, month: month, day: day)
  }

  /// The instant of `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` (or `+00:00`).
  static func instant(_ text: String) -> Timestamp? {
    guard let t = text.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return nil }
    var clock = text[text.index(after: t)...]
    if clock.hasSuffix("Z") || clock.hasSuffix("z") {
      clock = clock.dropLast()
    } else if clock.hasSuffix("+00:00") {
      clock = clock.dropLast(6)
    } else {
      return nil
    }
    guard let days = daysSinceEpoch(text[..<t]), let micros = microsecondsOfDay(String(clock)),
      micros < 86_400_000_000
    else { return nil }
    return Timestamp(microsecondsSinceEpoch: days * 86_400_000_000 + micros)
  }

  private static func digits(_ text: Substring, minCount: Int, maxCount: Int) -> Int64? {
    guard text.count >= minCount, text.count <= maxCount,
      text.allSatisfy({ $0.isASCII && $0.isNumber })
    else { return nil }
    return Int64(text)
  }

  private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 2:
      let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      return isLeap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}
