/// Slots by id, for ids the evaluator keeps in its own tables (zone and element ids): an open
/// addressing table of 8-byte buckets, each holding a slot and 32 bits of its id's hash.
///
/// A `[String: Int32]` keeps a copy of every id beside its slot (about 20 bytes a bucket, 40 an
/// entry at its load); here the id is read back from the caller's table (`keyOf`) only when the
/// hash bits match, so a million ids cost 16 MB instead of about 42. Linear probing, at most
/// three quarters full, removal by backward shift (no tombstones: the home bucket of an entry
/// is its stored hash bits). The hash is Swift's seeded `Hasher`, as a dictionary's.
struct IDSlotTable {
  /// Per bucket: the low 32 bits of the id's hash in the high word, the slot in the low word;
  /// ``empty`` when free. Empty or a power of two in size.
  private var buckets: [UInt64] = []
  /// The number of ids held.
  private(set) var count = 0

  static let empty = UInt64.max

  var isEmpty: Bool { count == 0 }

  @inline(__always)
  static func hashBits(_ id: String) -> UInt32 {
    UInt32(truncatingIfNeeded: id.hashValue)
  }

  @inline(__always)
  private static func entry(_ bits: UInt32, _ slot: Int32) -> UInt64 {
    UInt64(bits) << 32 | UInt64(UInt32(bitPattern: slot))
  }

  @inline(__always)
  private static func slot(of entry: UInt64) -> Int32 {
    Int32(bitPattern: UInt32(truncatingIfNeeded: entry))
  }

  @inline(__always)
  private static func bits(of entry: UInt64) -> UInt32 {
    UInt32(truncatingIfNeeded: entry >> 32)
  }

  /// The bucket holding `id`, if any; `keyOf` gives the id held by a slot.
  private func bucket(of id: String, keyOf: (Int32) -> String) -> Int? {
    guard !buckets.isEmpty else { return nil }
    let bits = Self.hashBits(id)
    let mask = buckets.count - 1
    return buckets.withUnsafeBufferPointer { buckets -> Int? in
      var i = Int(bits) & mask
      while true {
        let entry = buckets[i]
        if entry == Self.empty { return nil }
        if Self.bits(of: entry) == bits, keyOf(Self.slot(of: entry)) == id { return i }
        i = (i &+ 1) & mask
      }
    }
  }

  /// The slot of `id`, if held.
  func slot(of id: String, keyOf: (Int32) -> String) -> Int32? {
    bucket(of: id, keyOf: keyOf).map { Self.slot(of: buckets[$0]) }
  }

  /// Files `id` under `slot`.
  ///
  /// - Precondition: `id` is not held.
  mutating func insert(_ id: String, slot: Int32) {
    if (count + 1) * 4 > buckets.count * 3 { rehash(capacity: max(16, buckets.count * 2)) }
    place(Self.entry(Self.hashBits(id), slot))
    count += 1
  }

  /// The slot of `id` if held, else files it under `next` and returns `next`: one hash either
  /// way (for names seen once per fix).
  mutating func slot(interning id: String, next: Int32, keyOf: (Int32) -> String) -> Int32 {
    if (count + 1) * 4 > buckets.count * 3 { rehash(capacity: max(16, buckets.count * 2)) }
    let bits = Self.hashBits(id)
    let mask = buckets.count - 1
    let slot = buckets.withUnsafeMutableBufferPointer { buckets -> Int32 in
      var i = Int(bits) & mask
      while true {
        let entry = buckets[i]
        if entry == Self.empty {
          buckets[i] = Self.entry(bits, next)
          return next
        }
        if Self.bits(of: entry) == bits, keyOf(Self.slot(of: entry)) == id {
          return Self.slot(of: entry)
        }
        i = (i &+ 1) & mask
      }
    }
    // `next` is not held before (it is the caller's next free slot): returned, it was filed.
    if slot == next { count += 1 }
    return slot
  }

  /// Files `id` under `slot`, replacing the slot it had, if any.
  mutating func set(_ id: String, slot: Int32, keyOf: (Int32) -> String) {
    if let i = bucket(of: id, keyOf: keyOf) {
      buckets[i] = Self.entry(Self.bits(of: buckets[i]), slot)
    } else {
      insert(id, slot: slot)
    }
  }

  /// Removes `id` when it is held under `expected` (or under any slot when `expected` is nil).
  ///
  /// - Returns: the slot removed, or nil.
  @discardableResult
  mutating func remove(_ id: String, ifSlot expected: Int32? = nil, keyOf: (Int32) -> String)
    -> Int32?
  {
    guard let found = bucket(of: id, keyOf: keyOf) else { return nil }
    let slot = Self.slot(of: buckets[found])
    if let expected, expected != slot { return nil }
    let mask = buckets.count - 1
    buckets.withUnsafeMutableBufferPointer { buckets in
      // Backward shift: each later entry of the run moves into the hole unless its home
      // bucket lies cyclically after the hole (up to its own place).
      var hole = found
      var j = found
      while true {
        j = (j &+ 1) & mask
        let entry = buckets[j]
        if entry == Self.empty { break }
        let home = Int(Self.bits(of: entry)) & mask
        let stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
        if !stays {
          buckets[hole] = entry
          hole = j
        }
      }
      buckets[hole] = Self.empty
    }
    count -= 1
    return slot
  }

  /// Room for `total` ids without growing.
  mutating func reserveCapacity(_ total: Int) {
    var capacity = max(16, buckets.count)
    while total * 4 > capacity * 3 { capacity *= 2 }
    if capacity > buckets.count { rehash(capacity: capacity) }
  }

  /// Calls `body` with every slot held, in no particular order.
  func forEachSlot(_ body: (Int32) -> Void) {
    for entry in buckets where entry != Self.empty { body(Self.slot(of: entry)) }
  }

  private mutating func rehash(capacity: Int) {
    let old = buckets
    buckets = Array(repeating: Self.empty, count: capacity)
    for entry in old where entry != Self.empty { place(entry) }
  }

  private mutating func place(_ entry: UInt64) {
    let mask = buckets.count - 1
    buckets.withUnsafeMutableBufferPointer { buckets in
      var i = Int(Self.bits(of: entry)) & mask
      while buckets[i] != Self.empty { i = (i &+ 1) & mask }
      buckets[i] = entry
    }
  }
}
