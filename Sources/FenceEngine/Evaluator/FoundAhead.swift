/// The fences a batch's point search found for a fix ahead of the current one (look-ahead stage
/// three): stage four asks for their zones, and when the fix's turn comes and the list is whole,
/// `markInside` tests these instead of searching the index again (decision 0011).
///
/// Holds at most four fences in the order the search gave them; a fix in more is marked
/// ``isComplete`` false and searched again.
struct FoundAhead {
  /// The position in its batch of the fix whose fences these are, or -1: none.
  var fix = -1
  /// Fences noted, at most four.
  var count = 0
  /// Whether every fence the search gave was noted (none after the fourth was dropped).
  var isComplete = true
  var slots: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)

  /// Starts the list of the fix at `fix` in its batch.
  mutating func start(_ fix: Int) {
    self.fix = fix
    count = 0
    isComplete = true
  }

  /// Notes a fence the search gave.
  mutating func note(_ slot: Int32) {
    switch count {
    case 0: slots.0 = slot
    case 1: slots.1 = slot
    case 2: slots.2 = slot
    case 3: slots.3 = slot
    default:
      isComplete = false
      return
    }
    count &+= 1
  }

  /// The `k`th noted fence (`k < count`), in the search's order.
  subscript(k: Int) -> Int32 {
    switch k {
    case 0: slots.0
    case 1: slots.1
    case 2: slots.2
    default: slots.3
    }
  }

  /// Calls `body` with each noted fence, in the search's order.
  func forEach(_ body: (Int32) -> Void) {
    for k in 0..<count { body(self[k]) }
  }
}
