import CMemoryHints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The system's page size, asked once.
private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

extension Array where Element: BitwiseCopyable {
  /// Gives back to the system the whole pages of this array's storage that hold only elements
  /// in `elements` and elements before it (those an earlier call gave back): a caller that
  /// consumes an array from the front gives back its pages as it goes, each page once the
  /// last element on it is in a released range.
  ///
  /// The elements given back must not be read again (they read as zeros on Linux; elsewhere
  /// nothing is given back). Empty arrays and empty ranges give nothing back.
  ///
  /// - Precondition: `elements` lies within the array; the elements before it were given back
  ///   already or are not to be read again either.
  package mutating func releasePages(of elements: Range<Int>) {
    guard !elements.isEmpty, !isEmpty else { return }
    precondition(elements.upperBound <= count, "releasePages: range past the array's end")
    withUnsafeMutableBufferPointer { buffer in
      let base = UnsafeRawPointer(buffer.baseAddress!)
      let stride = MemoryLayout<Element>.stride
      // From the page start of the range's first element (rounded down: that page's earlier
      // elements were given back before, or are not read again), but never below the storage.
      let first = UInt(bitPattern: base + elements.lowerBound * stride)
      let from = Swift.max(UInt(bitPattern: base), first & ~UInt(pageSize - 1))
      _ = fencekit_release_pages(
        UnsafeRawPointer(bitPattern: from), base + elements.upperBound * stride)
    }
  }
}

extension Array {
  /// Gives back to the system the whole pages of this array's storage that lie past its last
  /// element: a caller that empties a large array from the end (`popLast()`) gives back the
  /// storage of what it took, which the array would otherwise hold until it is freed whole (a
  /// million zones handed to the evaluator: 88 MB until the last one was applied).
  ///
  /// Only capacity that holds no element is given back, so nothing is read as zeros; an append
  /// afterwards writes fresh pages. Elsewhere than Linux nothing is given back.
  package mutating func releaseCapacityPages() {
    let count = self.count
    guard capacity > count else { return }
    let stride = MemoryLayout<Element>.stride
    let capacity = self.capacity
    // Through the buffer's base: no element is read or written. The pages between the first
    // page boundary after the last element and the last one before the capacity's end.
    withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      let raw = UnsafeRawPointer(base)
      _ = fencekit_release_pages(raw + count * stride, raw + capacity * stride)
    }
  }
}
