import FenceGeometry

/// What the index knows about one stored box besides its coordinates.
@usableFromInline
struct EntryFlags: OptionSet, Sendable, Hashable {
  @usableFromInline let rawValue: UInt8

  @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }

  /// The item was removed; the entry stays until the next rebuild (a tombstone).
  @usableFromInline static let removed = EntryFlags(rawValue: 1)
  /// The western part, `west...180`, of an item whose box crosses the antimeridian.
  static let firstPart = EntryFlags(rawValue: 2)
  /// The eastern part, `-180...east`, of an item whose box crosses the antimeridian.
  static let secondPart = EntryFlags(rawValue: 4)

  static let crossingPart: EntryFlags = [.firstPart, .secondPart]
}

/// Planar boxes with their item ids and flags, in flat arrays.
///
/// Serves as the leaves of a ``PackedTree`` (in Hilbert order) and as the unsorted tail of recent
/// inserts. An item whose box crosses the antimeridian is two entries under one id, its
/// ``BoundingBox/planarParts``; in a tail the two are adjacent, first part first.
@usableFromInline
struct EntryList: Sendable {
  /// Four numbers per entry: west, south, east, north, in degrees, with `west <= east`.
  @usableFromInline var boxes: ContiguousArray<Double> = []
  /// Each entry's id (read through ``id(at:)``); empty when ``idsAreSlots``. Written directly
  /// only while ``idsAreSlots`` is false (a packing's permutation of a new list).
  @usableFromInline var storedIDs: ContiguousArray<Int32> = []
  @usableFromInline var flags: ContiguousArray<EntryFlags> = []
  /// Whether every entry's id is its slot, kept as that rule instead of in ``storedIDs`` (set
  /// by ``dropIDs()``): the evaluator's million circles, 4 MB.
  @usableFromInline private(set) var idsAreSlots = false

  @inlinable var count: Int { flags.count }

  init() {}

  init(reservingCapacity capacity: Int) {
    boxes.reserveCapacity(4 * capacity)
    storedIDs.reserveCapacity(capacity)
    flags.reserveCapacity(capacity)
  }

  /// The id of entry `slot`.
  @inlinable @inline(__always)
  func id(at slot: Int) -> Int32 {
    idsAreSlots ? Int32(truncatingIfNeeded: slot) : storedIDs[slot]
  }

  /// Keeps the ids as the rule "the id is the slot" rather than one by one.
  ///
  /// - Precondition: entry `s` has id `s` for every `s` (``PackedTree`` checks it once, as it
  ///   decides ``PackedTree/idsAreSlots``; not checked again here).
  mutating func dropIDs() {
    guard !idsAreSlots else { return }
    storedIDs = []
    idsAreSlots = true
  }

  /// Stores the ids one by one again, before a change that may break the rule.
  private mutating func storeIDs() {
    guard idsAreSlots else { return }
    storedIDs = ContiguousArray((0..<count).map { Int32(truncatingIfNeeded: $0) })
    idsAreSlots = false
  }

  /// Appends one planar entry.
  mutating func append(
    west: Double, south: Double, east: Double, north: Double, id: Int32,
    flags entryFlags: EntryFlags
  ) {
    boxes.append(west)
    boxes.append(south)
    boxes.append(east)
    boxes.append(north)
    if idsAreSlots && Int(id) != count { storeIDs() }
    if !idsAreSlots { storedIDs.append(id) }
    flags.append(entryFlags)
  }

  /// Appends an item as one entry, or as two when its box crosses the antimeridian.
  mutating func append(id: Int32, box: BoundingBox) {
    let (first, second) = box.planarParts
    guard let second else {
      append(west: box.west, south: box.south, east: box.east, north: box.north, id: id, flags: [])
      return
    }
    append(
      west: first.west, south: first.south, east: first.east, north: first.north, id: id,
      flags: .firstPart)
    append(
      west: second.west, south: second.south, east: second.east, north: second.north, id: id,
      flags: .secondPart)
  }

  /// Appends entry `slot` of `other` with the given flags.
  mutating func append(from other: EntryList, slot: Int, flags entryFlags: EntryFlags) {
    let b = 4 * slot
    append(
      west: other.boxes[b], south: other.boxes[b + 1], east: other.boxes[b + 2],
      north: other.boxes[b + 3], id: other.id(at: slot), flags: entryFlags)
  }

  /// Appends every entry of `other` not marked removed.
  mutating func appendLive(from other: EntryList) {
    for slot in 0..<other.count where !other.flags[slot].contains(.removed) {
      append(from: other, slot: slot, flags: other.flags[slot])
    }
  }

  /// Removes entries `range`, keeping the order of the others (so crossing parts stay adjacent).
  mutating func removeSubrange(_ range: Range<Int>) {
    storeIDs()
    boxes.removeSubrange((4 * range.lowerBound)..<(4 * range.upperBound))
    storedIDs.removeSubrange(range)
    flags.removeSubrange(range)
  }

  mutating func removeAll() {
    boxes.removeAll(keepingCapacity: true)
    storedIDs.removeAll(keepingCapacity: true)
    flags.removeAll(keepingCapacity: true)
    idsAreSlots = false
  }

  /// The planar box of entry `slot`.
  func box(at slot: Int) -> BoundingBox {
    let b = 4 * slot
    return BoundingBox(south: boxes[b + 1], west: boxes[b], north: boxes[b + 3], east: boxes[b + 2])
  }

  /// The item's whole box, given the entries of both of its parts when it crosses.
  func itemBox(first: Int, second: Int?) -> BoundingBox {
    let a = box(at: first)
    guard let second else { return a }
    return BoundingBox(south: a.south, west: a.west, north: a.north, east: boxes[4 * second + 2])
  }
}
