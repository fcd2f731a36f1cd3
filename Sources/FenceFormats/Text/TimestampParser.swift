import FenceEngine

/// Parsing of the instants that track files hold, straight from UTF-8 bytes.
///
/// Accepted forms (surrounding spaces are ignored):
/// - RFC 3339 / ISO 8601 date-times: `2020-06-30T00:01:10Z`, with `T`, `t` or a space between
///   date and time; seconds optional (`2020-06-30T00:01Z`); any number of fractional-second
///   digits after `.` or `,` (rounded to the nearest microsecond); a zone `Z`/`z`, `+hh:mm`,
///   `+hhmm` or `+hh` (either sign), or none, which means UTC. A date alone
///   (`2020-06-30`) is its midnight UTC.
/// - Epoch seconds as a decimal number (`1593475270`, `1593475270.25`, `-5`); a value whose
///   magnitude is above 1e11 is taken as epoch **milliseconds** (1e11 s is the year 5138, while
///   1e11 ms is 1973).
///
/// A second of 60 (a leap second) is accepted and, as in POSIX time, equals second 0 of the
/// next minute.
public enum TimestampParser {
  /// The instant the bytes denote, or `nil` when they are in none of the accepted forms.
  public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    var start = 0
    var end = bytes.count
    while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
    while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
    guard end > start else { return nil }
    let trimmed = UnsafeBufferPointer(rebasing: bytes[start..<end])
    if trimmed.count >= 10, trimmed[4] == UInt8(ascii: "-"), trimmed[7] == UInt8(ascii: "-") {
      return parseDateTime(trimmed)
    }
    guard let seconds = DecimalNumber.parse(trimmed) else { return nil }
    return fromEpochNumber(seconds)
  }

  /// The instant a text denotes, or `nil`.
  public static func parse(_ text: String) -> Timestamp? {
    var text = text
    return text.withUTF8 { parse($0) }
  }

  /// The instant of an epoch number: seconds, or milliseconds when its magnitude is above 1e11.
  public static func fromEpochNumber(_ value: Double) -> Timestamp? {
    guard value.isFinite else { return nil }
    let seconds = abs(value) > 1e11 ? value / 1000 : value
    // Keep within what Int64 microseconds can hold (about ±292,000 years).
    guard abs(seconds) < 9.2e12 else { return nil }
    return Timestamp(secondsSinceEpoch: seconds)
  }

  private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int64? {
    guard at + count <= b.count else { return nil }
    var value: Int64 = 0
    for index in at..<(at + count) {
      let d = b[index] &- 48
      if d > 9 { return nil }
      value = value * 10 + Int64(d)
    }
    return value
  }

  private static func parseDateTime(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
      (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
    else { return nil }
    let days = RFC3339.daysSinceEpoch(year: year, month: month, day: day)
    var seconds = days * 86_400
    if b.count == 10 { return Timestamp(microsecondsSinceEpoch: seconds * 1_000_000) }
    let separator = b[10]
    guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == 0x20,
      b.count >= 16, let hour = digits(b, 11, 2), b[13] == UInt8(ascii: ":"),
      let minute = digits(b, 14, 2), hour <= 24, minute <= 59
    else { return nil }
    var i = 16
    var second: Int64 = 0
    var micros: Int64 = 0
    if i < b.count, b[i] == UInt8(ascii: ":") {
      guard let s = digits(b, i + 1, 2), s <= 60 else { return nil }
      second = s
      i += 3
      if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
        i += 1
        var fractionDigits = 0
        var roundUp = false
        while i < b.count {
          let d = b[i] &- 48
          if d > 9 { break }
          if fractionDigits < 6 {
            micros = micros * 10 + Int64(d)
          } else if fractionDigits == 6 {
            roundUp = d >= 5
          }
          fractionDigits += 1
          i += 1
        }
        guard fractionDigits > 0 else { return nil }
        for _ in fractionDigits..<max(fractionDigits, 6) { micros *= 10 }
        if roundUp { micros += 1 }
      }
    }
    if hour == 24 { guard minute == 0, second == 0, micros == 0 else { return nil } }
    seconds += hour * 3600 + minute * 60 + second
    // Zone.
    var offset: Int64 = 0
    if i < b.count {
      let z = b[i]
      if z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") {
        i += 1
      } else if z == UInt8(ascii: "+") || z == UInt8(ascii: "-") {
        guard let oh = digits(b, i + 1, 2), oh <= 23 else { return nil }
        i += 3
        var om: Int64 = 0
        if i < b.count {
          if b[i] == UInt8(ascii: ":") { i += 1 }
          guard let m = digits(b, i, 2), m <= 59 else { return nil }
          om = m
          i += 2
        }
        offset = (oh * 3600 + om * 60) * (z == UInt8(ascii: "-") ? -1 : 1)
      } else {
        return nil
      }
    }
    guard i == b.count else { return nil }
    return Timestamp(microsecondsSinceEpoch: (seconds - offset) * 1_000_000 + micros)
  }

  private static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2:
      let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      return leap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}
