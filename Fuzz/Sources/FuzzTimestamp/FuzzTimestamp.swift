import FenceEngine
import FenceFormats
import FuzzSupport

/// ``TimestampParser`` (RFC 3339 date-times and epoch numbers) on any bytes. Besides never
/// trapping:
///
/// - the `String` entry gives what the bytes entry gives for the same UTF-8;
/// - surrounding spaces and tabs change nothing;
/// - an instant's ``RFC3339`` text, when its year has four digits, parses back to that instant;
/// - the first eight bytes as a `Double` epoch number give an instant or `nil`, never a trap,
///   and its text parses back too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamp(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let parsed = TimestampParser.parse(bytes)

  if let text = String(validating: bytes, as: UTF8.self) {
    fuzzCheck(TimestampParser.parse(text) == parsed, "the String entry disagrees on \(text.debugDescription)")
  }
  let padded = [0x20, 0x09] + Array(bytes) + [0x09, 0x20]
  fuzzCheck(
    padded.withUnsafeBufferPointer { TimestampParser.parse($0) } == parsed,
    "surrounding blanks change the answer")
  if let parsed { checkRoundTrip(parsed) }

  if size >= 8 {
    var bits: UInt64 = 0
    for index in 0..<8 { bits |= UInt64(bytes[index]) << UInt64(8 * index) }
    if let instant = TimestampParser.fromEpochNumber(Double(bitPattern: bits)) {
      checkRoundTrip(instant)
    }
  }
  return 0
}

/// Formats an instant and, when the text has a four-digit year, parses it back.
private func checkRoundTrip(_ instant: Timestamp) {
  let text = RFC3339.format(instant)
  let utf8 = Array(text.utf8)
  let hasFourDigitYear = utf8.count > 4 && utf8[0..<4].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    && utf8[4] == UInt8(ascii: "-")
  guard hasFourDigitYear else { return }
  fuzzCheck(
    TimestampParser.parse(text) == instant,
    "\(instant.microsecondsSinceEpoch) µs formats as \(text), which parses as \(String(describing: TimestampParser.parse(text)?.microsecondsSinceEpoch))")
}

/// Runs libFuzzer on ``fuzzTimestamp(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzTimestampMain {
  static func main() { runFuzzer(fuzzTimestamp) }
}
