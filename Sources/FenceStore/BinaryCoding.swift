import FenceEngine

/// Appends little-endian values to a byte array: the command log's payload encoding.
struct ByteWriter {
  var bytes: [UInt8] = []

  mutating func u8(_ value: UInt8) { bytes.append(value) }

  mutating func u64(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

  /// The exact bits, so that a decoded fix is the same fix.
  mutating func f64(_ value: Double) { u64(value.bitPattern) }

  mutating func varint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  mutating func string(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      varint(UInt64(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }
}

/// Reads what ``ByteWriter`` wrote, failing on truncation instead of trapping.
struct ByteReader {
  let bytes: [UInt8]
  var offset = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { offset == bytes.count }

  mutating func u8() throws(PayloadError) -> UInt8 {
    guard offset < bytes.count else { throw PayloadError(offset: offset, "truncated") }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func u64() throws(PayloadError) -> UInt64 {
    guard bytes.count - offset >= 8 else { throw PayloadError(offset: offset, "truncated") }
    var value: UInt64 = 0
    for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
    offset += 8
    return value
  }

  mutating func i64() throws(PayloadError) -> Int64 { Int64(bitPattern: try u64()) }

  mutating func f64() throws(PayloadError) -> Double { Double(bitPattern: try u64()) }

  mutating func varint() throws(PayloadError) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let byte = try u8()
      guard shift < 64 else { throw PayloadError(offset: offset, "varint too long") }
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return value }
      shift += 7
    }
  }

  /// A count that cannot exceed the bytes left (each counted item takes at least `stride`).
  mutating func count(stride: Int) throws(PayloadError) -> Int {
    let value = try varint()
    guard value <= UInt64(bytes.count - offset) / UInt64(max(stride, 1)) else {
      throw PayloadError(offset: offset, "count \(value) larger than the payload")
    }
    return Int(value)
  }

  mutating func string() throws(PayloadError) -> String {
    let length = try count(stride: 1)
    defer { offset += length }
    return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
  }

  /// Moves past `byteCount` bytes.
  mutating func skip(_ byteCount: Int) throws(PayloadError) {
    guard byteCount >= 0, bytes.count - offset >= byteCount else {
      throw PayloadError(offset: offset, "truncated")
    }
    offset += byteCount
  }

  /// Moves past a string (``string()``) without making it.
  mutating func skipString() throws(PayloadError) {
    try skip(try count(stride: 1))
  }
}

/// A command payload that does not decode: the store's files were damaged or written by an
/// incompatible version.
struct PayloadError: Error, CustomStringConvertible {
  var offset: Int
  var reason: String
  init(offset: Int, _ reason: String) {
    self.offset = offset
    self.reason = reason
  }
  var description: String { "\(reason) at byte \(offset)" }
}
