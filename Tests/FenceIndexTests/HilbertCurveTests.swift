import FenceTestSupport
import Testing

@testable import FenceIndex

@Suite struct HilbertCurveTests {
  @Test func theCurveStartsAtTheOriginAndEndsAtTheOtherBottomCorner() {
    #expect(HilbertCurve.index(x: 0, y: 0) == 0)
    #expect(HilbertCurve.index(x: 65_535, y: 0) == UInt32.max)
  }

  @Test func consecutivePositionsAreNeighbouringCells() {
    // Invert by search on a corner of the grid: the first 256 positions fill the 16 × 16 corner.
    var cellOf = [Int: (Int, Int)]()
    for x in 0..<16 {
      for y in 0..<16 { cellOf[Int(HilbertCurve.index(x: UInt32(x), y: UInt32(y)))] = (x, y) }
    }
    #expect(cellOf.count == 256)
    for d in 1..<256 {
      guard let a = cellOf[d - 1], let b = cellOf[d] else {
        Issue.record("position \(d) is outside the corner")
        return
      }
      #expect(abs(a.0 - b.0) + abs(a.1 - b.1) == 1, "positions \(d - 1) and \(d)")
    }
  }

  @Test(arguments: [10, 5_000, 70_000])
  func radixSortEqualsSort(count: Int) {
    var random = SeededGenerator(seed: UInt64(count))
    var keys = ContiguousArray<UInt64>(
      (0..<count).map { UInt64(random.next() >> 40) << 32 | UInt64($0) })
    let expected = keys.sorted()
    sortByHighWord(&keys)
    #expect(keys == ContiguousArray(expected))
  }
}
