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
    var out = ""
    append(value, to: &out)
    return out
  }

  /// Appends the compact JSON text of a value.
  public static func append(_ value: JSONValue, to out: inout String) {
    switch value {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let x): out += numberText(x)
    case .string(let s): appendString(s, to: &out)
    case .array(let elements):
      out += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { out += "," }
        append(element, to: &out)
      }
      out += "]"
    case .object(let object): append(object, to: &out)
    }
  }

  /// Appends the compact JSON text of an object.
  public static func append(_ object: JSONObject, to out: inout String) {
    out += "{"
    for (index, member) in object.members.enumerated() {
      if index > 0 { out += "," }
      appendString(member.key, to: &out)
      out += ":"
      append(member.value, to: &out)
    }
    out += "}"
  }

  /// The JSON text of a number (see the type's discussion); `null` when not finite.
  public static func numberText(_ x: Double) -> String {
    guard x.isFinite else { return "null" }
    if x == x.rounded(.towardZero), abs(x) < 9_007_199_254_740_992 {
      if x == 0 { return x.sign == .minus ? "-0" : "0" }
      return String(Int64(x))
    }
    return x.description
  }

  /// The JSON text of a number that always shows a fraction when whole (`754.0`), as the
  /// spec's example shows `durationSeconds`.
  public static func decimalNumberText(_ x: Double) -> String {
    guard x.isFinite else { return "null" }
    if x == x.rounded(.towardZero), abs(x) < 9_007_199_254_740_992 {
      return String(Int64(x)) + ".0"
    }
    return x.description
  }

  /// Appends a JSON string literal.
  public static func appendString(_ s: String, to out: inout String) {
    out += "\""
    var needsEscape = false
    for unit in s.utf8 where unit < 0x20 || unit == 0x22 || unit == 0x5C {
      needsEscape = true
      break
    }
    if !needsEscape {
      out += s
    } else {
      for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        default:
          if scalar.value < 0x20 {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
          } else {
            out.unicodeScalars.append(scalar)
          }
        }
      }
    }
    out += "\""
  }
}
