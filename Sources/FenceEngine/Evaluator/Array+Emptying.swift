extension Array {
  /// Removes every element and keeps the storage, doing nothing when already empty.
  ///
  /// `removeAll(keepingCapacity: true)` goes through the generic `replaceSubrange` even for an
  /// empty array (a hundred instructions or so); the per-fix scratch buffers are usually empty.
  @inline(__always)
  mutating func empty() {
    if !isEmpty { removeAll(keepingCapacity: true) }
  }
}
