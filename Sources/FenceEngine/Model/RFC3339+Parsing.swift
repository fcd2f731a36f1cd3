extension RFC3339 {
  /// The instant an RFC 3339 date-time denotes, or `nil` when the text is not one.
  ///
  /// Strict: `YYYY-MM-DDTHH:MM:SS`, optionally `.` and one or more fractional digits, then `Z`
  /// or an offset `+hh:mm` / `-hh:mm` (`T` and `Z` may be lowercase). The date must exist
  /// (2021-02-29 does not), and the year has exactly four digits, so instants before year 0
  /// or after 9999, which ``format(_:)`` writes with more digits or a sign, do not read back.
  /// Fractions beyond microseconds are rounded to the nearest microsecond (half up). Second 60
  /// (a leap second) reads as second 0 of the next minute, as POSIX time counts it.
  ///
  /// This is what `Codable` reads times with. Track files, which hold looser forms (a space
  /// for `T`, no zone, epoch seconds), are read by `FenceFormats`' `TimestampParser`.
  public static func parse(_ text: String) -> Timestamp? {
    var text = text
    return text.withUTF8 { parse(bytes: $0) }
  }

  private static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    func number(_ at: Int, _ count: Int) -> Int64? {
      guard at + count <= b.count else { return nil }
      var value: Int64 = 0
      for index in at..<(at + count) {
        let digit = b[index] &- UInt8(ascii: "0")
        guard digit <= 9 else { return nil }
        value = value * 10 + Int64(digit)
      }
      return value
    }
    func byte(_ at: Int, is ascii: Unicode.Scalar) -> Bool {
      at < b.count && b[at] == UInt8(ascii: ascii)
    }
    guard let year = number(0, 4), byte(4, is: "-"), let month = number(5, 2), byte(7, is: "-"),
      let day = number(8, 2), (1...12).contains(month), day >= 1,
      day <= daysIn(month: month, year: year),
      byte(10, is: "T") || byte(10, is: "t"),
      let hour = number(11, 2), byte(13, is: ":"), let minute = number(14, 2), byte(16, is: ":"),
      let second = number(17, 2), hour <= 23, minute <= 59, second <= 60
    else { return nil }
    var index = 19
    var micros: Int64 = 0
    if byte(index, is: ".") {
      index += 1
      var digitCount = 0
      var roundsUp = false
      while index < b.count, b[index] &- UInt8(ascii: "0") <= 9 {
        let digit = Int64(b[index] &- UInt8(ascii: "0"))
        if digitCount < 6 {
          micros = micros * 10 + digit
        } else if digitCount == 6 {
          roundsUp = digit >= 5
        }
        digitCount += 1
        index += 1
      }
      guard digitCount > 0 else { return nil }
      for _ in digitCount..<max(digitCount, 6) { micros *= 10 }
      if roundsUp { micros += 1 }
    }
    var offsetSeconds: Int64 = 0
    if byte(index, is: "Z") || byte(index, is: "z") {
      index += 1
    } else if byte(index, is: "+") || byte(index, is: "-") {
      guard let offsetHour = number(index + 1, 2), byte(index + 3, is: ":"),
        let offsetMinute = number(index + 4, 2), offsetHour <= 23, offsetMinute <= 59
      else { return nil }
      offsetSeconds = (offsetHour * 3600 + offsetMinute * 60) * (byte(index, is: "-") ? -1 : 1)
      index += 6
    } else {
      return nil
    }
    guard index == b.count else { return nil }
    let days = daysSinceEpoch(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
    return Timestamp(microsecondsSinceEpoch: seconds * 1_000_000 + micros)
  }

  private static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}
