/// A zone set's bytes cut into chunks where their content says, so that a storage keeps each
/// chunk once and a zone set that differs from one it holds in a few zones costs only the
/// chunks around them (decision 0006, "Zone sets in chunks").
///
/// The cuts are content-defined: a rolling hash over the last 64 bytes (each byte's entry in a
/// fixed table added to the hash shifted left by one) cuts after a byte where its top 13 bits
/// are zero, once a chunk holds at least ``minimumSize`` bytes, and at ``maximumSize`` bytes
/// at the latest. The top bits, because the hash's bit k depends on the last k + 1 bytes only:
/// the low bits would cut by the last dozen bytes, which repeat in a zone set's regular
/// records (chunks of about 21 KB instead of 10 at a million circles). Inserting or removing bytes therefore moves only the cuts next to the change:
/// the chunks before it and (after the first cut past it) those after it are the same bytes
/// as before. Chunks average about 10 KiB; a million circle zones (74 MB) make about 7,000.
///
/// The cuts depend only on the bytes and these constants: a change to the constants or the
/// table keeps every stored zone set readable (a zone set lists its chunks), but shares no
/// chunk between zone sets cut before and after it.
package struct ZoneSetChunks: Sendable {
  /// One chunk: where it lies in the zone set's bytes, and its key.
  package struct Chunk: Hashable, Sendable {
    package var range: Range<Int>
    /// 64-bit FNV-1a (``ContentHash``) of the chunk's bytes: its key in the storage.
    package var hash: UInt64
  }

  /// The chunks in order; together they are the bytes, end to end. Empty bytes have none.
  package let chunks: [Chunk]
  /// ``ContentHash`` of all the bytes: the zone set's key, which a storage checks against the
  /// key it is given before storing the set under it (a wrong key would leave a set that reads
  /// as damaged). Computed in the same pass as the chunks' hashes, at little cost.
  package let hash: UInt64

  /// No cut comes before this many bytes of a chunk (except the last chunk's end).
  package static let minimumSize = 2_048
  /// A chunk is cut here when its content called for no cut before.
  package static let maximumSize = 65_536
  /// A cut falls after a byte where the rolling hash has these bits zero: one byte in 8,192.
  static let cutMask: UInt64 = ~(UInt64.max >> 13)
  /// The bytes the rolling hash depends on (a shift of one a byte pushes older ones out).
  static let window = 64

  /// Cuts `bytes`; the chunks' hashes are computed here, so this is worth calling outside any
  /// lock (about 2 ns a byte).
  package init(cutting bytes: [UInt8]) {
    var chunks: [Chunk] = []
    chunks.reserveCapacity(bytes.count / 8_192 + 1)
    let basis = ContentHash().value
    var whole = basis
    bytes.withUnsafeBufferPointer { buffer in
      var start = 0
      while start < buffer.count {
        let end = Self.cut(buffer, from: start)
        // Both FNV-1a hashes in one pass: their multiplications do not wait for each other.
        var hash = basis
        for byte in buffer[start..<end] {
          hash = (hash ^ UInt64(byte)) &* ContentHash.prime
          whole = (whole ^ UInt64(byte)) &* ContentHash.prime
        }
        chunks.append(Chunk(range: start..<end, hash: hash))
        start = end
      }
    }
    self.chunks = chunks
    self.hash = whole
  }

  /// The end of the chunk that starts at `start`.
  static func cut(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let limit = min(bytes.count, start + maximumSize)
    let earliest = start + minimumSize
    guard earliest < limit else { return limit }
    // The hash at a byte depends only on the `window` bytes up to it: it starts that far
    // before the first byte where a cut may fall, and gives there what it would from `start`.
    var hash: UInt64 = 0
    return gear.withUnsafeBufferPointer { table in
      var i = earliest - window
      while i < earliest {
        hash = (hash << 1) &+ table[Int(bytes[i])]
        i += 1
      }
      while i < limit {
        hash = (hash << 1) &+ table[Int(bytes[i])]
        i += 1
        if hash & cutMask == 0 { return i }
      }
      return limit
    }
  }

  /// Cuts `bytes` to be stored under the key `hash`.
  ///
  /// - Throws: ``StoreError/storageFailed(_:)`` when the bytes do not hash to `hash`, before
  ///   anything is stored: under the wrong key they would read back as damaged.
  package init(cutting bytes: [UInt8], toStoreAs hash: UInt64) throws {
    self.init(cutting: bytes)
    guard self.hash == hash else {
      throw StoreError.storageFailed(
        "a snapshot's zone set of \(bytes.count) bytes was given the key "
          + "\(ContentHash.hexadecimal(hash)), but its bytes hash to \(ContentHash.hexadecimal(self.hash))")
    }
  }

  /// The rolling hash's table: 256 fixed pseudo-random values (SplitMix64 from a fixed seed).
  /// Never change it without reading the type's note on changes.
  static let gear: [UInt64] = {
    var state: UInt64 = 0x4650_4B5A_4348_554E  // "FPKZCHUN"
    return (0..<256).map { _ in
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }()

  /// The zone set whose chunks are `parts`, in order, checked against the zone set's key
  /// `hash` (``SQLiteStorage/hash(_:)``): a missing, altered or (in 2^-64 cases) colliding
  /// chunk gives other bytes, which is reported rather than decoded.
  ///
  /// - Throws: ``StoreError/damaged(_:)`` naming the zone set when the bytes do not hash to it.
  package static func assemble<Part: Collection<UInt8>>(
    _ parts: [Part], zoneSet hash: UInt64
  ) throws -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(parts.reduce(0) { $0 + $1.count })
    for part in parts { bytes.append(contentsOf: part) }
    let actual = ContentHash.of(bytes)
    guard actual == hash else {
      throw StoreError.damaged(
        "zone set \(ContentHash.hexadecimal(hash)): its \(parts.count) chunks (\(bytes.count) bytes) hash to "
          + "\(ContentHash.hexadecimal(actual)); a chunk is missing or altered")
    }
    return bytes
  }
}
