/// Parsing of decimal numbers straight from UTF-8 bytes, correctly rounded.
///
/// Accepts `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`); no spaces, no `nan`,
/// no `inf`, no hexadecimal. Numbers with at most 15 significant digits and a small decimal
/// exponent (the usual case: coordinates, speeds, epoch seconds) take Clinger's exact fast path
/// (one multiplication or division of two exact doubles); the rest go to the standard library's
/// `Double(_: String)`, which rounds correctly as well and ignores the C locale.
enum DecimalNumber {
  /// Exact powers of ten as doubles (10^0 ... 10^22 are exactly representable).
  private static let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// The value of the bytes, or `nil` when they are not exactly one decimal number.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    let count = bytes.count
    var i = 0
    guard count > 0 else { return nil }
    var negative = false
    if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
      negative = bytes[0] == UInt8(ascii: "-")
      i = 1
    }
    var mantissa: UInt64 = 0
    var significantDigits = 0
    var decimalExponent = 0
    var digitCount = 0
    var truncated = false
    // Integer part.
    while i < count {
      let d = bytes[i] &- 48
      if d > 9 { break }
      digitCount += 1
      if mantissa == 0 && d == 0 {
        // leading zero: not significant
      } else if significantDigits < 19 {
        mantissa = mantissa &* 10 &+ UInt64(d)
        significantDigits += 1
      } else {
        decimalExponent += 1
        truncated = true
      }
      i += 1
    }
    if i < count && bytes[i] == UInt8(ascii: ".") {
      i += 1
      while i < count {
        let d = bytes[i] &- 48
        if d > 9 { break }
        digitCount += 1
        if mantissa == 0 && d == 0 {
          decimalExponent -= 1
        } else if significantDigits < 19 {
          mantissa = mantissa &* 10 &+ UInt64(d)
          significantDigits += 1
          decimalExponent -= 1
        } else if d != 0 {
          truncated = true
        }
        i += 1
      }
    }
    guard digitCount > 0 else { return nil }
    if i < count && (bytes[i] | 0x20) == UInt8(ascii: "e") {
      i += 1
      var exponentNegative = false
      if i < count && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
        exponentNegative = bytes[i] == UInt8(ascii: "-")
        i += 1
      }
      var exponent = 0
      var exponentDigits = 0
      while i < count {
        let d = bytes[i] &- 48
        if d > 9 { break }
        if exponent < 100_000 { exponent = exponent * 10 + Int(d) }
        exponentDigits += 1
        i += 1
      }
      guard exponentDigits > 0 else { return nil }
      decimalExponent += exponentNegative ? -exponent : exponent
    }
    guard i == count else { return nil }
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    if !truncated && mantissa < (1 << 53) && decimalExponent >= -22 && decimalExponent <= 22 {
      var value = Double(mantissa)
      if decimalExponent < 0 {
        value /= powersOfTen[-decimalExponent]
      } else {
        value *= powersOfTen[decimalExponent]
      }
      return negative ? -value : value
    }
    return slowParse(bytes)
  }

  /// The value of an ASCII string that is exactly one decimal number.
  static func parse(_ text: String) -> Double? {
    var text = text
    return text.withUTF8 { parse($0) }
  }

  /// Correctly rounded conversion by the standard library, for long or extreme numbers.
  ///
  /// `Double(_: String)` always reads `.` as the decimal point, whatever the C locale, unlike
  /// `strtod`.
  private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    // The grammar was checked by the caller, so only a plain decimal number arrives here.
    Double(String(decoding: bytes, as: UTF8.self))
  }
}
