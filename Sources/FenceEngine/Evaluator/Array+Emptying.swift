extension Array {
  /// Removes every element and keeps the storage, doing nothing when already empty.
  ///
  /// `removeAll(keepingCapacity: true)` goes through the generic `replaceSubrange` (about a
  /// hundred instructions) even for an empty array; the per-fix scratch buffers are usually
  /// empty, or hold a few elements, which `removeLast()` takes off in a few instructions each.
  @inline(__always)
  mutating func empty() {
    if isEmpty { return }
    if count <= 8 {
      repeat { removeLast() } while !isEmpty
    } else {
      removeAll(keepingCapacity: true)
    }
  }
}
