/// Something due at an instant: a dwell timer, a zone's next lifetime or schedule change.
protocol Deadlined {
  var deadline: Timestamp { get }
}

/// A binary min-heap by deadline (ties in any order), for the evaluator's timers.
struct DeadlineHeap<Entry: Deadlined> {
  private(set) var entries: [Entry] = []

  /// The earliest entry's deadline.
  var nextDeadline: Timestamp? { entries.first?.deadline }

  mutating func push(_ entry: Entry) {
    entries.append(entry)
    var child = entries.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard entries[child].deadline < entries[parent].deadline else { break }
      entries.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns the earliest entry.
  mutating func pop() -> Entry? {
    guard !entries.isEmpty else { return nil }
    entries.swapAt(0, entries.count - 1)
    let top = entries.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < entries.count, entries[left].deadline < entries[smallest].deadline {
        smallest = left
      }
      if right < entries.count, entries[right].deadline < entries[smallest].deadline {
        smallest = right
      }
      if smallest == parent { break }
      entries.swapAt(parent, smallest)
      parent = smallest
    }
    return top
  }

  mutating func removeAll() { entries.removeAll() }
}
