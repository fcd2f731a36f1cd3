import FenceGeometry
import FenceIndex
import FenceTestSupport
import Testing

/// The point grid that answers point searches of a large index (`PointGrid`, built at the
/// default size from 4,096 entries): fence-like sets, points on and just beside every edge,
/// against a linear scan, before and after removals.
@Suite struct PointGridTests {
  /// `count` boxes of 50-500 m half-sides over a 7° by 4° region, and `wide` boxes of 0.2-2°.
  static func fenceBoxes(count: Int, wide: Int, seed: UInt64) -> [(id: Int32, box: BoundingBox)] {
    var random = SeededGenerator(seed: seed)
    var items: [(id: Int32, box: BoundingBox)] = []
    for k in 0..<(count + wide) {
      let lat = random.double(in: 38...42)
      let lon = random.double(in: -78 ... -71)
      let half = k < count ? random.double(in: 0.00045...0.0045) : random.double(in: 0.1...1)
      items.append(
        (
          Int32(k),
          BoundingBox(
            south: max(-90, lat - half), west: max(-180, lon - half), north: min(90, lat + half),
            east: min(180, lon + half))
        ))
    }
    return items
  }

  /// Points on each box's corners and edges, and a step beside each, plus random points.
  static func probes(
    _ items: [(id: Int32, box: BoundingBox)], seed: UInt64, boxes: Int = 500, random count: Int = 4_000
  ) -> [Coordinate] {
    var random = SeededGenerator(seed: seed)
    var points: [Coordinate] = []
    for (_, box) in items.prefix(boxes) {
      for lat in [box.south, box.north, box.south.nextDown, box.north.nextUp] {
        for lon in [box.west, box.east, box.west.nextDown, box.east.nextUp, (box.west + box.east) / 2] {
          points.append(Coordinate(uncheckedLatitude: lat, longitude: lon))
        }
      }
    }
    for _ in 0..<count {
      points.append(
        Coordinate(
          uncheckedLatitude: random.double(in: 37.5...42.5),
          longitude: random.double(in: -78.5 ... -70.5)))
    }
    return points
  }

  static func mismatches(
    _ tree: RTree, _ oracle: BruteForceIndex, _ points: [Coordinate]
  ) -> Int {
    var wrong = 0
    var found: [Int32] = []
    var expected: [Int32] = []
    for p in points {
      found.removeAll(keepingCapacity: true)
      expected.removeAll(keepingCapacity: true)
      tree.search(containing: p.latitude, longitude: p.longitude) { found.append($0) }
      oracle.search(containing: p.latitude, longitude: p.longitude) { expected.append($0) }
      if found.sorted() != expected.sorted() { wrong += 1 }
    }
    return wrong
  }

  @Test func pointSearchesOfAFenceLikeSetEqualALinearScanBeforeAndAfterRemovals() {
    let items = Self.fenceBoxes(count: 4_500, wide: 100, seed: 21)
    var tree = RTree(items)
    var oracle = BruteForceIndex()
    for (id, box) in items { oracle.insert(id: id, box: box) }
    tree.checkInvariants()
    #expect(tree.answersPointsFromGrid)
    #expect(!RTree(items.prefix(4_000)).answersPointsFromGrid)  // under 4,096 entries
    let points = Self.probes(items, seed: 22)
    var hits = 0
    for p in points { tree.search(containing: p.latitude, longitude: p.longitude) { _ in hits += 1 } }
    #expect(hits > points.count / 2)  // the probes meet boxes: the comparison is not vacuous
    #expect(Self.mismatches(tree, oracle, points) == 0)

    // Removals below the rebuild share stay in the grid as emptied listings.
    for id in stride(from: Int32(0), to: 4_600, by: 13) {
      let removed = tree.remove(id: id)
      #expect(removed)
      _ = oracle.remove(id: id)
    }
    tree.checkInvariants()
    #expect(Self.mismatches(tree, oracle, points) == 0)
  }

  @Test func zeroSizeBoxesAndASetOfOnlyWideBoxesStillAnswerExactly() {
    // Points as boxes (GEOLINE vertices, degenerate fences): the cells take a 4096th of the extent.
    var points: [(id: Int32, box: BoundingBox)] = []
    var random = SeededGenerator(seed: 31)
    for k in 0..<4_500 {
      let lat = (random.double(in: 40...41) * 1_000).rounded() / 1_000
      let lon = (random.double(in: -74...(-73)) * 1_000).rounded() / 1_000
      points.append((Int32(k), BoundingBox(south: lat, west: lon, north: lat, east: lon)))
    }
    var oracle = BruteForceIndex()
    for (id, box) in points { oracle.insert(id: id, box: box) }
    let tree = RTree(points)
    tree.checkInvariants()
    #expect(tree.answersPointsFromGrid)
    let probes = points.prefix(2_000).map {
      Coordinate(uncheckedLatitude: $0.box.south, longitude: $0.box.west)
    }
    #expect(Self.mismatches(tree, oracle, probes) == 0)

    // Boxes of very different sizes: more than a quarter wide, so no grid; the same answers.
    let mixed = Self.fenceBoxes(count: 3_000, wide: 1_200, seed: 32)
    var mixedOracle = BruteForceIndex()
    for (id, box) in mixed { mixedOracle.insert(id: id, box: box) }
    let mixedTree = RTree(mixed)
    mixedTree.checkInvariants()
    #expect(!mixedTree.answersPointsFromGrid)
    #expect(Self.mismatches(mixedTree, mixedOracle, Self.probes(mixed, seed: 33, boxes: 200, random: 2_000)) == 0)
  }
}
