/// Where a CSV scanner is within a record, as far as quoting goes (RFC 4180).
///
/// A `"` opens a quoted field only at the start of a field (after blanks); anywhere else it is
/// an ordinary byte. Inside a quoted field `""` is a literal quote and a newline does not end
/// the record. This is the same reading ``CSVTrackParser/split(_:delimiter:limit:_:)`` makes,
/// so the record boundaries and the fields always agree.
enum CSVQuoteState: Equatable {
  /// At the start of a field, possibly after blanks.
  case fieldStart
  /// Inside a field that did not start with a quote.
  case unquoted
  /// Inside a quoted field.
  case quoted
  /// Just after a `"` inside a quoted field: the closing quote, or the first of `""`.
  case quoteSeen
  /// After the closing quote of a field, before the next delimiter (such bytes are ignored).
  case afterQuoted

  /// Whether `byte` is a blank that is trimmed around fields: a space or a tab, unless it is
  /// the delimiter itself (tab-separated files).
  @inline(__always)
  static func isBlank(_ byte: UInt8, delimiter: UInt8) -> Bool {
    (byte == 0x20 || byte == 0x09) && byte != delimiter
  }

  /// The state after `count` bytes at `bytes`, none of them a newline outside quotes.
  ///
  /// - Complexity: O(`count`).
  static func scan(
    _ bytes: UnsafePointer<UInt8>, count: Int, delimiter: UInt8, from state: CSVQuoteState
  ) -> CSVQuoteState {
    var state = state
    for index in 0..<count {
      let byte = bytes[index]
      switch state {
      case .fieldStart:
        if byte == delimiter {
          state = .fieldStart
        } else if byte == 0x22 {
          state = .quoted
        } else if !isBlank(byte, delimiter: delimiter) {
          state = .unquoted
        }
      case .unquoted:
        if byte == delimiter { state = .fieldStart }
      case .quoted:
        if byte == 0x22 { state = .quoteSeen }
      case .quoteSeen:
        if byte == 0x22 {
          state = .quoted
        } else if byte == delimiter {
          state = .fieldStart
        } else {
          state = .afterQuoted
        }
      case .afterQuoted:
        if byte == delimiter { state = .fieldStart }
      }
    }
    return state
  }
}
