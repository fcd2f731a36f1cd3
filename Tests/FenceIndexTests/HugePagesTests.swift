import FenceIndex
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct HugePagesTests {
  @Test func aTableMadeForHugePagesHoldsItsValues() {
    let count = 3_000_000  // 24 MB of UInt64: several huge pages
    let table = HugePages.table(repeating: UInt64(0xABCD), count: count)
    #expect(table.count == count)
    #expect(table.allSatisfy { $0 == 0xABCD })
    let empty = HugePages.table(repeating: Int32(7), count: 0)
    #expect(empty.isEmpty)
    let small = HugePages.table(repeating: Int32(7), count: 5)
    #expect(Array(small) == [7, 7, 7, 7, 7])
  }

  @Test func adviceCoversWholeHugePagesInsideTheTableAndChangesNothing() {
    var small = [Int](repeating: 1, count: 1_000)
    #expect(HugePages.advise(&small) == 0)
    #expect(small == [Int](repeating: 1, count: 1_000))

    var large = ContiguousArray<Int>(0..<1_500_000)  // 12 MB
    let bytes = large.capacity * MemoryLayout<Int>.stride
    let covered = HugePages.advise(&large)
    // 0 where the system has no transparent huge pages; otherwise whole 2 MiB pages, all
    // inside the table, losing less than one page at each end.
    let huge = 2 << 20
    #expect(covered == 0 || (covered % huge == 0 && covered <= bytes && covered > bytes - 2 * huge))
    #if os(Linux)
      // A kernel with transparent huge pages accepts the advice, whatever its default mode.
      if access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0 {
        #expect(covered > 0)
      }
    #endif
    #expect(large.elementsEqual(0..<1_500_000))
  }
}
