import FenceTestSupport
import Testing

@testable import FenceEngine

/// `SlotMarks` answers as a set of the slots it was given, kept sorted or as a flag per slot.
@Suite struct SlotMarksTests {
  @Test func marksAnswerAsASetOfTheirSlotsEitherWay() {
    var generator = SeededGenerator(seed: 5)
    let slotCount = 1_000
    var sortedCount = 0
    for count in [0, 1, 2, 63, 64, 65, 200, 999] {
      // Repeats allowed, as a batch may hold a slot twice.
      let slots = (0..<count).map { _ in Int32.random(in: 0..<Int32(slotCount), using: &generator) }
      let marks = SlotMarks(slots, slotCount: slotCount)
      let expected = Set(slots)
      for slot in Int32(-2)...Int32(slotCount + 1) {
        #expect(marks.contains(slot) == expected.contains(slot), "\(count) slots, slot \(slot)")
      }
      if count <= SlotMarks.sortedLimit { sortedCount += 1 }
    }
    // Both ways were asked: five batches kept sorted, three flagged.
    #expect(sortedCount == 5)
  }
}
