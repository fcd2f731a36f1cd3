extension ZoneEvent {
  /// The deterministic id of an event with this content: 16 lowercase hex digits of the 64-bit
  /// FNV-1a hash of the device, zone, fence (or GEOLINE), kind and time.
  ///
  /// Each text field is hashed as its UTF-8 bytes followed by a unit separator (0x1F); a missing
  /// field hashes as a single record separator (0x1E), so `nil` and `""` differ. The time is
  /// hashed as its microseconds since the epoch, 8 bytes little-endian. The same input therefore
  /// gives the same id on every run and every platform, and a consumer can drop duplicates.
  ///
  /// - Complexity: O(*n*) in the fields' UTF-8 length, one allocation (the 16-byte string;
  ///   ``assignDeterministicID()`` hashes nothing and allocates nothing).
  public static func deterministicID(
    device: String, zone: String?, fence: String?, kind: Kind, time: Timestamp
  ) -> String {
    FNV1a64(
      value: deterministicHash(device: device, zone: zone, fence: fence, kind: kind, time: time)
    ).hexDigits
  }

  /// Sets ``id`` by ``deterministicID(device:zone:fence:kind:time:)`` from the event's own
  /// content, in place (the engine's way: no copy of the event).
  ///
  /// Nothing is hashed here: the event is marked as carrying the id of its content, and the
  /// hash is made when ``id`` is read (or the event compared with one whose id is not
  /// assigned; ``hash(into:)`` never makes it). A consumer that never reads the id (a replay
  /// that counts events) never pays for it; one that does pays the same hash, once per read. Changing the device, zone, fence, roaming device, kind or time
  /// afterwards fixes the id first, so the id stays that of the content at this call.
  ///
  /// An event of a roaming zone has no fence: its roaming device takes the fence's place in the
  /// hash, so that two roaming devices checking the same device in at once give two ids.
  @inline(__always)
  public mutating func assignDeterministicID() {
    idStorage = .ofContent
  }

  /// The 64-bit hash of ``assignDeterministicID()``'s id of this event's current content.
  var contentIDHash: UInt64 {
    ZoneEvent.deterministicHash(
      device: device, zone: zone, fence: fence ?? roamingDevice, kind: kind, time: time)
  }

  /// ``idStorage`` with `.ofContent` replaced by the hash it stands for: what equality
  /// compares, so that an assigned id equals the same id read back from text.
  var resolvedIDStorage: IDStorage {
    if case .ofContent = idStorage { return .hash(contentIDHash) }
    return idStorage
  }

  /// Fixes an id assigned from the content (`.ofContent`) as its hash, before a field it was
  /// made of changes (called by those fields' observers).
  @inline(__always)
  mutating func freezeContentID() {
    if case .ofContent = idStorage { idStorage = .hash(contentIDHash) }
  }

  /// The 64-bit hash behind ``deterministicID(device:zone:fence:kind:time:)``.
  static func deterministicHash(
    device: String, zone: String?, fence: String?, kind: Kind, time: Timestamp
  ) -> UInt64 {
    var hash = FNV1a64()
    hash.combine(device)
    hash.combine(zone)
    hash.combine(fence)
    hash.combine(kind.rawValue)
    hash.combine(time.microsecondsSinceEpoch)
    return hash.value
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

  /// The offset basis: an empty hash.
  init() {}

  /// A hash whose state is `value` (to write a known hash's digits).
  init(value: UInt64) {
    self.value = value
  }

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
      let bytes = UnsafeMutableRawBufferPointer(buffer)
      bytes.storeBytes(
        of: Self.hexDigits(UInt32(truncatingIfNeeded: value >> 32)).littleEndian, toByteOffset: 0,
        as: UInt64.self)
      bytes.storeBytes(
        of: Self.hexDigits(UInt32(truncatingIfNeeded: value)).littleEndian, toByteOffset: 8,
        as: UInt64.self)
      return 16
    }
  }

  /// The 8 lowercase hex digits of `word` as ASCII bytes, the most significant digit in the
  /// lowest byte (so that storing the result little-endian writes the digits in reading order).
  ///
  /// Eight lanes at once: the nibbles are spread one per byte, then each byte gets `0` (0x30)
  /// added, plus 39 more (to reach `a` = 0x61) where the nibble is 10 or more.
  @inline(__always)
  static func hexDigits(_ word: UInt32) -> UInt64 {
    var lanes = UInt64(word)
    lanes = (lanes | lanes << 16) & 0x0000_FFFF_0000_FFFF
    lanes = (lanes | lanes << 8) & 0x00FF_00FF_00FF_00FF
    lanes = (lanes | lanes << 4) & 0x0F0F_0F0F_0F0F_0F0F
    // Nibble k is in byte k; the first digit is the most significant nibble.
    lanes = lanes.byteSwapped
    let isLetter = ((lanes &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
    return lanes &+ 0x3030_3030_3030_3030 &+ isLetter &* 39
  }
}
