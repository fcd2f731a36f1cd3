extension Array {
  /// Sorts in place by insertion, allocating nothing (the standard library's sort may allocate
  /// a merge buffer). Stable; meant for the short per-fix buffers of the evaluator.
  ///
  /// - Complexity: O(*n*²) comparisons in the worst case, O(*n*) when nearly sorted.
  mutating func insertionSort(by areInIncreasingOrder: (Element, Element) -> Bool) {
    guard count > 1 else { return }
    for i in 1..<count {
      let item = self[i]
      var j = i
      while j > 0, areInIncreasingOrder(item, self[j - 1]) {
        self[j] = self[j - 1]
        j -= 1
      }
      if j != i { self[j] = item }
    }
  }
}
