/// Formatting of instants as RFC 3339 UTC text, without Foundation's date formatters.
///
/// `2020-06-30T00:01:10Z`, with fractional seconds only when the instant is not a whole second
/// (`2020-06-30T00:01:10.25Z`, trailing zeros trimmed, at most 6 digits).
public enum RFC3339 {
  /// The RFC 3339 text of an instant in UTC with a `Z`.
  public static func format(_ t: Timestamp) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(27)
    append(t, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the UTF-8 bytes of ``format(_:)`` (what event encoding uses, without a `String`).
  public static func append(_ t: Timestamp, to out: inout [UInt8]) {
    let micros = t.microsecondsSinceEpoch
    var seconds = micros / 1_000_000
    var fraction = micros % 1_000_000
    if fraction < 0 {
      fraction += 1_000_000
      seconds -= 1
    }
    var days = seconds / 86_400
    var secondOfDay = seconds % 86_400
    if secondOfDay < 0 {
      secondOfDay += 86_400
      days -= 1
    }
    let (year, month, day) = civilDate(daysSinceEpoch: days)
    if year < 0 || year > 9999 {
      // Outside four digits: the sign and every digit, padded to four.
      if year < 0 { out.append(UInt8(ascii: "-")) }
      let digits = String(year.magnitude)
      out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 4 - digits.utf8.count)))
      out.append(contentsOf: digits.utf8)
    } else {
      appendDigits(year, 4, to: &out)
    }
    out.append(UInt8(ascii: "-"))
    appendDigits(month, 2, to: &out)
    out.append(UInt8(ascii: "-"))
    appendDigits(day, 2, to: &out)
    out.append(UInt8(ascii: "T"))
    appendDigits(secondOfDay / 3600, 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendDigits(secondOfDay / 60 % 60, 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendDigits(secondOfDay % 60, 2, to: &out)
    if fraction != 0 {
      out.append(UInt8(ascii: "."))
      var width = 6
      while fraction % 10 == 0 {
        fraction /= 10
        width -= 1
      }
      appendDigits(fraction, width, to: &out)
    }
    out.append(UInt8(ascii: "Z"))
  }

  /// Appends exactly `width` decimal digits of a value in `0 ..< 10^width`.
  @inline(__always)
  private static func appendDigits(_ value: Int64, _ width: Int, to out: inout [UInt8]) {
    var divisor: Int64 = 1
    for _ in 1..<width { divisor *= 10 }
    var rest = value
    while divisor > 0 {
      out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
      rest %= divisor
      divisor /= 10
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
  public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The proleptic Gregorian date of a day count since 1970-01-01 (civil_from_days).
  public static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = daysSinceEpoch + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
