import FenceEngine
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import FenceFormats

/// Rows given back as a replay moves on (``FixTable/releaseRows(before:)``): the rows after
/// them read as before, and on Linux the pages that held only given-back rows read as zeros
/// (the memory went back to the system).
@Suite struct FixTableReleaseTests {
  /// A table of `count` fixes of three devices with every optional value, times and values
  /// that differ from row to row (no row reads as zeros).
  static func table(count: Int) -> (FixTable, [LocationFix]) {
    var table = FixTable()
    var fixes: [LocationFix] = []
    for k in 0..<count {
      let fix = LocationFix(
        device: ["a", "b", "c"][k % 3], time: Timestamp(secondsSinceEpoch: 1_800_000_000 + Double(k)),
        latitude: 40 + Double(k % 1000) * 1e-4, longitude: -74 + Double(k % 777) * 1e-4,
        accuracy: 5 + Double(k % 10), speed: Double(k % 20) * 0.5, course: Double(k % 360))
      table.append(fix)
      fixes.append(fix)
    }
    return (table, fixes)
  }

  @Test func rowsAfterTheOnesGivenBackReadAsBefore() {
    let count = 50_000
    var (table, fixes) = Self.table(count: count)
    // In steps that end mid-page, as a replay's batches do.
    for end in [1, 777, 4_096, 20_001, 20_001, 10, 33_333] {
      table.releaseRows(before: end)
      let released = table.releasedRowCount
      #expect(released == max(end, released))
      for position in [released, released + 1, (released + count) / 2, count - 1] where position < count {
        #expect(table[position] == fixes[position])
      }
    }
    #expect(table.releasedRowCount == 33_333)
    #expect((33_333..<count).allSatisfy { table[$0] == fixes[$0] })
    table.releaseRows(before: count + 5)
    #expect(table.releasedRowCount == count)
  }

  /// Each page goes once the last element on it is in a released range, including the page a
  /// step ended in (rounded down on the next step, not skipped).
  @Test func pagesGoAsTheirLastElementIsReleased() {
    var values = [Int64](repeating: 7, count: 1 << 20)  // 8 MiB: its own mapping
    values.releasePages(of: 0..<1_000)
    values.releasePages(of: 1_000..<300_001)
    #expect(values[300_001...].allSatisfy { $0 == 7 })
    #if os(Linux)
      // 512 elements a page (4 KiB pages): every page that ends before element 300,001 went,
      // the one in which step one ended (element 1,000) too.
      let page = Int(sysconf(Int32(_SC_PAGESIZE))) / 8
      let base = values.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress!) } / 8
      let firstWhole = (base + page - 1) / page * page - base
      let lastEnd = (base + 300_001) / page * page - base
      #expect(values[firstWhole..<lastEnd].allSatisfy { $0 == 0 })
      #expect(values[1_000] == 0)
      #expect(values[lastEnd...].allSatisfy { $0 == 7 })
    #endif
  }
}
