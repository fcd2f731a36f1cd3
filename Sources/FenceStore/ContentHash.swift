/// 64-bit FNV-1a over bytes fed in pieces: the key of a stored zone set, and the digest of the
/// zone files a daemon started with.
///
/// Not a cryptographic hash: it tells apart contents that changed, not contents made to collide.
public struct ContentHash: Hashable, Sendable {
  public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  public init() {}

  /// FNV-1a's 64-bit prime (``ZoneSetChunks`` runs two chains of it side by side).
  static let prime: UInt64 = 0x0000_0100_0000_01b3

  /// `value` as 16 hexadecimal digits, as messages and the zone-source note show keys.
  static func hexadecimal(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// Feeds bytes.
  public mutating func combine(_ bytes: UnsafeRawBufferPointer) {
    var hash = value
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* Self.prime
    }
    value = hash
  }

  /// Feeds bytes.
  public mutating func combine(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { combine($0) }
  }

  /// Feeds a text's UTF-8 and a line feed (so that `"ab" + "c"` and `"a" + "bc"` differ).
  public mutating func combine(line text: String) {
    combine(Array(text.utf8) + [0x0A])
  }

  /// The hash of one byte array.
  public static func of(_ bytes: [UInt8]) -> UInt64 {
    var hash = ContentHash()
    hash.combine(bytes)
    return hash.value
  }
}
