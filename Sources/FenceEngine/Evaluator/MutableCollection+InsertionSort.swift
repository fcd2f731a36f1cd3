extension MutableCollection where Self: RandomAccessCollection {
  /// Sorts in place by insertion, allocating nothing (the standard library's sort may allocate
  /// a merge buffer). Stable; meant for the short per-fix buffers of the evaluator.
  ///
  /// - Complexity: O(*n*²) comparisons in the worst case, O(*n*) when nearly sorted.
  mutating func insertionSort(by areInIncreasingOrder: (Element, Element) -> Bool) {
    guard count > 1 else { return }
    var i = index(after: startIndex)
    while i != endIndex {
      let item = self[i]
      var j = i
      while j != startIndex {
        let before = index(before: j)
        guard areInIncreasingOrder(item, self[before]) else { break }
        self[j] = self[before]
        j = before
      }
      if j != i { self[j] = item }
      formIndex(after: &i)
    }
  }
}
