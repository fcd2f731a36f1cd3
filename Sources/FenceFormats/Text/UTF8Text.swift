/// Strings made from bytes that must be valid UTF-8.
enum UTF8Text {
  /// The string of `bytes`, or `nil` when they are not valid UTF-8.
  ///
  /// ASCII bytes (device ids, almost always) take a plain decode: the standard library's
  /// validating initialiser is generic and, called per row, spent more time looking up its
  /// generic metadata than validating.
  @inline(__always)
  static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    var any: UInt8 = 0
    for byte in bytes { any |= byte }
    if any < 0x80 { return String(decoding: bytes, as: UTF8.self) }
    return String(validating: bytes, as: UTF8.self)
  }
}
