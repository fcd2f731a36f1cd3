/// Draws structured values from a fuzzer's bytes, front to back; once they run out every value
/// is zero, so any input, even an empty one, describes a complete case.
public struct FuzzBytes {
  private let bytes: [UInt8]
  private var offset = 0

  /// A copy of the input (the fuzzer's buffer is valid only during the call).
  public init(_ buffer: UnsafeBufferPointer<UInt8>) {
    bytes = Array(buffer)
  }

  /// Whether every byte has been drawn.
  public var isAtEnd: Bool { offset >= bytes.count }

  /// The bytes not drawn yet.
  public var remaining: ArraySlice<UInt8> { bytes[min(offset, bytes.count)...] }

  /// The next byte, or 0 past the end.
  public mutating func byte() -> UInt8 {
    guard offset < bytes.count else { return 0 }
    defer { offset += 1 }
    return bytes[offset]
  }

  /// A value in `0..<count` from one byte (`count` at most 256).
  public mutating func choice(_ count: Int) -> Int {
    precondition(count > 0 && count <= 256, "a choice is among 1 to 256 values")
    return Int(byte()) % count
  }

  /// Whether the next byte is odd.
  public mutating func flag() -> Bool { byte() & 1 == 1 }

  /// Two bytes, little-endian.
  public mutating func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

  /// Eight bytes, little-endian.
  public mutating func uint64() -> UInt64 {
    var value: UInt64 = 0
    for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
    return value
  }

  /// A signed byte: -128...127.
  public mutating func int8() -> Int8 { Int8(bitPattern: byte()) }
}
