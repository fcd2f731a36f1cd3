/// A timestamp is coded as its RFC 3339 text in UTC, as events and fixes write it:
/// `"2020-06-30T00:01:10Z"`, with a fraction only when the instant is not a whole second.
extension Timestamp: Codable {
  /// Reads an RFC 3339 date-time string (see ``RFC3339/parse(_:)``: any offset, any number of
  /// fractional digits).
  ///
  /// - Throws: `DecodingError.dataCorrupted` when the string is not an RFC 3339 date-time.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let instant = RFC3339.parse(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "expected an RFC 3339 date-time, got \"\(text)\"")
    }
    self = instant
  }

  /// Writes ``RFC3339/format(_:)``.
  ///
  /// - Throws: `EncodingError.invalidValue` for an instant before year 0 or after year 9999,
  ///   which RFC 3339's four-digit years cannot write (so decoding could not read it back).
  public func encode(to encoder: any Encoder) throws {
    let firstMicrosecond: Int64 = -62_167_219_200_000_000  // 0000-01-01T00:00:00Z
    let lastMicrosecond: Int64 = 253_402_300_799_999_999  // 9999-12-31T23:59:59.999999Z
    guard (firstMicrosecond...lastMicrosecond).contains(microsecondsSinceEpoch) else {
      throw EncodingError.invalidValue(
        self,
        EncodingError.Context(
          codingPath: encoder.codingPath,
          debugDescription: "RFC 3339 has no text for \(self): its year is not 0000 to 9999"))
    }
    var container = encoder.singleValueContainer()
    try container.encode(RFC3339.format(self))
  }
}
