import FenceGeometry
@testable import FenceIndex
import FenceTestSupport
import Testing

@Suite struct RTreeTests {
  static func ids(_ search: ((Int32) -> Void) -> Void) -> [Int32] {
    var found: [Int32] = []
    search { found.append($0) }
    return found.sorted()
  }

  static let fiji = BoundingBox(south: -20, west: 170, north: -10, east: -170)  // crosses 180
  static let east = BoundingBox(south: -20, west: 175, north: -10, east: 180)  // ends at 180
  static let west = BoundingBox(south: -20, west: -180, north: -10, east: -175)  // starts at -180
  static let arctic = BoundingBox(south: 80, west: 0, north: 90, east: 10)
  static let origin = BoundingBox(south: -1, west: -1, north: 1, east: 1)

  static func sample() -> RTree {
    let items: [(id: Int32, box: BoundingBox)] = [
      (1, fiji), (2, east), (3, west), (4, arctic), (5, origin),
    ]
    let tree = RTree(items, nodeSize: 2)
    tree.checkInvariants()
    return tree
  }

  @Test func pointSearchIncludesEdgesAndJoinsTheTwoNamesOfTheAntimeridian() {
    let tree = Self.sample()
    #expect(Self.ids { tree.search(containing: 1, longitude: 1, $0) } == [5])  // corner
    #expect(Self.ids { tree.search(containing: -15, longitude: 178, $0) } == [1, 2])
    #expect(Self.ids { tree.search(containing: -15, longitude: -178, $0) } == [1, 3])
    #expect(Self.ids { tree.search(containing: -15, longitude: 180, $0) } == [1, 2, 3])
    #expect(Self.ids { tree.search(containing: -15, longitude: -180, $0) } == [1, 2, 3])
    #expect(Self.ids { tree.search(containing: -15, longitude: 0, $0) } == [])
    #expect(Self.ids { tree.search(containing: 90, longitude: 5, $0) } == [4])
    #expect(Self.ids { tree.search(containing: .nan, longitude: 0, $0) } == [])
  }

  @Test func pointSearchIsExactAtEdgesThatAFloatCannotHold() {
    // 0.1 and 40.7 are not Floats: the Float boxes are wider, the answer must not be.
    let box = BoundingBox(south: 40.7, west: -73.9, north: 40.700_000_1, east: 0.1)
    var items: [(id: Int32, box: BoundingBox)] = [(7, box)]
    for id in 100..<Int32(400) {  // neighbours, so the tree has internal levels
      let d = Double(id) * 1e-9
      items.append((id, BoundingBox(south: 40.7 + d, west: 0.1 + d, north: 40.8, east: 0.2)))
    }
    let tree = RTree(items, nodeSize: 4)
    tree.checkInvariants()
    let epsilon = 1e-13
    #expect(Self.ids { tree.search(containing: 40.7, longitude: 0.1, $0) } == [7])
    #expect(Self.ids { tree.search(containing: 40.7, longitude: 0.1 + epsilon, $0) } == [])
    #expect(Self.ids { tree.search(containing: 40.7 - epsilon, longitude: 0, $0) } == [])
    #expect(Self.ids { tree.search(containing: 40.700_000_1, longitude: -73.9, $0) } == [7])
    #expect(Self.ids { tree.search(containing: 40.700_000_1 + epsilon, longitude: 0, $0) } == [])
    #expect(Self.ids { tree.search(containing: 40.7, longitude: -73.9 - epsilon, $0) } == [])
    #expect(Self.ids { tree.search(containing: 40.700_000_05, longitude: 0.1 - 1e-9, $0) } == [7])
    #expect(
      Self.ids { tree.search(containing: 40.75, longitude: 0.1 + 3e-7, $0) }
        == Array(100..<400).filter { 0.1 + Double($0) * 1e-9 <= 0.1 + 3e-7 })
  }

  @Test func floatRoundingIsOutward() {
    var random = RandomBoxes(seed: 5)
    for _ in 0..<10_000 {
      let value = random.longitude()
      let down = Float(roundingDown: value)
      let up = Float(roundingUp: value)
      #expect(Double(down) <= value && Double(up) >= value)
      #expect(Double(down.nextUp) > value && Double(up.nextDown) < value)
      // The position's nearest Float never leaves an outward-rounded interval holding it.
      #expect(Float(value) >= down && Float(value) <= up)
    }
  }

  @Test func boxSearchReportsACrossingItemOnce() {
    let tree = Self.sample()
    let everywhere = BoundingBox(south: -90, west: -180, north: 90, east: 180)
    #expect(Self.ids { tree.search(intersecting: everywhere, $0) } == [1, 2, 3, 4, 5])
    let acrossTheLine = BoundingBox(south: -12, west: 179, north: -11, east: -179)
    #expect(Self.ids { tree.search(intersecting: acrossTheLine, $0) } == [1, 2, 3])
    let touchingAt180 = BoundingBox(south: -12, west: 100, north: -11, east: 180)
    #expect(Self.ids { tree.search(intersecting: touchingAt180, $0) } == [1, 2, 3])
  }

  @Test func radiusSearchWrapsAroundTheAntimeridianAndThePole() {
    let tree = Self.sample()
    // Half a degree from the boxes ending at 180 and -180: about 54 km.
    let p = Position(Coordinate(uncheckedLatitude: -15, longitude: -179.5))
    #expect(Self.ids { tree.search(within: 60_000, of: p, $0) } == [1, 2, 3])
    #expect(Self.ids { tree.search(within: 50_000, of: p, $0) } == [1, 3])
    // 10° and 15° of longitude west of the crossing box and the box ending at 180, at 15° S:
    // about 1 068 km and 1 600 km on the sphere.
    let q = Position(Coordinate(uncheckedLatitude: -15, longitude: 160))
    #expect(Self.ids { tree.search(within: 1_000_000, of: q, $0) } == [])
    #expect(Self.ids { tree.search(within: 1_500_000, of: q, $0) } == [1])
    #expect(Self.ids { tree.search(within: 1_700_000, of: q, $0) } == [1, 2])
    // Across the north pole: the box at 0...10° E is 10° of latitude from 80° N, 180° E.
    let r = Position(Coordinate(uncheckedLatitude: 80, longitude: 180))
    #expect(Self.ids { tree.search(within: 1_110_000, of: r, $0) } == [4])
    #expect(Self.ids { tree.search(within: 1_100_000, of: r, $0) } == [])
  }

  @Test func lowerBoundIsTheSphereDistanceToTheNearestEdge() {
    let radius = WGS84.minimumRadiusOfCurvature
    let p = Position(Coordinate(uncheckedLatitude: 0, longitude: 0))
    let north = BoundingBox(south: 1, west: -1, north: 2, east: 1)
    let d = RTree.lowerBoundDistance(from: p, to: north)
    #expect(abs(d - radius * .pi / 180) < 1e-6)
    #expect(RTree.lowerBoundDistance(from: p, to: Self.origin) == 0)
    // Against the independent formula of the oracle, on random boxes.
    var random = RandomBoxes(seed: 7)
    for _ in 0..<2_000 {
      let q = random.position()
      let box = random.box()
      let a = RTree.lowerBoundDistance(from: q, to: box)
      let b = BruteForceIndex.lowerBoundDistance(from: q, to: box)
      #expect(abs(a - b) <= 1e-6 + 1e-9 * b, "\(q.coordinate) \(box): \(a) vs \(b)")
    }
  }

  @Test func cheapBoundIsBelowTheSphereDistanceWithinReachAndClose() {
    var random = RandomBoxes(seed: 9)
    var closeOutside = 0
    for i in 0..<5_000 {
      let box = random.box()
      var q = random.position()
      if i % 2 == 1 {
        // Just west of the box, within its latitudes (widened a little): a few km away.
        let south = max(-90, box.south - 0.05)
        let north = min(90, box.north + 0.05)
        var lon = box.west - random.random.double(in: 0.001...0.05)
        if lon < -180 { lon += 360 }
        q = Position(
          Coordinate(
            uncheckedLatitude: south + (north - south) * random.random.double(in: 0...1),
            longitude: lon))
      }
      let exact = RTree.lowerBoundDistance(from: q, to: box)
      let probe = SphericalBoxLowerBound(
        latitude: q.latitude, longitude: q.longitude, reach: exact * 1.001 + 1)
      let (first, second) = box.planarParts
      var h = probe.haversine(
        west: first.west, south: first.south, east: first.east, north: first.north)
      if let second {
        h = min(
          h,
          probe.haversine(
            west: second.west, south: second.south, east: second.east, north: second.north))
      }
      let bound = SphericalBoxLowerBound.metres(haversine: h)
      #expect(bound <= exact * (1 + 1e-12) + 1e-9, "\(q.coordinate) \(box): \(bound) > \(exact)")
      if exact > 0 && exact < 20_000 && abs(q.latitude) < 60 {
        #expect(bound >= exact * 0.98, "\(q.coordinate) \(box): \(bound) far below \(exact)")
        closeOutside += 1
      }
    }
    #expect(closeOutside > 500)
  }

  @Test func nearestBreaksTiesByIdAndLeavesOutItemsBeyondTheRadius() {
    var tree = RTree(nodeSize: 4)
    // Twelve identical boxes and two farther ones, inserted out of order.
    for id in [9, 3, 11, 0, 7, 5, 1, 10, 2, 8, 6, 4] as [Int32] {
      tree.insert(id: id, box: BoundingBox(south: 10, west: 10, north: 11, east: 11))
    }
    tree.insert(id: 20, box: BoundingBox(south: 12, west: 10, north: 13, east: 11))
    tree.insert(id: 21, box: BoundingBox(south: 40, west: 10, north: 41, east: 11))
    tree.checkInvariants()
    let p = Position(Coordinate(uncheckedLatitude: 10.5, longitude: 10.5))
    var results: [RTree.Neighbor] = []
    var scratch = RTree.NearestScratch()
    let exact = { (id: Int32) -> Double in id >= 20 ? 200_000 * Double(id - 19) : 0 }
    tree.nearest(
      to: p, count: 5, within: 1_000_000, exactDistance: exact, into: &results, scratch: &scratch)
    #expect(results.map(\.id) == [0, 1, 2, 3, 4])
    tree.nearest(
      to: p, count: 20, within: 300_000, exactDistance: exact, into: &results, scratch: &scratch)
    #expect(results.map(\.id) == Array(0...11) + [20])
    #expect(results.last == RTree.Neighbor(id: 20, distance: 200_000))
  }

  @Test func insertAndRemoveReportWhetherTheyChangedAnything() {
    var tree = Self.sample()
    let added = tree.insert(id: 5, box: Self.arctic)
    #expect(!added)
    #expect(tree.boundingBox(of: 5) == Self.origin)
    #expect(tree.boundingBox(of: 1) == Self.fiji)
    let removals = [tree.remove(id: 1), tree.remove(id: 1), tree.remove(id: 42)]
    #expect(removals == [true, false, false])
    #expect(!tree.contains(id: 1))
    #expect(tree.count == 4)
    tree.checkInvariants()
    let readded = tree.insert(id: 1, box: Self.origin)
    #expect(readded)
    #expect(Self.ids { tree.search(containing: 0, longitude: 0, $0) } == [1, 5])
    tree.compact()
    tree.checkInvariants()
    #expect(Self.ids { tree.search(containing: 0, longitude: 0, $0) } == [1, 5])
  }

  @Test func copiesDoNotShareChanges() {
    let original = Self.sample()
    var copy = original
    copy.remove(id: 5)
    #expect(original.contains(id: 5))
    #expect(!copy.contains(id: 5))
  }

  @Test func manyInsertsThenRemovesKeepTheInvariants() {
    var tree = RTree([], nodeSize: 16)
    var random = RandomBoxes(seed: 3)
    for id in 0..<Int32(3_000) {
      tree.insert(id: id, box: random.box())
      if id % 700 == 0 { tree.checkInvariants() }
    }
    #expect(tree.count == 3_000)
    tree.checkInvariants()
    for id in stride(from: Int32(0), to: 3_000, by: 2) { tree.remove(id: id) }
    #expect(tree.count == 1_500)
    tree.checkInvariants()
  }

  @Test func packingTheTailMovesItsItemsIntoTheDeltaAndKeepsEveryAnswer() {
    var random = RandomBoxes(seed: 11)
    var oracle = BruteForceIndex()
    var items: [(id: Int32, box: BoundingBox)] = []
    for id in Int32(0)..<1_000 {
      let box = random.box()
      items.append((id, box))
      oracle.insert(id: id, box: box)
    }
    var tree = RTree(items)
    for id in Int32(1_000)..<1_050 {
      let box = random.box()
      oracle.insert(id: id, box: box)
      tree.insert(id: id, box: box)
    }
    tree.remove(id: 1_003)
    oracle.remove(id: 1_003)
    #expect(tree.tail.count >= 49)
    let before = tree.delta.entryCount
    var queries: [(Double, Double)] = []
    for _ in 0..<300 { queries.append((random.latitude(), random.longitude())) }
    let expected = queries.map { q in Self.ids { oracle.search(containing: q.0, longitude: q.1, $0) } }
    func answers() -> [[Int32]] {
      queries.map { q in Self.ids { tree.search(containing: q.0, longitude: q.1, $0) } }
    }
    #expect(answers() == expected)
    tree.packTail()
    #expect(tree.tail.count == 0)
    #expect(tree.delta.entryCount >= before + 49)
    #expect(tree.count == 1_049)
    tree.checkInvariants()
    #expect(answers() == expected)
    #expect(expected.contains { !$0.isEmpty })
    // Nothing to pack: nothing changes.
    let delta = tree.delta.entryCount
    tree.packTail()
    #expect(tree.delta.entryCount == delta)
  }
}
