import FenceTestSupport
import Testing

@testable import FenceEngine

/// The evaluator's id tables against a dictionary, through inserts, moves and removals.
@Suite struct IDSlotTableTests {
  /// 20,000 seeded operations over 600 ids (slots are positions in a key table, as in the
  /// evaluator): clusters, wrap-around at the table's end and backward shifts on removal all
  /// occur; every lookup, the count and the slots held equal the dictionary's. From empty (the
  /// table grows through sizes of 16 times a power of two) and from reservations that make
  /// other sizes (601 and 934 buckets).
  @Test(arguments: [0, 450, 700])
  func matchesADictionary(reserved: Int) {
    var generator = SeededGenerator(seed: 41)
    var table = IDSlotTable()
    table.reserveCapacity(reserved)
    #expect(table.bucketCount == [0: 0, 450: 600, 700: 934][reserved])
    var reference: [String: Int32] = [:]
    // The key table: slot -> id ("" when free), as `elementIDs`.
    var keys = [String](repeating: "", count: 2_000)
    var freeSlots = Array((0..<Int32(2_000)).reversed())
    let ids = (0..<600).map { "id-\($0)" }
    var removals = 0
    for step in 0..<20_000 {
      let id = ids[Int(generator.next() % UInt64(ids.count))]
      switch generator.next() % 3 {
      case 0, 1:
        if let old = reference[id] {
          // Move the id to a new slot (a replaced zone's element).
          let slot = freeSlots.removeLast()
          keys[Int(slot)] = id
          table.set(id, slot: slot) { keys[Int($0)] }
          keys[Int(old)] = ""
          freeSlots.append(old)
          reference[id] = slot
        } else {
          let slot = freeSlots.removeLast()
          keys[Int(slot)] = id
          table.insert(id, slot: slot)
          reference[id] = slot
        }
      default:
        let expected = reference.removeValue(forKey: id)
        // A removal naming another slot leaves the id in place.
        if let expected {
          #expect(table.remove(id, ifSlot: expected &+ 1) { keys[Int($0)] } == nil)
        }
        #expect(table.remove(id) { keys[Int($0)] } == expected)
        if let expected {
          keys[Int(expected)] = ""
          freeSlots.append(expected)
          removals += 1
        }
      }
      if step % 97 == 0 {
        for probe in ids {
          #expect(table.slot(of: probe) { keys[Int($0)] } == reference[probe], "\(probe) at \(step)")
        }
      }
      #expect(table.count == reference.count)
    }
    var held: [Int32] = []
    table.forEachSlot { held.append($0) }
    #expect(held.sorted() == reference.values.sorted())
    #expect(removals > 3_000)
    #expect(reference.count > 300)
  }

  /// Interning (the device names' table): a name seen before gives its slot, a new one is
  /// filed under the next slot, as `Dictionary.interned` does, through growth from empty.
  @Test func interningMatchesADictionary() {
    var generator = SeededGenerator(seed: 7)
    var table = IDSlotTable()
    var reference: [String: Int32] = [:]
    var names: [String] = []
    for _ in 0..<5_000 {
      let name = "d\(generator.next() % 1_500)"
      let next = Int32(names.count)
      let slot = table.slot(interning: name, next: next) { names[Int($0)] }
      #expect(slot == reference.interned(name, next: next))
      if slot == next { names.append(name) }
      #expect(table.count == names.count)
    }
    #expect(names.count > 1_000)
    for (index, name) in names.enumerated() {
      #expect(table.slot(of: name) { names[Int($0)] } == Int32(index))
    }
    #expect(table.slot(of: "d-none") { names[Int($0)] } == nil)
  }

  /// A reservation makes ⌈4n/3⌉ buckets, enough for n ids without growing; the next id
  /// doubles the table.
  @Test func aReservationHoldsItsIDsAtThreeQuartersFull() {
    var table = IDSlotTable()
    table.reserveCapacity(1_000_000)
    #expect(table.bucketCount == 1_333_334)
    var small = IDSlotTable()
    small.reserveCapacity(3)
    #expect(small.bucketCount == 16)
    small.reserveCapacity(30)
    #expect(small.bucketCount == 40)
    let keys = (0..<31).map { "zone \($0)" }
    for (slot, id) in keys.enumerated().prefix(30) { small.insert(id, slot: Int32(slot)) }
    #expect(small.bucketCount == 40)
    small.insert(keys[30], slot: 30)
    #expect(small.bucketCount == 80)
    for (slot, id) in keys.enumerated() {
      #expect(small.slot(of: id) { keys[Int($0)] } == Int32(slot))
    }
    // A smaller reservation keeps the table; a larger one at least doubles it, so that
    // reserving one more id at a time rehashes as rarely as inserting does.
    small.reserveCapacity(10)
    #expect(small.bucketCount == 80)
    small.reserveCapacity(61)
    #expect(small.bucketCount == 160)
    small.reserveCapacity(200)
    #expect(small.bucketCount == 320)
    for (slot, id) in keys.enumerated() {
      #expect(small.slot(of: id) { keys[Int($0)] } == Int32(slot))
    }
  }

  @Test func reservingKeepsEveryID() {
    var table = IDSlotTable()
    let keys = (0..<1_000).map { "zone \($0)" }
    for (slot, id) in keys.enumerated().prefix(500) { table.insert(id, slot: Int32(slot)) }
    table.reserveCapacity(100_000)
    for (slot, id) in keys.enumerated().dropFirst(500) { table.insert(id, slot: Int32(slot)) }
    for (slot, id) in keys.enumerated() {
      #expect(table.slot(of: id) { keys[Int($0)] } == Int32(slot))
    }
    #expect(table.slot(of: "zone 1000") { keys[Int($0)] } == nil)
    #expect(IDSlotTable().slot(of: "x") { _ in "x" } == nil)
  }
}
