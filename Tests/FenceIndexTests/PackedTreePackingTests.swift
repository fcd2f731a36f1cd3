import FenceGeometry
@testable import FenceIndex
import FenceTestSupport
import Testing

/// Packing puts the entries in curve order in the input's own arrays: the in-place
/// permutation must give exactly what copying each slot's source entry gives.
@Suite struct PackedTreePackingTests {
  @Test(arguments: [1, 2, 7, 1_000, 5_000])
  func inPlacePermutationEqualsTheCopy(count: Int) {
    var random = SeededGenerator(seed: UInt64(count))
    var list = EntryList(reservingCapacity: count)
    for k in 0..<count {
      let west = random.double(in: -180...179)
      let south = random.double(in: -90...89)
      list.append(
        west: west, south: south, east: west + random.double(in: 0...1),
        north: south + random.double(in: 0...1), id: Int32(k * 3 - 7),
        flags: EntryFlags(rawValue: UInt8(random.int(below: 8))))
    }
    // A random permutation (Fisher-Yates), as curve keys: anything in the high word.
    var order = Array(0..<count)
    for i in stride(from: count - 1, to: 0, by: -1) { order.swapAt(i, random.int(below: i + 1)) }
    var sources = ContiguousArray(order.map { UInt64(random.int(below: 1 << 20)) << 32 | UInt64($0) })
    var expected = EntryList(reservingCapacity: count)
    for from in order {
      expected.append(
        west: list.boxes[4 * from], south: list.boxes[4 * from + 1], east: list.boxes[4 * from + 2],
        north: list.boxes[4 * from + 3], id: list.id(at: from), flags: list.flags[from])
    }
    PackedTree.permute(&list, takingFrom: &sources)
    // The first slot that differs, if any (whole arrays would print thousands of values).
    #expect((0..<count).first { list.id(at: $0) != expected.id(at: $0) } == nil)
    #expect((0..<count).first { list.flags[$0] != expected.flags[$0] } == nil)
    #expect((0..<4 * count).first { list.boxes[$0] != expected.boxes[$0] } == nil)
  }

  /// A packed tree's leaves are its input's entries in Hilbert order of their centres.
  @Test func leavesAreTheInputInCurveOrder() {
    let items = OccupancyGridTests.scatteredBoxes(count: 3_000, size: 0.05, seed: 9)
    let tree = RTree(items)
    let leaves = tree.main.entries
    #expect(leaves.count == items.count)
    let order = HilbertCurve.order(of: items.map(\.box))
    #expect((0..<leaves.count).map { leaves.id(at: $0) } == order.map { items[$0].id })
  }
}
