import FenceGeometry
@testable import FenceIndex
import FenceTestSupport
import Testing

/// The point search's occupancy grid: it may only reject points that no box holds.
@Suite struct OccupancyGridTests {
  /// `count` boxes of 0.002 to `size` degrees a side scattered over a 7 by 4 degree region (as the
  /// scaling benchmark's circles), every coordinate on a 0.001-degree grid one time in two so
  /// that queries land exactly on edges.
  static func scatteredBoxes(count: Int, size: Double, seed: UInt64) -> [(id: Int32, box: BoundingBox)] {
    var random = SeededGenerator(seed: seed)
    func snapped(_ value: Double) -> Double {
      random.int(below: 2) == 0 ? (value * 1000).rounded() / 1000 : value
    }
    return (0..<count).map { i in
      let south = snapped(random.double(in: 38...42))
      let west = snapped(random.double(in: -78 ... -71))
      let box = BoundingBox(
        south: south, west: west, north: max(south, snapped(south + random.double(in: 0.002...size))),
        east: max(west, snapped(west + random.double(in: 0.002...size))))
      return (Int32(i), box)
    }
  }

  static func grid(of items: [(id: Int32, box: BoundingBox)]) -> OccupancyGrid {
    var flat: [Double] = []
    for item in items {
      flat += [item.box.west, item.box.south, item.box.east, item.box.north]
    }
    return flat.withUnsafeBufferPointer { OccupancyGrid(boxes: $0, count: items.count) }
  }

  @Test func everyPointOfEveryBoxMayBeHeld() {
    let items = Self.scatteredBoxes(count: 300, size: 0.05, seed: 7)
    let grid = Self.grid(of: items)
    #expect(grid.isEnabled)
    var checked = 0
    for (_, box) in items {
      let xs = [box.west, box.east, (box.west + box.east) / 2, box.west.nextUp, box.east.nextDown]
      let ys = [box.south, box.north, (box.south + box.north) / 2, box.south.nextUp, box.north.nextDown]
      for x in xs where x >= box.west && x <= box.east {
        for y in ys where y >= box.south && y <= box.north {
          #expect(grid.mayHold(x: x, y: y), "(\(x), \(y)) in \(box)")
          checked += 1
        }
      }
    }
    #expect(checked == 300 * 25)
  }

  @Test func pointsBetweenScatteredBoxesAreMostlyRejected() {
    let items = Self.scatteredBoxes(count: 100, size: 0.01, seed: 11)
    let grid = Self.grid(of: items)
    #expect(grid.isEnabled)
    #expect(grid.columns * grid.rows >= OccupancyGrid.fewestCells / 2)
    var random = SeededGenerator(seed: 12)
    var rejected = 0
    for _ in 0..<10_000 {
      let x = random.double(in: -78 ... -71)
      let y = random.double(in: 38...42)
      let held = items.contains { $0.box.contains(latitude: y, longitude: x) }
      let may = grid.mayHold(x: x, y: y)
      #expect(may || !held)
      if !may { rejected += 1 }
    }
    // 100 boxes of at most 0.01 degrees cover well under a tenth of the region's cells.
    #expect(rejected > 9_000)
    // Outside the extent, and NaN: nothing.
    #expect(!grid.mayHold(x: -80, y: 40))
    #expect(!grid.mayHold(x: .nan, y: 40))
    #expect(!grid.mayHold(x: -75, y: .nan))
  }

  @Test func boxesCoveringMostCellsGetNoGrid() {
    // A 10 by 10 tiling of the extent: every cell is set.
    var items: [(id: Int32, box: BoundingBox)] = []
    for i in 0..<10 {
      for j in 0..<10 {
        let box = BoundingBox(
          south: Double(i), west: Double(j), north: Double(i + 1), east: Double(j + 1))
        items.append((Int32(items.count), box))
      }
    }
    #expect(!Self.grid(of: items).isEnabled)
    // One box only: its extent is itself, wholly set.
    #expect(!Self.grid(of: [(0, BoundingBox(south: 1, west: 1, north: 2, east: 2))]).isEnabled)
    // Slivers of extents: no trap, and every point of every box still "may" be held.
    let sliver: [(id: Int32, box: BoundingBox)] = [
      (0, BoundingBox(south: 0, west: 0, north: 1e-300, east: 1)),
      (1, BoundingBox(south: 0, west: 179, north: 0, east: 180)),
      (2, BoundingBox(south: -80, west: 5, north: 80, east: 5 + 1e-300)),
      (3, BoundingBox(south: 0, west: 5, north: 0, east: 5)),
    ]
    for items in [Array(sliver[0...1]), Array(sliver[2...3])] {
      let grid = Self.grid(of: items)
      for (_, box) in items {
        #expect(grid.mayHold(x: box.west, y: box.south))
        #expect(grid.mayHold(x: box.east, y: box.north))
      }
    }
    // No box, or boxes without area: no grid, every point "may" be held.
    #expect(!Self.grid(of: []).isEnabled)
    #expect(OccupancyGrid().mayHold(x: 1, y: 2))
  }

  /// The index with a grid in use answers point queries exactly as brute force, on box edges
  /// and corners too, after removals and after inserts into the delta tree.
  @Test func pointSearchWithTheGridMatchesBruteForce() {
    var items = Self.scatteredBoxes(count: 2_000, size: 0.02, seed: 21)
    var tree = RTree(items)
    #expect(tree.main.occupancy.isEnabled)
    for id in stride(from: Int32(0), to: 2_000, by: 7) { tree.remove(id: id) }
    items.removeAll { $0.id % 7 == 0 }
    for (id, box) in Self.scatteredBoxes(count: 400, size: 0.02, seed: 22) {
      let item = (id: id + 10_000, box: box)
      tree.insert(id: item.id, box: item.box)
      items.append(item)
    }
    tree.packTail()
    var random = SeededGenerator(seed: 23)
    var queries: [(x: Double, y: Double)] = []
    for _ in 0..<5_000 {
      queries.append((random.double(in: -78.1 ... -70.9), random.double(in: 37.9...42.1)))
    }
    for item in items.prefix(500) {
      queries.append((item.box.west, item.box.south))
      queries.append((item.box.east, item.box.north))
    }
    var mismatches = 0
    var hits = 0
    for (x, y) in queries {
      let expected = items.filter { $0.box.contains(latitude: y, longitude: x) }.map(\.id).sorted()
      let found = RTreeTests.ids { tree.search(containing: y, longitude: x, $0) }
      if found != expected { mismatches += 1 }
      hits += expected.count
    }
    #expect(mismatches == 0)
    // The corners are held by their own boxes at least.
    #expect(hits >= 1_000)
  }
}
