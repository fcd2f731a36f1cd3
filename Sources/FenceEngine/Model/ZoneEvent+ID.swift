extension ZoneEvent {
  /// The deterministic id of an event with this content: 16 lowercase hex digits of the 64-bit
  /// FNV-1a hash of the device, zone, fence (or GEOLINE), kind and time.
  ///
  /// Each text field is hashed as its UTF-8 bytes followed by a unit separator (0x1F); a missing
  /// field hashes as a single record separator (0x1E), so `nil` and `""` differ. The time is
  /// hashed as its microseconds since the epoch, 8 bytes little-endian. The same input therefore
  /// gives the same id on every run and every platform, and a consumer can drop duplicates.
  ///
  /// - Complexity: O(*n*) in the fields' UTF-8 length, one allocation (the 16-byte string).
  public static func deterministicID(
    device: String, zone: String?, fence: String?, kind: Kind, time: Timestamp
  ) -> String {
    var hash = FNV1a64()
    hash.combine(device)
    hash.combine(zone)
    hash.combine(fence)
    hash.combine(kind.rawValue)
    hash.combine(time.microsecondsSinceEpoch)
    return hash.hexDigits
  }

  /// Sets ``id`` by ``deterministicID(device:zone:fence:kind:time:)`` from the event's own
  /// content, in place (the engine's way: no copy of the event).
  public mutating func assignDeterministicID() {
    id = ZoneEvent.deterministicID(
      device: device, zone: zone, fence: fence, kind: kind, time: time)
  }

  /// This event with ``id`` set by ``deterministicID(device:zone:fence:kind:time:)`` from its
  /// own content.
  ///
  /// Consuming: a caller that does not use the event afterwards hands it over without a copy.
  public consuming func withDeterministicID() -> ZoneEvent {
    assignDeterministicID()
    return self
  }
}

/// The 64-bit Fowler–Noll–Vo 1a hash (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
struct FNV1a64 {
  static let prime: UInt64 = 0x0000_0100_0000_01b3
  private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  @inline(__always)
  mutating func combine(byte: UInt8) {
    value = (value ^ UInt64(byte)) &* Self.prime
  }

  /// Hashes `bytes` in one loop over a local copy of the state.
  @inline(__always)
  mutating func combine(bytes: UnsafeRawBufferPointer) {
    var hash = value
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* Self.prime }
    value = hash
  }

  /// Hashes the text's UTF-8 bytes then 0x1F, or 0x1E alone for `nil`.
  ///
  /// Native strings are hashed straight from their contiguous UTF-8 storage; others (bridged)
  /// go through the UTF-8 view byte by byte, with the same result.
  mutating func combine(_ text: String?) {
    guard let text else {
      combine(byte: 0x1E)
      return
    }
    let start = value
    let contiguous: UInt64? = text.utf8.withContiguousStorageIfAvailable {
      (utf8: UnsafeBufferPointer<UInt8>) -> UInt64 in
      var hash = FNV1a64(value: start)
      hash.combine(bytes: UnsafeRawBufferPointer(utf8))
      return hash.value
    }
    if let contiguous {
      value = contiguous
    } else {
      for byte in text.utf8 { combine(byte: byte) }
    }
    combine(byte: 0x1F)
  }

  /// Hashes the number's 8 bytes, least significant first.
  mutating func combine(_ number: Int64) {
    withUnsafeBytes(of: UInt64(bitPattern: number).littleEndian) { combine(bytes: $0) }
  }

  /// The hash as 16 lowercase hexadecimal digits.
  var hexDigits: String {
    // One allocation: 16 bytes do not fit a small string.
    String(unsafeUninitializedCapacity: 16) { buffer in
      var bits = value
      for index in stride(from: 15, through: 0, by: -1) {
        let nibble = UInt8(truncatingIfNeeded: bits) & 0xF
        buffer[index] = nibble &+ (nibble < 10 ? 0x30 : 0x57)
        bits >>= 4
      }
      return 16
    }
  }
}
