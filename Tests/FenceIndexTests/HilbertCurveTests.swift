import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceIndex

@Suite struct HilbertCurveTests {
  @Test func theCurveStartsAtTheOriginAndEndsAtTheOtherBottomCorner() {
    #expect(HilbertCurve.index(x: 0, y: 0) == 0)
    #expect(HilbertCurve.index(x: 65_535, y: 0) == UInt32.max)
  }

  /// The curve walked level by level, complementing and swapping the coordinates: what
  /// `HilbertCurve.index` does with its table of steps.
  static func walkedIndex(x: UInt32, y: UInt32) -> UInt32 {
    let side: UInt32 = 1 << 16
    var (x, y) = (x, y)
    var d: UInt32 = 0
    var s = side >> 1
    while s > 0 {
      let rx: UInt32 = x & s != 0 ? 1 : 0
      let ry: UInt32 = y & s != 0 ? 1 : 0
      d &+= s &* s &* ((3 &* rx) ^ ry)
      if ry == 0 {
        if rx == 1 {
          x = side &- 1 &- x
          y = side &- 1 &- y
        }
        swap(&x, &y)
      }
      s >>= 1
    }
    return d
  }

  @Test func theTableOfStepsGivesTheWalkedCurve() {
    var random = SeededGenerator(seed: 16)
    for _ in 0..<200_000 {
      let x = UInt32(truncatingIfNeeded: random.next()) & 0xFFFF
      let y = UInt32(truncatingIfNeeded: random.next()) & 0xFFFF
      #expect(HilbertCurve.index(x: x, y: y) == Self.walkedIndex(x: x, y: y), "(\(x), \(y))")
    }
    // Every cell of a corner, and the grid's edges.
    for x: UInt32 in 0..<64 {
      for y: UInt32 in 0..<64 {
        #expect(HilbertCurve.index(x: x, y: y) == Self.walkedIndex(x: x, y: y))
      }
    }
    for k: UInt32 in stride(from: 0, through: 65_535, by: 257) {
      for edge: UInt32 in [0, 65_535] {
        #expect(HilbertCurve.index(x: k, y: edge) == Self.walkedIndex(x: k, y: edge))
        #expect(HilbertCurve.index(x: edge, y: k) == Self.walkedIndex(x: edge, y: k))
      }
    }
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
    // Keys in order stay so; one pair out of order is sorted.
    sortByHighWord(&keys)
    #expect(keys == ContiguousArray(expected))
    if count > 1 {
      keys.swapAt(0, count - 1)
      sortByHighWord(&keys)
      #expect(keys == ContiguousArray(expected))
    }
  }

  /// Boxes in curve order are a permutation in which neighbours are close: zones applied in
  /// it take neighbouring slots in the per-element table. Equal boxes keep their order.
  @Test func theOrderOfBoxesIsAPermutationThatKeepsNeighboursClose() {
    var random = SeededGenerator(seed: 5)
    var boxes: [BoundingBox] = []
    for _ in 0..<5_000 {
      let lat = random.double(in: 38...42)
      let lon = random.double(in: -78 ... -71)
      let half = random.double(in: 0.0005...0.005)
      boxes.append(BoundingBox(south: lat - half, west: lon - half, north: lat + half, east: lon + half))
    }
    let order = HilbertCurve.order(of: boxes)
    #expect(order.sorted() == Array(0..<5_000))
    func meanStep(_ order: [Int]) -> Double {
      var total = 0.0
      for k in 1..<order.count {
        let a = boxes[order[k - 1]]
        let b = boxes[order[k]]
        total += abs(a.west - b.west) + abs(a.south - b.south)
      }
      return total / Double(order.count - 1)
    }
    // Random order: about 3.7 degrees per step; along the curve well under a tenth of a degree.
    #expect(meanStep(order) < meanStep(Array(0..<5_000)) / 20)
    let twins = [boxes[3], boxes[1], boxes[3], boxes[1]]
    #expect(HilbertCurve.order(of: twins) == [1, 3, 0, 2] || HilbertCurve.order(of: twins) == [0, 2, 1, 3])
    // Indexes without a point go last, in index order.
    let some = HilbertCurve.order(count: 6) { i in i % 2 == 0 ? nil : (Double(i), 0) }
    #expect(some == [1, 3, 5, 0, 2, 4])
    #expect(HilbertCurve.order(of: []) == [])
    #expect(HilbertCurve.order(of: [boxes[0]]) == [0])
  }
}
