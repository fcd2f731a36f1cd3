import Benchmark
import FenceGEOS
import FenceGeometry
import FenceIndex
import FenceWorkloads
import GEOSBaseline

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Each benchmark runs in its own process, so the data is built in the benchmark's setup hook
// (outside every measurement), never at registration. Query benchmarks run 1,000 queries per
// iteration (`scalingFactor: .kilo`): the reported time and allocations are per query.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    timeUnits: .nanoseconds,
    warmupIterations: 2,
    maxDuration: .seconds(3),
    maxIterations: 1_000
  )

  for (count, label) in [(1_000, "1k"), (100_000, "100k"), (1_000_000, "1M")] {
    registerBuild(count: count, label: label)
    registerPointQuery(count: count, label: label)
  }
  for (count, label) in [(100_000, "100k"), (1_000_000, "1M")] {
    registerNearest(count: count, label: label)
  }
}

// MARK: - Bulk load

func registerBuild(count: Int, label: String) {
  let fixture = IndexFixture(count: count)
  let configuration = Benchmark.Configuration(
    scalingFactor: .one, maxDuration: .seconds(5), maxIterations: count >= 1_000_000 ? 8 : 200)

  Benchmark("Index build \(label) boxes: RTree", configuration: configuration) { benchmark in
    let items = fixture.workload.items
    benchmark.startMeasurement()
    let tree = RTree(items)
    benchmark.stopMeasurement()  // freeing the tree is not part of the build
    precondition(tree.count == count, "Built \(tree.count) of \(count) items")
  } setup: {
    fixture.prepareWorkload()
  }

  Benchmark("Index build \(label) boxes: GEOS STRtree", configuration: configuration) {
    benchmark in
    let items = fixture.workload.items
    let context = fixture.context
    benchmark.startMeasurement()
    let tree = makeGEOSTree(items, context: context)
    benchmark.stopMeasurement()
    precondition(tree.count == count, "Built \(tree.count) of \(count) boxes")
  } setup: {
    fixture.prepareWorkload()
  }
}

// MARK: - Point query

func registerPointQuery(count: Int, label: String) {
  let fixture = IndexFixture(count: count)
  let configuration = Benchmark.Configuration(scalingFactor: .kilo)

  // The default node size (16) and 8, for comparison; the same query loop.
  let variants: [(name: String, tree: (IndexFixture) -> RTree)] = [
    ("RTree", { $0.tree }), ("RTree node size 8", { $0.tree8 }),
  ]
  for variant in variants {
    Benchmark("Index point query \(label) boxes: \(variant.name)", configuration: configuration) {
      benchmark in
      // In place, as the engine searches (decision 0013).
      var tree = variant.tree(fixture)
      let points = fixture.points
      var hits = 0
      for i in benchmark.scaledIterations {
        tree.searchInPlace(containing: points[i].latitude, longitude: points[i].longitude) { _ in
          hits += 1
        }
      }
      blackHole(hits)
    } setup: {
      fixture.prepareTrees()
    }
  }

  Benchmark("Index point query \(label) boxes: GEOS STRtree", configuration: configuration) {
    benchmark in
    let tree = fixture.geosTree
    let points = fixture.points
    var hits = 0
    for i in benchmark.scaledIterations {
      geosQuery(tree, points[i]) { _ in hits += 1 }
    }
    blackHole(hits)
  } setup: {
    fixture.prepareTrees()
  }
}

// MARK: - Nearest

func registerNearest(count: Int, label: String) {
  let fixture = NearestFixture(count: count)
  let name = "Nearest 20 within 1 km, \(label) circles"

  Benchmark("\(name): RTree", configuration: .init(scalingFactor: .kilo)) { benchmark in
    let tree = fixture.tree
    let circles = fixture.workload.circles
    let points = fixture.points
    var results = fixture.results
    var scratch = fixture.scratch
    var found = 0
    for i in benchmark.scaledIterations {
      let position = points[i]
      tree.nearest(
        to: position, count: 20, within: 1000,
        exactDistance: { circles[Int($0)].distance(from: position.ecef) }, into: &results,
        scratch: &scratch)
      found += results.count
    }
    blackHole(found)
    fixture.results = results
    fixture.scratch = scratch
  } setup: {
    fixture.prepare()
  }

  Benchmark("\(name): RTree radius search + sort", configuration: .init(scalingFactor: .kilo)) {
    benchmark in
    let tree = fixture.tree
    let circles = fixture.workload.circles
    let points = fixture.points
    var candidates = fixture.candidates
    var results = fixture.results
    var found = 0
    for i in benchmark.scaledIterations {
      let position = points[i]
      candidates.removeAll(keepingCapacity: true)
      tree.search(within: 1000, of: position) { id in
        let d = circles[Int(id)].distance(from: position.ecef)
        if d <= 1000 { candidates.append(RTree.Neighbor(id: id, distance: d)) }
      }
      keepNearest(20, of: &candidates, into: &results)
      found += results.count
    }
    blackHole(found)
    fixture.candidates = candidates
    fixture.results = results
  } setup: {
    fixture.prepare()
  }

  Benchmark(
    "\(name): GEOS STRtree box query + sort", configuration: .init(scalingFactor: .kilo)
  ) { benchmark in
    let geos = fixture.geosTree
    let circles = fixture.workload.circles
    let points = fixture.points
    var candidates = fixture.candidates
    var results = fixture.results
    var found = 0
    for i in benchmark.scaledIterations {
      let position = points[i]
      geosNearest(geos, circles, position, candidates: &candidates, into: &results)
      found += results.count
    }
    blackHole(found)
    fixture.candidates = candidates
    fixture.results = results
  } setup: {
    fixture.prepare(withGEOS: true)
  }

  // A scan of a million circles takes milliseconds: one query per iteration there.
  let scanScale: BenchmarkScalingFactor = count >= 1_000_000 ? .one : .kilo
  Benchmark(
    "\(name): brute-force scan",
    configuration: .init(scalingFactor: scanScale, maxDuration: .seconds(5), maxIterations: 200)
  ) { benchmark in
    let scan = fixture.scan
    let points = fixture.points
    var results = fixture.results
    var found = 0
    for i in benchmark.scaledIterations {
      scan.nearest(to: points[i], count: 20, within: 1000, into: &results)
      found += results.count
    }
    blackHole(found)
    fixture.results = results
  } setup: {
    fixture.prepare()
  }
}

// MARK: - Fixtures

/// The boxes, query points and both trees of one index benchmark, built on first use.
final class IndexFixture {
  let count: Int
  private var _workload: CircleWorkload?
  private var _tree: RTree?
  private var _geosTree: GEOSSTRTree?
  private(set) var tree8 = RTree()
  private(set) var points: [Position] = []
  let context: GEOSContext

  init(count: Int) {
    self.count = count
    do { context = try GEOSContext() } catch { preconditionFailure("GEOS: \(error)") }
  }

  var workload: CircleWorkload {
    if let _workload { return _workload }
    let workload = CircleWorkload(count: count, region: .country)
    _workload = workload
    return workload
  }

  var tree: RTree {
    guard let _tree else { preconditionFailure("prepareTrees() was not called") }
    return _tree
  }

  var geosTree: GEOSSTRTree {
    guard let _geosTree else { preconditionFailure("prepareTrees() was not called") }
    return _geosTree
  }

  func prepareWorkload() {
    _ = workload
  }

  /// Builds both trees and checks that they find the same boxes for every query point.
  func prepareTrees() {
    let workload = self.workload
    points = workload.queryPoints(count: 1_000)
    let tree = RTree(workload.items)
    let geos = makeGEOSTree(workload.items, context: context)
    var total = 0
    for point in points {
      var ours: [Int32] = []
      var theirs: [Int32] = []
      tree.search(containing: point.latitude, longitude: point.longitude) { ours.append($0) }
      geosQuery(geos, point) { theirs.append($0) }
      precondition(
        ours.sorted() == theirs.sorted(),
        "RTree found \(ours.sorted()) but GEOS \(theirs.sorted()) at \(point.coordinate)")
      total += ours.count
    }
    precondition(total >= points.count / 2, "Only \(total) hits for \(points.count) points")
    _tree = tree
    _geosTree = geos
    tree8 = RTree(workload.items, nodeSize: 8)
  }
}

/// Circles in the metro region, their tree, and the reusable buffers of nearest-N.
final class NearestFixture {
  let count: Int
  private(set) var workload = CircleWorkload(count: 0, region: .metro)
  private(set) var tree = RTree()
  private(set) var scan = NearestByScan(circles: [])
  private(set) var points: [Position] = []
  private(set) var geosTree = PlainGEOSTree()
  var results: [RTree.Neighbor] = []
  var candidates: [RTree.Neighbor] = []
  var scratch = RTree.NearestScratch()

  init(count: Int) {
    self.count = count
  }

  /// Builds the tree and checks its answers against the scan on 100 query points, then warms
  /// the buffers up so that the measured queries reuse them.
  func prepare(withGEOS: Bool = false) {
    workload = CircleWorkload(count: count, region: .metro)
    tree = RTree(workload.items)
    scan = NearestByScan(circles: workload.circles)
    points = workload.queryPoints(count: 1_000)
    results.reserveCapacity(64)
    var expected: [RTree.Neighbor] = []
    let circles = workload.circles
    var found = 0
    for (index, position) in points.enumerated() {
      tree.nearest(
        to: position, count: 20, within: 1000,
        exactDistance: { circles[Int($0)].distance(from: position.ecef) }, into: &results,
        scratch: &scratch)
      if index < 100 {
        scan.nearest(to: position, count: 20, within: 1000, into: &expected)
        precondition(
          results == expected, "RTree found \(results), the scan \(expected) at \(position)")
      }
      candidates.removeAll(keepingCapacity: true)
      tree.search(within: 1000, of: position) { id in
        let d = circles[Int(id)].distance(from: position.ecef)
        if d <= 1000 { candidates.append(RTree.Neighbor(id: id, distance: d)) }
      }
      keepNearest(20, of: &candidates, into: &expected)
      precondition(results == expected, "Radius search + sort differs at \(position)")
      found += results.count
    }
    precondition(found > 10 * points.count, "Only \(found) neighbours for \(points.count) points")
    guard withGEOS else { return }
    geosTree = PlainGEOSTree()
    for (id, box) in workload.items {
      geosTree.insert(west: box.west, south: box.south, east: box.east, north: box.north, id: id)
    }
    for position in points {
      tree.nearest(
        to: position, count: 20, within: 1000,
        exactDistance: { circles[Int($0)].distance(from: position.ecef) }, into: &results,
        scratch: &scratch)
      geosNearest(geosTree, circles, position, candidates: &candidates, into: &expected)
      precondition(results == expected, "GEOS found \(expected), RTree \(results) at \(position)")
    }
  }
}

// MARK: - Nearest by box query and sort

/// Keeps the `count` nearest of `candidates` (by distance, then id) in `results`, sorted.
func keepNearest(_ count: Int, of candidates: inout [RTree.Neighbor], into results: inout [RTree.Neighbor]) {
  candidates.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
  results.removeAll(keepingCapacity: true)
  results.append(contentsOf: candidates.prefix(count))
}

/// Nearest-N the plain GEOS way: query the STRtree with the box that holds every point within
/// 1 km (degrees from the smallest radius of curvature, with a margin), measure each candidate
/// exactly, keep those within 1 km, sort.
func geosNearest(
  _ tree: PlainGEOSTree, _ circles: [Circle], _ position: Position,
  candidates: inout [RTree.Neighbor], into results: inout [RTree.Neighbor]
) {
  let dLat = 1000 / WGS84.minimumRadiusOfCurvature * 180 / .pi * 1.001
  let dLon = dLat / cos((abs(position.latitude) + dLat) * .pi / 180)
  candidates.removeAll(keepingCapacity: true)
  tree.query(
    west: position.longitude - dLon, south: position.latitude - dLat,
    east: position.longitude + dLon, north: position.latitude + dLat
  ) { id in
    let d = circles[Int(id)].distance(from: position.ecef)
    if d <= 1000 { candidates.append(RTree.Neighbor(id: id, distance: d)) }
  }
  keepNearest(20, of: &candidates, into: &results)
}

// MARK: - GEOS helpers

func makeGEOSTree(_ items: [(id: Int32, box: BoundingBox)], context: GEOSContext) -> GEOSSTRTree {
  do {
    let tree = try GEOSSTRTree(context: context)
    for (id, box) in items { try tree.insert(box, id: id) }
    try tree.query(latitude: 0, longitude: 0) { _ in }  // GEOS packs the tree on the first query
    return tree
  } catch {
    preconditionFailure("GEOS: \(error)")
  }
}

@inline(__always)
func geosQuery(_ tree: GEOSSTRTree, _ point: Position, _ visit: (Int32) -> Void) {
  do {
    try tree.query(latitude: point.latitude, longitude: point.longitude, visit)
  } catch {
    preconditionFailure("GEOS: \(error)")
  }
}
