import FenceEngine
import Testing

/// Inputs the snapshot fuzz target (`Fuzz/`, `Scripts/fuzz snapshot`) found to trap, reduced to
/// the smallest snapshot that shows each fault, with the error decoding must give instead.
@Suite struct SnapshotFuzzRegressionTests {
  /// A snapshot whose only id has a length of `Int.max` bytes: the length was added to the
  /// offset for the truncation message, which overflowed. A string can never be longer than
  /// the bytes left, so the length is malformed, like any other count past the end.
  @Test func aStringLengthOfIntMaxIsMalformed() {
    let bytes: [UInt8] = [
      0x46, 0x4B, 0x45, 0x53, 0x01, 0x00, 0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // header
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // zone fingerprint
      0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // no time, counters
      0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F,  // one id, 2^63 - 1 bytes long
      0xB1, 0x94, 0xF8, 0xCA, 0x83, 0xB9, 0xFF, 0x79,  // checksum
    ]
    #expect(
      throws: SnapshotError(
        .malformed("count 9223372036854775807 larger than the 0 bytes left can hold"), offset: 44)
    ) {
      try EvaluatorSnapshot(decoding: bytes)
    }
  }

  /// A header whose total length is 2^64 - 1: the length was converted to an `Int` for the
  /// truncation error, which trapped. The length is checked before the checksum, so one
  /// damaged byte of a stored snapshot could crash a recovery instead of failing it.
  @Test func aTotalLengthBeyondIntIsMalformed() {
    let bytes: [UInt8] = [
      0x46, 0x4B, 0x45, 0x53, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]
    #expect(
      throws: SnapshotError(
        .malformed("total length 18446744073709551615 is more than any byte array holds"), offset: 6)
    ) {
      try EvaluatorSnapshot(decoding: bytes)
    }
  }
}
