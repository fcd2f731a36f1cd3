import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import FenceEngine

/// `Array.releaseCapacityPages()`: the pages past an array's last element go back to the
/// system; the elements, and the page holding the last one, stay.
@Suite struct ArrayCapacityReleaseTests {
  @Test func pagesPastTheLastElementGoAndTheElementsStay() {
    var values = [Int64](repeating: 7, count: 1 << 20)  // 8 MiB: its own mapping
    values.removeLast(600_000)
    values.releaseCapacityPages()
    #expect(values.count == 448_576)
    #expect(values.allSatisfy { $0 == 7 })
    #if os(Linux)
      // The removed elements' memory, read through the storage: the whole pages between the
      // page of the last element and the capacity's end read as zeros; that page, and a part
      // page at the end (the storage need not end on a page), still hold what was written.
      let page = Int(sysconf(Int32(_SC_PAGESIZE))) / 8
      let capacity = values.capacity
      let (beyond, edges, span) = values.withUnsafeBufferPointer { buffer -> (Bool, Bool, Int) in
        let base = buffer.baseAddress!
        let start = Int(bitPattern: base) / 8
        let firstWhole = (start + 448_576 + page - 1) / page * page - start
        let lastWhole = (start + capacity) / page * page - start
        let released = (firstWhole..<lastWhole).allSatisfy { base[$0] == 0 }
        let kept =
          (448_576..<firstWhole).allSatisfy { base[$0] == 7 }
          && (lastWhole..<max(lastWhole, 1 << 20)).allSatisfy { base[$0] == 7 }
        return (released, kept, lastWhole - firstWhole)
      }
      #expect(span > 500_000)
      #expect(beyond)
      #expect(edges)
    #endif
    // The capacity is the array's still: appends write fresh pages.
    values.append(contentsOf: repeatElement(9, count: 600_000))
    #expect(values.count == 1 << 20)
    #expect(values[448_575] == 7 && values[448_576] == 9 && values[(1 << 20) - 1] == 9)
  }

  @Test func nothingGoesFromAFullOrEmptyArray() {
    var full = [Int64](repeating: 3, count: 4_096)
    full.reserveCapacity(4_096)
    full.releaseCapacityPages()
    #expect(full.allSatisfy { $0 == 3 })
    var empty: [Int64] = []
    empty.releaseCapacityPages()
    #expect(empty.isEmpty)
  }
}
