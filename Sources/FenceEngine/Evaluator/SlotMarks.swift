/// The zone or element slots a change removes, asked "is this slot one of them?" for every
/// device record, pending exit and monitored element the change must drop.
///
/// A few slots are kept sorted and found by a binary search; many get a flag per slot. The
/// flags alone cost a table as long as the slot tables to fill, clear and free at every
/// change: a megabyte for each `DELETE` of one zone of a million (5 % of `fenced`'s processor
/// samples over the zone churn, `Docs/Scaling.md`; the requests' wall time did not show it).
struct SlotMarks {
  /// Up to this many slots are kept sorted; more get a flag per slot.
  static let sortedLimit = 64

  /// The slots, ascending, while there are at most ``sortedLimit``; empty otherwise.
  private var sorted: [Int32] = []
  /// A flag per slot when there are more; empty otherwise.
  private var flags: [Bool] = []

  /// Marks `slots` (repeats allowed) of tables `slotCount` long.
  init(_ slots: [Int32], slotCount: Int) {
    if slots.count <= Self.sortedLimit {
      sorted = slots.sorted()
    } else {
      flags = Array(repeating: false, count: slotCount)
      for slot in slots { flags[Int(slot)] = true }
    }
  }

  /// Whether `slot` is marked; any slot outside the tables is not.
  @inline(__always)
  func contains(_ slot: Int32) -> Bool {
    if !flags.isEmpty { return slot >= 0 && Int(slot) < flags.count && flags[Int(slot)] }
    return sortedContains(sorted, slot)
  }
}
