/// Slots by id, for ids the evaluator keeps in its own tables (zone and element ids; and the
/// zone loader's drafts, `DraftList` in FenceFormats): an open
/// addressing table of 8-byte buckets, each holding a slot and 32 bits of its id's hash.
///
/// A `[String: Int32]` keeps a copy of every id beside its slot (about 20 bytes a bucket, 40 an
/// entry at its load); here the id is read back from the caller's table (`keyOf`) only when the
/// hash bits match, so a million ids cost 10.7 MB instead of about 42. Linear probing, at most
/// three quarters full, removal by backward shift (no tombstones: the home bucket of an entry
/// is its stored hash bits). The hash is Swift's seeded `Hasher`, as a dictionary's.
///
/// The table may have any size: an entry's home bucket is its hash bits scaled to the size
/// (`bits × size / 2³²`), not masked, so a table reserved for *n* ids holds ⌈4*n*/3⌉ buckets
/// instead of the next power of two (a million ids: 10.7 MB, not 16). Growth doubles it.
package struct IDSlotTable {
  /// Per bucket: the low 32 bits of the id's hash in the high word, the slot in the low word;
  /// ``empty`` when free. Empty, or at least 16 buckets.
  private var buckets: [UInt64] = []
  /// The number of ids held.
  package private(set) var count = 0

  static let empty = UInt64.max

  package init() {}

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

  /// The home bucket of hash bits `bits` in a table of `size` buckets: the bits scaled to the
  /// size, so that any size spreads them evenly.
  @inline(__always)
  private static func home(_ bits: UInt32, size: Int) -> Int {
    Int(truncatingIfNeeded: (UInt64(bits) &* UInt64(truncatingIfNeeded: size)) &>> 32)
  }

  /// The bucket after `i` in a table of `size` buckets, wrapping at the end.
  @inline(__always)
  private static func next(_ i: Int, size: Int) -> Int {
    let j = i &+ 1
    return j == size ? 0 : j
  }

  /// The number of buckets (for tests of the sizing).
  var bucketCount: Int { buckets.count }

  /// The bucket holding `id`, if any; `keyOf` gives the id held by a slot.
  private func bucket(of id: String, keyOf: (Int32) -> String) -> Int? {
    guard !buckets.isEmpty else { return nil }
    let bits = Self.hashBits(id)
    return buckets.withUnsafeBufferPointer { buckets -> Int? in
      let size = buckets.count
      var i = Self.home(bits, size: size)
      while true {
        let entry = buckets[i]
        if entry == Self.empty { return nil }
        if Self.bits(of: entry) == bits, keyOf(Self.slot(of: entry)) == id { return i }
        i = Self.next(i, size: size)
      }
    }
  }

  /// The slot of `id`, if held.
  package func slot(of id: String, keyOf: (Int32) -> String) -> Int32? {
    bucket(of: id, keyOf: keyOf).map { Self.slot(of: buckets[$0]) }
  }

  /// Files `id` under `slot`.
  ///
  /// - Precondition: `id` is not held.
  package mutating func insert(_ id: String, slot: Int32) {
    if (count + 1) * 4 > buckets.count * 3 { rehash(capacity: max(16, buckets.count * 2)) }
    place(Self.entry(Self.hashBits(id), slot))
    count += 1
  }

  /// The slot of `id` if held, else files it under `next` and returns `next`: one hash either
  /// way (for names seen once per fix).
  package mutating func slot(interning id: String, next: Int32, keyOf: (Int32) -> String) -> Int32 {
    if (count + 1) * 4 > buckets.count * 3 { rehash(capacity: max(16, buckets.count * 2)) }
    let bits = Self.hashBits(id)
    let slot = buckets.withUnsafeMutableBufferPointer { buckets -> Int32 in
      let size = buckets.count
      var i = Self.home(bits, size: size)
      while true {
        let entry = buckets[i]
        if entry == Self.empty {
          buckets[i] = Self.entry(bits, next)
          return next
        }
        if Self.bits(of: entry) == bits, keyOf(Self.slot(of: entry)) == id {
          return Self.slot(of: entry)
        }
        i = Self.next(i, size: size)
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
    buckets.withUnsafeMutableBufferPointer { buckets in
      let size = buckets.count
      // Backward shift: each later entry of the run moves into the hole unless its home
      // bucket lies cyclically after the hole (up to its own place).
      var hole = found
      var j = found
      while true {
        j = Self.next(j, size: size)
        let entry = buckets[j]
        if entry == Self.empty { break }
        let home = Self.home(Self.bits(of: entry), size: size)
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

  /// Room for `total` ids without growing: an empty table gets ⌈4 × `total` / 3⌉ buckets (at
  /// least 16); a table with fewer buckets than that grows to it or to twice its size, whichever
  /// is more, so that callers reserving one more id at a time (zones added one by one) rehash
  /// only as often as insertion would. Room for no id allocates nothing.
  package mutating func reserveCapacity(_ total: Int) {
    guard total > 0 else { return }
    let needed = max(16, (total * 4 + 2) / 3)
    guard needed > buckets.count else { return }
    rehash(capacity: buckets.isEmpty ? needed : max(needed, buckets.count * 2))
  }

  /// Makes the buckets this value's own (a copy, when another value shares them).
  mutating func ownBuckets() {
    buckets.reserveCapacity(buckets.count)
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
    buckets.withUnsafeMutableBufferPointer { buckets in
      let size = buckets.count
      var i = Self.home(Self.bits(of: entry), size: size)
      while buckets[i] != Self.empty { i = Self.next(i, size: size) }
      buckets[i] = entry
    }
  }
}
