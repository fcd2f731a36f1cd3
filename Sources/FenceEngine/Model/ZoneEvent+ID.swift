extension ZoneEvent {
  /// The deterministic id of an event with this content: 16 lowercase hex digits of the 64-bit
  /// FNV-1a hash of the device, zone, fence (or GEOLINE), kind and time.
  ///
  /// Each text field is hashed as its UTF-8 bytes followed by a unit separator (0x1F); a missing
  /// field hashes as a single record separator (0x1E), so `nil` and `""` differ. The time is
  /// hashed as its microseconds since the epoch, 8 bytes little-endian. The same input therefore
  /// gives the same id on every run and every platform, and a consumer can drop duplicates.
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

  /// This event with ``id`` set by ``deterministicID(device:zone:fence:kind:time:)`` from its
  /// own content.
  public func withDeterministicID() -> ZoneEvent {
    var event = self
    event.id = ZoneEvent.deterministicID(
      device: device, zone: zone, fence: fence, kind: kind, time: time)
    return event
  }
}

/// The 64-bit Fowler–Noll–Vo 1a hash (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
struct FNV1a64 {
  private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  mutating func combine(byte: UInt8) {
    value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
  }

  mutating func combine(_ text: String?) {
    guard let text else {
      combine(byte: 0x1E)
      return
    }
    for byte in text.utf8 { combine(byte: byte) }
    combine(byte: 0x1F)
  }

  mutating func combine(_ number: Int64) {
    var bits = UInt64(bitPattern: number)
    for _ in 0..<8 {
      combine(byte: UInt8(truncatingIfNeeded: bits))
      bits >>= 8
    }
  }

  /// The hash as 16 lowercase hexadecimal digits.
  var hexDigits: String {
    // One allocation: 16 bytes do not fit a small string.
    String(unsafeUninitializedCapacity: 16) { buffer in
      for index in 0..<16 {
        let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
        buffer[index] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
      }
      return 16
    }
  }
}
