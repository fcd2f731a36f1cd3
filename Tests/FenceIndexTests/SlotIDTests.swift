import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceIndex

/// An index whose ids are its entries' slots (ids given in the curve order of the boxes, as
/// the evaluator's element slots of a large load are) keeps no id index and no grid slots, and
/// answers as a linear scan, before and after removals and inserts.
@Suite struct SlotIDTests {
  /// `PointGridTests.fenceBoxes` with ids given in the curve order of their boxes.
  static func curveOrderedBoxes(count: Int, wide: Int, seed: UInt64) -> [(id: Int32, box: BoundingBox)] {
    let items = PointGridTests.fenceBoxes(count: count, wide: wide, seed: seed)
    let order = HilbertCurve.order(of: items.map(\.box))
    return order.enumerated().map { rank, index in (Int32(rank), items[index].box) }
  }

  @Test func idsInCurveOrderNeedNoIDIndexAndAnswerAsAScan() {
    let items = Self.curveOrderedBoxes(count: 4_500, wide: 100, seed: 41)
    var tree = RTree(items)
    tree.checkInvariants()
    #expect(tree.main.idsAreSlots)
    #expect(tree.main.idOrder.isEmpty)
    // Nor the ids themselves: each entry's id is read as its slot (4 MB at a million).
    #expect(tree.main.entries.idsAreSlots && tree.main.entries.storedIDs.isEmpty)
    #expect(tree.answersPointsFromGrid)
    #expect(tree.mainGrid?.slots.isEmpty == true)
    var oracle = BruteForceIndex()
    for (id, box) in items { oracle.insert(id: id, box: box) }
    let points = PointGridTests.probes(items, seed: 42)
    #expect(PointGridTests.mismatches(tree, oracle, points) == 0)
    #expect(Self.otherMismatches(tree, oracle, points) == 0)
    #expect(items.allSatisfy { tree.contains(id: $0.id) && tree.boundingBox(of: $0.id) == $0.box })
    #expect(!tree.contains(id: -1) && !tree.contains(id: 4_600) && tree.boundingBox(of: 4_600) == nil)

    // Removals leave the layout as it is; inserts go to the tail, with ids of any order.
    for id in stride(from: Int32(0), to: 4_600, by: 13) {
      let removed = tree.remove(id: id)
      #expect(removed)
      _ = oracle.remove(id: id)
    }
    let removedAgain = tree.remove(id: 13)
    #expect(!removedAgain)
    let extra = PointGridTests.fenceBoxes(count: 50, wide: 0, seed: 43)
    for (k, item) in extra.enumerated() {
      let id = Int32(10_000 - k)
      let inserted = tree.insert(id: id, box: item.box)
      #expect(inserted)
      oracle.insert(id: id, box: item.box)
    }
    tree.checkInvariants()
    #expect(tree.main.idsAreSlots)
    #expect(!tree.contains(id: 13) && tree.contains(id: 14) && tree.contains(id: 10_000))
    #expect(PointGridTests.mismatches(tree, oracle, points) == 0)
    #expect(Self.otherMismatches(tree, oracle, points) == 0)
  }

  /// Box, radius and nearest queries around each of `points` whose answers differ from the
  /// oracle's.
  static func otherMismatches(_ tree: RTree, _ oracle: BruteForceIndex, _ points: [Coordinate]) -> Int {
    var mismatches = 0
    var neighbors: [RTree.Neighbor] = []
    var scratch = RTree.NearestScratch()
    for (k, point) in points.enumerated() {
      let p = Position(point)
      let half = 0.002 * Double(1 + k % 5)
      let box = BoundingBox(
        south: point.latitude - half, west: point.longitude - half, north: point.latitude + half,
        east: point.longitude + half)
      var found: [Int32] = []
      var expected: [Int32] = []
      tree.search(intersecting: box) { found.append($0) }
      oracle.search(intersecting: box) { expected.append($0) }
      if found.sorted() != expected.sorted() { mismatches += 1 }
      found = []
      expected = []
      tree.search(within: 300, of: p) { found.append($0) }
      oracle.search(within: 300, of: p) { expected.append($0) }
      if found.sorted() != expected.sorted() { mismatches += 1 }
      let exact = { (id: Int32) -> Double in
        oracle.boundingBox(of: id).map { BruteForceIndex.lowerBoundDistance(from: p, to: $0) } ?? .nan
      }
      tree.nearest(to: p, count: 3, within: 5_000, exactDistance: exact, into: &neighbors, scratch: &scratch)
      let truth = oracle.nearest(to: p, count: 3, within: 5_000, exactDistance: exact)
      if neighbors.map(\.id) != truth.map(\.id) || neighbors.map(\.distance) != truth.map(\.distance) {
        mismatches += 1
      }
    }
    return mismatches
  }

  @Test func idsInAnotherOrderKeepTheIDIndexAndGridSlots() {
    // The same boxes with ids in generation order: the curve order is not theirs.
    let items = PointGridTests.fenceBoxes(count: 4_500, wide: 100, seed: 41)
    let tree = RTree(items)
    tree.checkInvariants()
    #expect(!tree.main.idsAreSlots)
    #expect(!tree.main.entries.idsAreSlots)
    #expect(tree.main.entries.storedIDs.count == tree.main.entryCount)
    #expect(tree.main.idOrder.count == tree.main.entryCount)
    #expect(tree.mainGrid.map { $0.slots.count == $0.listings.count } == true)
    // Curve-ordered ids that skip one (an element slot held by a GEOLINE) are not slots either.
    let skipping = Self.curveOrderedBoxes(count: 4_500, wide: 0, seed: 44).map {
      (id: $0.id < 100 ? $0.id : $0.id + 1, box: $0.box)
    }
    #expect(!RTree(skipping).main.idsAreSlots)
  }
}

/// `RTree(count:expected:item:)` packs the items its calls give, as the array initializer packs
/// the same items: the same answers, crossing items included, calls that give none skipped.
@Suite struct CountedItemsTests {
  @Test func itemsFromCallsGiveTheIndexOfTheArray() {
    var items = PointGridTests.fenceBoxes(count: 4_500, wide: 100, seed: 51)
    // Two items across the antimeridian.
    items.append((id: 9_001, box: BoundingBox(south: 10, west: 179.5, north: 11, east: -179.5)))
    items.append((id: 9_002, box: BoundingBox(south: -5, west: 170, north: 5, east: -170)))
    var calls = 0
    let counted = RTree(count: items.count * 2, expected: items.count) { k in
      calls += 1
      return k % 2 == 0 ? items[k / 2] : nil
    }
    #expect(calls == items.count * 2)
    counted.checkInvariants()
    #expect(counted.count == items.count)
    let packed = RTree(items)
    var oracle = BruteForceIndex()
    for (id, box) in items { oracle.insert(id: id, box: box) }
    var points = PointGridTests.probes(items, seed: 52)
    points += [Coordinate(uncheckedLatitude: 10.5, longitude: -179.8), Coordinate(uncheckedLatitude: 0, longitude: 175)]
    #expect(PointGridTests.mismatches(counted, oracle, points) == 0)
    #expect(PointGridTests.mismatches(packed, oracle, points) == 0)
    #expect(items.allSatisfy { counted.boundingBox(of: $0.id) == $0.box })
    #expect(counted.main.idsAreSlots == packed.main.idsAreSlots)
  }
}
