@testable import FenceEngine
import Testing

@Suite struct TableGrowthTests {
  /// Reserving before each small addition must not give up doubling: a table reserved this way
  /// is reallocated about log2(n) times, not once per addition.
  @Test func reservingBeforeEachAdditionKeepsGeometricGrowth() {
    var table: [Int] = []
    var byID: [String: Int] = [:]
    var arrayGrowths = 0
    var dictionaryGrowths = 0
    for step in 0..<1_000 {
      let arrayCapacity = table.capacity
      let dictionaryCapacity = byID.capacity
      table.reserveCapacity(growingTo: table.count + 10)
      byID.reserveCapacity(growingTo: byID.count + 10)
      if table.capacity != arrayCapacity {
        arrayGrowths += 1
        #expect(table.capacity >= 2 * arrayCapacity)
      }
      if byID.capacity != dictionaryCapacity {
        dictionaryGrowths += 1
        #expect(byID.capacity >= 2 * dictionaryCapacity)
      }
      for i in 0..<10 {
        table.append(step * 10 + i)
        byID["\(step * 10 + i)"] = i
      }
    }
    #expect(table.count == 10_000)
    #expect(arrayGrowths <= 12)
    #expect(dictionaryGrowths <= 12)
    // A reservation within the capacity changes nothing.
    let capacity = table.capacity
    table.reserveCapacity(growingTo: 5)
    #expect(table.capacity == capacity)
  }
}
