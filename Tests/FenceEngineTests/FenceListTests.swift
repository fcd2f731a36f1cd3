import FenceGeometry
import Testing

@testable import FenceEngine

/// `FenceList` holds a single fence inline and several in an array: whichever it holds, it must
/// read, change, compare and hash exactly as `[Fence]` does.
@Suite struct FenceListTests {
  private func circle(_ id: String, _ longitude: Double = -74.0) throws -> Fence {
    try Fence.circle(id: id, center: Coordinate(latitude: 40.7, longitude: longitude), radius: 50)
  }

  /// Every count from none to three, built each way, against the array it was built from.
  @Test func readsAsTheArrayItWasMadeFrom() throws {
    let all = [try circle("a"), try circle("b", -73.9), try circle("c", -73.8)]
    for n in 0...3 {
      let array = Array(all.prefix(n))
      var appended = FenceList()
      for fence in array { appended.append(fence) }
      for list in [FenceList(array), appended] {
        #expect(list.count == n)
        #expect(list.isEmpty == (n == 0))
        #expect(Array(list) == array)
        #expect(list.map(\.id) == array.map(\.id))
        #expect(list.first?.id == array.first?.id)
        #expect(list.last?.id == array.last?.id)
      }
      #expect(FenceList(array) == appended)
      #expect(FenceList(array).hashValue == appended.hashValue)
      #expect(FenceList(array).description == array.description)
    }
  }

  @Test func changesAsAnArrayDoes() throws {
    let a = try circle("a")
    let b = try circle("b", -73.9)
    let c = try circle("c", -73.8)
    var list: FenceList = [a]
    list[0] = b
    #expect(Array(list) == [b])
    list.append(c)
    #expect(Array(list) == [b, c])
    list[1] = a
    #expect(Array(list) == [b, a])
    list.remove(at: 0)
    #expect(Array(list) == [a])
    list.insert(c, at: 0)
    #expect(Array(list) == [c, a])
    list.removeAll { $0.id == "c" }
    #expect(Array(list) == [a])
    list.append(contentsOf: [b, c])
    #expect(Array(list) == [a, b, c])
    list.replaceSubrange(0..<3, with: [c])
    #expect(Array(list) == [c])
    list.removeAll()
    #expect(list.isEmpty)
    #expect(list == [])
  }

  /// A copy is a value: changing it (in the inline case and the array case) leaves the original.
  @Test func copiesAreIndependent() throws {
    let a = try circle("a")
    let b = try circle("b", -73.9)
    let one: FenceList = [a]
    var changedOne = one
    changedOne[0] = b
    #expect(Array(one) == [a])
    let two: FenceList = [a, b]
    var changedTwo = two
    changedTwo[1] = a
    changedTwo.append(b)
    #expect(Array(two) == [a, b])
    #expect(Array(changedTwo) == [a, a, b])
  }

  /// Equal lists hash equally whichever way they were made; different ones compare unequal.
  @Test func equalityIsByFencesInOrder() throws {
    let a = try circle("a")
    let b = try circle("b", -73.9)
    var emptied: FenceList = [a, b]
    emptied.removeAll()
    #expect(emptied == FenceList())
    var grown = FenceList()
    grown.append(a)
    var shrunk: FenceList = [a, b]
    shrunk.removeLast()
    #expect(Set([FenceList([a]), grown, shrunk]).count == 1)
    #expect(FenceList([a, b]) != [b, a])
    #expect(FenceList([a]) != [a, a])
  }

  /// A zone's fences survive every way of making the zone, and compare as before.
  @Test func zonesKeepTheirFences() throws {
    let a = try circle("a")
    let b = try circle("b", -73.9)
    let fromArray = Zone(id: "z", fences: [a])
    let fromList = Zone(id: "z", fences: fromArray.fences)
    var assigned = Zone(id: "z")
    assigned.fences = [a]
    #expect(fromArray == fromList)
    #expect(fromArray == assigned)
    #expect(fromArray.hashValue == assigned.hashValue)
    assigned.fences.append(b)
    #expect(assigned != fromArray)
    #expect(assigned.fences.map(\.id) == ["a", "b"])
  }

  @Test(arguments: [0, 1, 2])
  func anEvaluatorGivesTheZoneBackAsAdded(fenceCount: Int) throws {
    let fences = try (0..<fenceCount).map { try circle("f\($0)", -74.0 + Double($0) / 100) }
    let zone = Zone(id: "z", fences: fences, geolines: fenceCount == 0 ? [try geoline()] : [])
    let evaluator = try ZoneEvaluator(zones: [zone])
    #expect(evaluator.zones == [zone])
    #expect(Array(evaluator.zones[0].fences) == fences)
  }

  private func geoline() throws -> Geoline {
    Geoline(
      id: "g",
      line: try Polyline([
        Coordinate(latitude: 40.70, longitude: -74.02), Coordinate(latitude: 40.71, longitude: -74.01),
      ]))
  }
}
