import FenceGeometry
import Testing

@testable import FenceEngine

#if canImport(Glibc)
  import Glibc

  /// The calling thread's allocation count, when a counting allocator is preloaded.
  ///
  /// To run: build a shared library exporting `long fencekit_allocation_count(void)` that wraps
  /// `malloc`, `calloc`, `realloc`, `memalign`, `aligned_alloc` and `posix_memalign` around
  /// glibc's `__libc_*` functions with a `__thread` counter, then
  /// `LD_PRELOAD=/path/libcount.so swift test -c release -Xswiftc -enable-testing --filter
  /// AllocationTests` (other test files of the target use `@testable import`, which a release
  /// build allows only with `-enable-testing`). Without it,
  /// or in a debug build (unoptimised code boxes captured variables and calls unspecialised
  /// generics, which allocate), the test is skipped.
  private let allocationCounter: (@convention(c) () -> Int)? = {
    // The main program's handle searches the global scope, preloaded libraries included.
    guard let program = dlopen(nil, RTLD_NOW),
      let symbol = dlsym(program, "fencekit_allocation_count")
    else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) () -> Int).self)
  }()
#else
  private let allocationCounter: (@convention(c) () -> Int)? = nil
#endif

#if DEBUG
  private let isOptimized = false
#else
  private let isOptimized = true
#endif

@Suite struct AllocationTests {
  /// With the device's records in an array of its own (a small fleet), and in a block of the
  /// record store (a fleet of ``ZoneRecordStore/pooledFleet`` or more).
  @Test(
    .enabled(
      if: allocationCounter != nil && isOptimized,
      "needs an optimised build and a preloaded counting allocator"),
    arguments: [false, true])
  func steadyStateFixesThatCauseNoEventAllocateNothing(pooling: Bool) throws {
    guard let count = allocationCounter else { return }
    // Circles, polygons and GEOLINEs around the path, with dwell, MRT, hysteresis and proximity.
    var zones: [Zone] = []
    for index in 0..<200 {
      let north = Double(index / 20) * 400
      let east = Double(index % 20) * 400
      if index % 3 == 0 {
        let ring = [at(north: north, east: east), at(north: north, east: east + 150),
          at(north: north + 150, east: east + 150), at(north: north, east: east)]
        zones.append(Zone(id: "p\(index)", fences: [
          Fence(id: "p\(index)-area", area: .polygon(MultiPolygon(try Polygon(exterior: ring))))
        ], rules: ZoneRules(minimumRetriggerTime: 60, dwell: 120, exitHysteresis: 10)))
      } else if index % 3 == 1 {
        zones.append(try circleZone("c\(index)", north: north, east: east, radius: 80,
          rules: ZoneRules(dwell: 30, exitConfirmations: 2)))
      } else {
        zones.append(Zone(id: "g\(index)", geolines: [
          try geoline("g\(index)-line", [(north - 100, east), (north + 100, east + 50)])
        ]))
      }
    }
    var evaluator = try ZoneEvaluator(
      configuration: .init(maximumSpeed: 100, proximity: .init(count: 5, radius: 600)),
      zones: zones)
    evaluator.recordPoolingFleet = pooling ? 0 : .max
    let handle = evaluator.handle(forDevice: "a")
    var events: [ZoneEvent] = []
    events.reserveCapacity(10_000)
    // Warm up: wander through the zones so every scratch buffer reaches its size.
    for step in 0..<2000 {
      let f = fix(Double(step), north: Double(step % 97) * 40, east: Double(step % 89) * 45)
      evaluator.process(f, device: handle, into: &events)
    }
    // Steady state: park inside a circle and jitter; then stand in open water.
    var quietFixes: [LocationFix] = []
    for step in 0..<500 {
      quietFixes.append(fix(3000 + Double(step), north: 400 + Double(step % 3), east: 400))
    }
    evaluator.process(fix(2500, north: 400, east: 400), device: handle, into: &events)
    // The same jitter once before it is counted: the cell cache attaches a polygon's tests to
    // a cell after some full tests there, and its storage for them grows then.
    for step in 0..<300 {
      let f = fix(2600 + Double(step), north: 400 + Double(step % 3), east: 400)
      evaluator.process(f, device: handle, into: &events)
    }
    evaluator.advance(to: t(2999), into: &events)
    let before = events.count
    let start = count()
    for f in quietFixes { evaluator.process(f, device: handle, into: &events) }
    let allocations = count() - start
    #expect(events.count == before)
    #expect(allocations == 0)
  }
}
