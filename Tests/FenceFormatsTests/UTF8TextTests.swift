import Testing

@testable import FenceFormats

/// `UTF8Text.string` gives the standard library's answer on ASCII, on other valid UTF-8 and on
/// invalid bytes.
@Suite struct UTF8TextTests {
  func string(_ bytes: [UInt8]) -> String? {
    bytes.withUnsafeBufferPointer { UTF8Text.string($0) }
  }

  @Test func asciiValidAndInvalidBytes() {
    #expect(string(Array("367000140".utf8)) == "367000140")
    #expect(string([]) == "")
    #expect(string(Array("Fähre Köln".utf8)) == "Fähre Köln")
    #expect(string([0x66, 0xC3]) == nil)  // a cut two-byte sequence
    #expect(string([0xFF]) == nil)
    #expect(string([0x41, 0xED, 0xA0, 0x80]) == nil)  // an encoded surrogate
    #expect(string([0x7F, 0x00]) == "\u{7F}\u{0}")
  }
}
