import FenceEngine

/// Writes ``JSONValue``s as compact JSON text (RFC 8259), object keys in their stored order.
///
/// - Strings: `"` and `\` are escaped, as are control characters (`\n`, `\r`, `\t`, `\b`, `\f`,
///   else `\u00XX`); everything else, non-ASCII included, is written as UTF-8. `/` is not
///   escaped.
/// - Numbers: a whole number of magnitude below 2^53 is written without a fraction (`300`,
///   `-2`); any other finite number in the shortest form that reads back to the same `Double`
///   (Swift's `description`: `40.6442`, `1e-05`, `1e+20`). NaN and infinities, which JSON
///   cannot hold, are written as `null`.
public enum JSONWriter {
  /// The compact JSON text of a value.
  public static func string(_ value: JSONValue) -> String {
    var bytes: [UInt8] = []
    append(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the compact JSON text of a value.
  public static func append(_ value: JSONValue, to out: inout String) {
    out += string(value)
  }

  /// Appends the compact JSON text of an object.
  public static func append(_ object: JSONObject, to out: inout String) {
    var bytes: [UInt8] = []
    append(object, to: &bytes)
    out += String(decoding: bytes, as: UTF8.self)
  }

  /// Appends a JSON string literal.
  public static func appendString(_ s: String, to out: inout String) {
    var bytes: [UInt8] = []
    appendString(s, to: &bytes)
    out += String(decoding: bytes, as: UTF8.self)
  }

  // MARK: UTF-8 bytes (what the string forms above are made of)

  /// Appends the compact JSON text of a value as UTF-8.
  public static func append(_ value: JSONValue, to out: inout [UInt8]) {
    switch value {
    case .null: appendASCII("null", to: &out)
    case .bool(let b): appendASCII(b ? "true" : "false", to: &out)
    case .number(let x): appendNumber(x, to: &out)
    case .string(let s): appendString(s, to: &out)
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        append(element, to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let object): append(object, to: &out)
    }
  }

  /// Appends the compact JSON text of an object as UTF-8.
  public static func append(_ object: JSONObject, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "{"))
    for (index, member) in object.members.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      appendString(member.key, to: &out)
      out.append(UInt8(ascii: ":"))
      append(member.value, to: &out)
    }
    out.append(UInt8(ascii: "}"))
  }

  /// Appends a JSON string literal as UTF-8.
  public static func appendString(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var s = s
    s.withUTF8 { units in
      var plainStart = 0
      for (index, unit) in units.enumerated() where unit < 0x20 || unit == 0x22 || unit == 0x5C {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: units[plainStart..<index]))
        plainStart = index + 1
        switch unit {
        case 0x22: appendASCII("\\\"", to: &out)
        case 0x5C: appendASCII("\\\\", to: &out)
        case 0x0A: appendASCII("\\n", to: &out)
        case 0x0D: appendASCII("\\r", to: &out)
        case 0x09: appendASCII("\\t", to: &out)
        case 0x08: appendASCII("\\b", to: &out)
        case 0x0C: appendASCII("\\f", to: &out)
        default:
          let hex: StaticString = "0123456789ABCDEF"
          appendASCII("\\u00", to: &out)
          hex.withUTF8Buffer { digits in
            out.append(digits[Int(unit >> 4)])
            out.append(digits[Int(unit & 0xF)])
          }
        }
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: units[plainStart...]))
    }
    out.append(UInt8(ascii: "\""))
  }

  /// Appends the JSON text of a number (see the type's discussion) as UTF-8.
  public static func appendNumber(_ x: Double, to out: inout [UInt8]) {
    guard x.isFinite else { return appendASCII("null", to: &out) }
    if x == x.rounded(.towardZero), abs(x) < 9_007_199_254_740_992 {
      if x == 0, x.sign == .minus { return appendASCII("-0", to: &out) }
      return appendInteger(Int64(x), to: &out)
    }
    out.append(contentsOf: x.description.utf8)
  }

  /// Appends the decimal digits of an integer (with `-` when negative).
  public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    if magnitude < 10 { return out.append(UInt8(ascii: "0") + UInt8(magnitude)) }
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var count = 0
      while magnitude > 0 {
        digits[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
        count += 1
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
    }
  }

  /// Appends ASCII text given as a literal.
  @inline(__always)
  static func appendASCII(_ text: StaticString, to out: inout [UInt8]) {
    text.withUTF8Buffer { out.append(contentsOf: $0) }
  }

  /// The JSON text of a number (see the type's discussion); `null` when not finite.
  public static func numberText(_ x: Double) -> String {
    var bytes: [UInt8] = []
    appendNumber(x, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The JSON text of a number that always shows a fraction when whole (`754.0`), as the
  /// spec's example shows `durationSeconds`.
  public static func decimalNumberText(_ x: Double) -> String {
    var bytes: [UInt8] = []
    appendDecimalNumber(x, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends a number as ``decimalNumberText(_:)`` writes it, as UTF-8.
  public static func appendDecimalNumber(_ x: Double, to out: inout [UInt8]) {
    guard x.isFinite else { return appendASCII("null", to: &out) }
    if x == x.rounded(.towardZero), abs(x) < 9_007_199_254_740_992 {
      appendInteger(Int64(x), to: &out)
      return appendASCII(".0", to: &out)
    }
    out.append(contentsOf: x.description.utf8)
  }
}
