import FenceGeometry
import FenceIndex
import FenceTestSupport
import Testing

/// The query kinds compared with ``BruteForceIndex``.
enum QueryKind: CaseIterable, Sendable {
  case point
  case box
  case radius
  case nearest
}

/// A seeded run that changes an ``RTree`` and a ``BruteForceIndex`` the same way and compares
/// their answers to many queries exactly.
struct OracleCheck: Sendable, CustomTestStringConvertible {
  var name: String
  var seed: UInt64
  var initialCount: Int
  var nodeSize: Int
  var tailCapacity: Int
  var rebuildDivisor: Int
  var rounds: Int
  var changesPerRound: Int
  var queriesPerRound: Int
  /// Fewest entries for the point grid (0: always a grid, when the boxes allow one).
  var pointGridMinimum: Int

  init(
    name: String, seed: UInt64, initialCount: Int, nodeSize: Int = RTree.defaultNodeSize,
    tailCapacity: Int = 128, rebuildDivisor: Int = 8, rounds: Int, changesPerRound: Int,
    queriesPerRound: Int, pointGridMinimum: Int = 4_096
  ) {
    self.pointGridMinimum = pointGridMinimum
    self.name = name
    self.seed = seed
    self.initialCount = initialCount
    self.nodeSize = nodeSize
    self.tailCapacity = tailCapacity
    self.rebuildDivisor = rebuildDivisor
    self.rounds = rounds
    self.changesPerRound = changesPerRound
    self.queriesPerRound = queriesPerRound
  }

  var testDescription: String { name }

  /// Runs the check; returns the number of queries compared.
  @discardableResult
  func run(_ kind: QueryKind) -> Int {
    var random = RandomBoxes(seed: seed)
    var oracle = BruteForceIndex()
    // The oracle's boxes by id, for exact distances without its linear lookup.
    var boxes: [Int32: BoundingBox] = [:]
    var items: [(id: Int32, box: BoundingBox)] = []
    for id in 0..<Int32(initialCount) {
      let box = random.box()
      items.append((id, box))
      oracle.insert(id: id, box: box)
      boxes[id] = box
    }
    // Some exact duplicates of earlier boxes under new ids, for ties.
    for k in 0..<(initialCount / 50) {
      let id = Int32(initialCount + k)
      let box = items[random.random.int(below: items.count)].box
      items.append((id, box))
      oracle.insert(id: id, box: box)
      boxes[id] = box
    }
    var index = RTree(
      items, nodeSize: nodeSize, tailCapacity: tailCapacity, rebuildDivisor: rebuildDivisor,
      pointGridMinimum: pointGridMinimum)
    index.checkInvariants()
    var nextID = Int32(items.count)
    var removed: [Int32] = []
    var found: [Int32] = []
    var expected: [Int32] = []
    var neighbors: [RTree.Neighbor] = []
    var scratch = RTree.NearestScratch()
    var compared = 0
    var failures = 0

    for round in 0..<rounds {
      // Changes: new items, removals of present and absent ids, re-insertion of removed ids.
      for _ in 0..<changesPerRound {
        switch random.random.int(below: 10) {
        case 0...3:
          let box = random.box()
          let inserted = index.insert(id: nextID, box: box)
          #expect(inserted == oracle.insert(id: nextID, box: box))
          boxes[nextID] = box
          nextID += 1
        case 4...6 where oracle.count > 0:
          let id = oracle.ids[random.random.int(below: oracle.count)]
          let wasRemoved = index.remove(id: id)
          #expect(wasRemoved)
          oracle.remove(id: id)
          boxes[id] = nil
          removed.append(id)
        case 7 where !removed.isEmpty:
          let id = removed.removeLast()
          let box = random.box()
          let inserted = index.insert(id: id, box: box)
          #expect(inserted)
          oracle.insert(id: id, box: box)
          boxes[id] = box
        case 8:
          let absent = nextID + 1000
          let wasRemoved = index.remove(id: absent)
          #expect(!wasRemoved)
        default:
          if oracle.count > 0 {
            let id = oracle.ids[random.random.int(below: oracle.count)]
            let inserted = index.insert(id: id, box: random.box())
            #expect(!inserted, "duplicate id \(id)")
            #expect(index.boundingBox(of: id) == oracle.boundingBox(of: id))
          }
        }
      }
      #expect(index.count == oracle.count && boxes.count == oracle.count)
      if round % max(1, rounds / 4) == 0 || round == rounds - 1 { index.checkInvariants() }

      for _ in 0..<queriesPerRound {
        found.removeAll(keepingCapacity: true)
        expected.removeAll(keepingCapacity: true)
        var description = ""
        switch kind {
        case .point:
          let p = random.position()
          // Every other point through the in-place form, which the evaluator uses.
          if compared % 2 == 0 {
            index.search(containing: p.latitude, longitude: p.longitude) { found.append($0) }
          } else {
            index.searchInPlace(containing: p.latitude, longitude: p.longitude) {
              found.append($0)
            }
          }
          oracle.search(containing: p.latitude, longitude: p.longitude) { expected.append($0) }
          description = "point \(p.coordinate)"
        case .box:
          let q = random.queryBox()
          index.search(intersecting: q) { found.append($0) }
          oracle.search(intersecting: q) { expected.append($0) }
          description = "box \(q)"
        case .radius:
          let p = random.position()
          let r = random.radius()
          index.search(within: r, of: p) { found.append($0) }
          oracle.search(within: r, of: p) { expected.append($0) }
          description = "radius \(r) m of \(p.coordinate)"
        case .nearest:
          let p = random.position()
          let r = random.radius()
          let k = 1 + random.random.int(below: 8)
          let style = random.random.int(below: 3)
          let exact = { (id: Int32) -> Double in
            guard let box = boxes[id] else { return .nan }
            let bound = BruteForceIndex.lowerBoundDistance(from: p, to: box)
            switch style {
            case 0: return bound  // many ties at 0 for boxes holding the point
            case 1: return max(bound, WGS84.distance(p.coordinate, centre(of: box)))
            default:  // coarse: ties between items at similar distances
              let d = max(bound, WGS84.distance(p.coordinate, centre(of: box)))
              return (d / 50_000).rounded(.up) * 50_000
            }
          }
          index.nearest(
            to: p, count: k, within: r, exactDistance: exact, into: &neighbors, scratch: &scratch)
          let truth = oracle.nearest(to: p, count: k, within: r, exactDistance: exact)
          found = neighbors.map(\.id)
          expected = truth.map(\.id)
          if neighbors.map(\.distance) != truth.map(\.distance) { expected.append(-1) }
          description = "nearest \(k) within \(r) m of \(p.coordinate) (style \(style))"
        }
        if kind != .nearest {
          found.sort()
          expected.sort()
        }
        compared += 1
        if found != expected {
          failures += 1
          Issue.record("\(name) round \(round): \(description): index \(found), oracle \(expected)")
          if failures >= 5 { return compared }
        }
      }
    }
    return compared
  }
}
