import Benchmark
import FenceEngine
import FenceGEOS
import FenceGeometry
import FenceTesting
import FenceWorkloads

#if canImport(Glibc)
  import Glibc
#endif

// Per-fix cost of the whole engine (`ZoneEvaluator.process`) beside a plain GEOS evaluation of
// the same fixes: a GEOS STRtree point query, then for each hit a distance test (circles, the
// same ECEF chord test FenceGeometry uses) or GEOS prepared covers (polygons). The GEOS loop
// only answers "which fences hold the fix"; the engine also keeps per-device state and emits
// events, so the GEOS figure is a lower bound for an engine built on GEOS.
//
// 1,000 devices walk in 20 m steps; fix k belongs to device k mod 1000, one second after the
// device's previous fix. Each iteration processes the next 1,000 fixes (`scalingFactor: .kilo`),
// so times and allocations are per fix. Setup loads the zones, checks that the engine's inside
// count matches GEOS's on the first fixes, and runs 20 rounds so that buffers are warm.
//
// Each device's path has 512 steps and then starts over, so a long run revisits cells: the
// engine's cell cache (on by default) sees a device enter a new 1/1024-degree cell about every
// fifth fix on its first lap and cells it already filed afterwards, unless the cache was
// emptied (the 1,000 walks cross roughly 100,000 cells, more than the default 65,536, so the
// cache also empties and refills). The "without cell cache" rows show the cost with the cache
// off, as for a stream that never revisits a cell.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    timeUnits: .nanoseconds,
    warmupIterations: 2,
    scalingFactor: .kilo,
    maxDuration: .seconds(3),
    maxIterations: 2_000
  )

  for (count, label) in [(1_000, "1k"), (100_000, "100k"), (1_000_000, "1M")] {
    register("\(label) circles") { EngineFixture.circles(count: count, configuration: $0) }
  }
  register("tz-world polygons") { EngineFixture.tzWorld(configuration: $0) }
  registerGrowing()
  registerRulesV2()
}

/// Rules v2 (issue 15) on every zone against none: the 100k circles of `Engine 100k circles`,
/// once with default rules and once with every zone given a schedule that always arms it
/// (`UTC`, every day `00:00`-`00:00`) and a speed condition every fix passes (`maxSpeed`
/// 100 km/s), so the schedule and condition machinery runs and the events stay those of the
/// default rules. The fixes carry no speed after each device's first (which carries 20 m/s, so
/// that it passes too): the engine derives the speed and course of every later fix from the
/// device's previous one. Setup builds both engines and checks, fix by fix over 20 rounds,
/// that each agrees with GEOS and that both give the same check-ins and check-outs (kind,
/// time, device, zone). The first fix, which puts every zone on the zone clock, is in setup.
func registerRulesV2() {
  let name = "Engine 100k circles, rules v2 on every zone"
  let plain = RulesV2Holder(measuresRulesV2: false)
  let ruled = RulesV2Holder(measuresRulesV2: true)

  Benchmark("\(name): ZoneEvaluator") { benchmark in
    guard let fixture = plain.fixture else { return }
    fixture.runEngine(fixes: benchmark.scaledIterations.count)
  } setup: {
    plain.prepare()
  }

  Benchmark("\(name): ZoneEvaluator with schedule and conditions") { benchmark in
    guard let fixture = ruled.fixture else { return }
    fixture.runEngine(fixes: benchmark.scaledIterations.count)
  } setup: {
    ruled.prepare()
  }
}

extension ZoneRules {
  /// The default rules plus an always-armed schedule and a speed condition every fix passes.
  static var alwaysArmedAndAdmitting: ZoneRules {
    var rules = ZoneRules.default
    rules.schedule = ZoneSchedule(
      timeZone: "UTC",
      windows: [
        .init(
          days: ZoneSchedule.Weekday.allCases, from: .init(parsing: "00:00")!,
          to: .init(parsing: "00:00")!)
      ])
    rules.conditions = ZoneConditions(maximumSpeed: 100_000)
    return rules
  }
}

/// Makes both engines of the rules v2 workload in the benchmark's setup hook, checks them
/// against GEOS and against each other, and keeps the one measured.
final class RulesV2Holder {
  static let firstFixSpeed = 20.0
  let measuresRulesV2: Bool
  private(set) var fixture: EngineFixture?

  init(measuresRulesV2: Bool) {
    self.measuresRulesV2 = measuresRulesV2
  }

  func prepare() {
    let plain = EngineFixture.circles(count: 100_000)
    let ruled = EngineFixture.circles(count: 100_000, rules: .alwaysArmedAndAdmitting)
    let plainLog = plain.checkAndWarmUp(firstFixSpeed: Self.firstFixSpeed)
    let ruledLog = ruled.checkAndWarmUp(firstFixSpeed: Self.firstFixSpeed)
    let common = min(plainLog.count, ruledLog.count)
    if let index = (0..<common).first(where: { plainLog[$0] != ruledLog[$0] }) {
      preconditionFailure(
        "Check-in/out \(index) differs: \(plainLog[index]) by default rules, "
          + "\(ruledLog[index]) with schedule and conditions")
    }
    precondition(
      plainLog.count == ruledLog.count,
      "\(plainLog.count) check-ins and check-outs by default rules, \(ruledLog.count) with "
        + "schedule and conditions")
    fixture = measuresRulesV2 ? ruled : plain
  }
}

/// What a check-in or check-out is compared on.
struct CheckRecord: Equatable {
  let kind: ZoneEvent.Kind
  let time: Timestamp
  let device: String
  let zone: String?
}

/// Adding fences one by one while evaluating: at 100k circles, each step adds one new circle
/// zone (prebuilt in setup) and then processes one fix; 1,000 steps per iteration, 10
/// iterations after 2 warm-up ones, so 12,000 fences are added in all.
func registerGrowing() {
  let holder = FixtureHolder { EngineFixture.circles(count: 100_000) }
  var newZones: [Zone] = []
  var nextZone = 0
  Benchmark(
    "Engine 100k circles: add one fence, then one fix",
    configuration: .init(
      metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds,
      warmupIterations: 2, scalingFactor: .kilo, maxDuration: .seconds(60), maxIterations: 10)
  ) { benchmark in
    guard let fixture = holder.fixture else { return }
    for _ in benchmark.scaledIterations {
      precondition(nextZone < newZones.count, "Out of prebuilt zones")
      do {
        try fixture.evaluator.add(newZones[nextZone])
      } catch {
        preconditionFailure("Zone does not load: \(error)")
      }
      nextZone += 1
      fixture.runEngine(fixes: 1)
    }
  } setup: {
    holder.prepare()
    let extra = CircleWorkload(count: 12_000, region: .country, seed: 0xADD)
    newZones = extra.circles.enumerated().map { index, circle in
      Zone(id: "new\(index)", fences: [Fence(id: "newf\(index)", area: .circle(circle))])
    }
  }
}

func register(
  _ name: String, make: @escaping (ZoneEvaluator.Configuration) -> EngineFixture?
) {
  let holder = FixtureHolder { make(.default) }
  let skipping = FixtureHolder { make(ZoneEvaluator.Configuration(skipsUnchangedFixes: true)) }
  let uncached = FixtureHolder { make(ZoneEvaluator.Configuration(cellCacheCapacity: 0)) }

  Benchmark("Engine \(name): ZoneEvaluator") { benchmark in
    guard let fixture = holder.fixture else { return }
    fixture.runEngine(fixes: benchmark.scaledIterations.count)
  } setup: {
    holder.prepare()
  }

  // The cell cache off: every fix searches the R-tree and tests every fence whose box holds it
  // (what a stream that never revisits a cell would cost).
  Benchmark("Engine \(name): ZoneEvaluator without cell cache") { benchmark in
    guard let fixture = uncached.fixture else { return }
    fixture.runEngine(fixes: benchmark.scaledIterations.count)
  } setup: {
    uncached.prepare()
  }

  Benchmark(
    "Engine \(name): ZoneEvaluator latency",
    configuration: .init(
      metrics: [.wallClock, .mallocCountTotal, LatencyMetric.p50, LatencyMetric.p99],
      timeUnits: .nanoseconds, warmupIterations: 2, scalingFactor: .kilo,
      maxDuration: .seconds(3), maxIterations: 2_000)
  ) { benchmark in
    guard let fixture = holder.fixture else { return }
    fixture.runEngine(fixes: benchmark.scaledIterations.count, timingEach: true)
    benchmark.stopMeasurement()
    let (p50, p99) = fixture.latencyPercentiles()
    benchmark.measurement(LatencyMetric.p50, p50)
    benchmark.measurement(LatencyMetric.p99, p99)
  } setup: {
    holder.prepare()
  }

  Benchmark(
    "Engine \(name): ZoneEvaluator with skipping",
    configuration: .init(
      metrics: [.wallClock, .throughput, .mallocCountTotal, SkipMetric.skipped],
      timeUnits: .nanoseconds, warmupIterations: 2, scalingFactor: .kilo,
      maxDuration: .seconds(3), maxIterations: 2_000)
  ) { benchmark in
    guard let fixture = skipping.fixture else { return }
    let before = fixture.evaluator.skippedFixCount
    fixture.runEngine(fixes: benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
    benchmark.measurement(SkipMetric.skipped, fixture.evaluator.skippedFixCount - before)
  } setup: {
    skipping.prepare()
  }

  Benchmark("Engine \(name): plain GEOS") { benchmark in
    guard let fixture = holder.fixture else { return }
    fixture.runGEOS(fixes: benchmark.scaledIterations.count)
  } setup: {
    holder.prepare()
  }
}

/// Percentiles of the time of single fixes within one batch of 1,000, timed one by one with
/// `clock_gettime(CLOCK_MONOTONIC)` (which adds about 20-40 ns to each).
enum LatencyMetric {
  static let p50 = BenchmarkMetric.custom(
    "Fix latency p50 (ns)", polarity: .prefersSmaller, useScalingFactor: false)
  static let p99 = BenchmarkMetric.custom(
    "Fix latency p99 (ns)", polarity: .prefersSmaller, useScalingFactor: false)
}

/// How many of the 1,000 fixes of an iteration the engine skipped.
enum SkipMetric {
  static let skipped = BenchmarkMetric.custom(
    "Skipped fixes of 1000", polarity: .prefersLarger, useScalingFactor: false)
}

/// Makes the fixture in the benchmark's setup hook (each benchmark runs in its own process).
final class FixtureHolder {
  private let make: () -> EngineFixture?
  private(set) var fixture: EngineFixture?

  init(make: @escaping () -> EngineFixture?) {
    self.make = make
  }

  func prepare() {
    fixture = make()
    fixture?.checkAndWarmUp()
  }
}

/// One set of fences loaded in both the engine and GEOS, the devices' paths, and the state of
/// the replay.
final class EngineFixture {
  static let deviceCount = 1_000
  static let stepsPerPath = 512

  enum GEOSShape {
    case circle(Circle)
    case polygon(PreparedShape)
  }

  var evaluator: ZoneEvaluator
  let handles: [ZoneEvaluator.DeviceHandle]
  /// `paths[device * stepsPerPath + step]`.
  let paths: [Coordinate]
  let geosTree: GEOSSTRTree
  let geosShapes: [GEOSShape]
  var events: [ZoneEvent] = []
  /// The index of the next fix.
  var next = 0
  var latencies: [UInt64] = []

  init(zones: [Zone], starts: [Coordinate], configuration: ZoneEvaluator.Configuration) {
    precondition(starts.count == Self.deviceCount, "One start per device")
    var evaluator: ZoneEvaluator
    do {
      evaluator = try ZoneEvaluator(configuration: configuration, zones: zones)
    } catch {
      preconditionFailure("Zones do not load: \(error)")
    }
    handles = (0..<Self.deviceCount).map { evaluator.handle(forDevice: "d\($0)") }
    self.evaluator = evaluator
    var paths: [Coordinate] = []
    paths.reserveCapacity(Self.deviceCount * Self.stepsPerPath)
    var random = SplitMix64(seed: 0xDE71CE)
    for start in starts {
      var latitude = start.latitude
      var longitude = start.longitude
      var heading = random.nextUnit() * 2 * .pi
      for _ in 0..<Self.stepsPerPath {
        paths.append(Coordinate(uncheckedLatitude: latitude, longitude: longitude))
        heading += (random.nextUnit() - 0.5) * 0.6
        latitude = min(89, max(-89, latitude + 20 * sin(heading) / 111_132))
        longitude += 20 * cos(heading) / (111_320 * cos(latitude * .pi / 180))
        if longitude > 180 { longitude -= 360 }
        if longitude < -180 { longitude += 360 }
      }
    }
    self.paths = paths

    var shapes: [GEOSShape] = []
    do {
      let context = try GEOSContext()
      let tree = try GEOSSTRTree(context: context)
      for zone in zones {
        for fence in zone.fences {
          try tree.insert(fence.area.boundingBox, id: Int32(shapes.count))
          switch fence.area {
          case .circle(let circle): shapes.append(.circle(circle))
          case .polygon(let polygon):
            shapes.append(.polygon(try PreparedShape(polygon, context: context)))
          }
        }
      }
      try tree.query(latitude: 0, longitude: 0) { _ in }  // packs the tree
      geosTree = tree
    } catch {
      preconditionFailure("GEOS: \(error)")
    }
    geosShapes = shapes
    latencies.reserveCapacity(1_000_000)
  }

  @inline(__always)
  func fixAt(_ k: Int) -> (LocationFix, Int) {
    let device = k % Self.deviceCount
    let step = k / Self.deviceCount
    let c = paths[device * Self.stepsPerPath + step % Self.stepsPerPath]
    let fix = LocationFix(
      device: "", time: Timestamp(microsecondsSinceEpoch: 1_700_000_000_000_000 + Int64(step) * 1_000_000),
      latitude: c.latitude, longitude: c.longitude)
    return (fix, device)
  }

  /// Processes the next `fixes` fixes in the engine; events are dropped after each batch.
  func runEngine(fixes: Int, timingEach: Bool = false) {
    events.removeAll(keepingCapacity: true)
    latencies.removeAll(keepingCapacity: true)
    for _ in 0..<fixes {
      let (fix, device) = fixAt(next)
      next += 1
      if timingEach {
        let start = monotonicNanoseconds()
        evaluator.process(fix, device: handles[device], into: &events)
        latencies.append(monotonicNanoseconds() &- start)
      } else {
        evaluator.process(fix, device: handles[device], into: &events)
      }
    }
  }

  /// Answers "which fences hold the fix" with GEOS for the next `fixes` fixes; returns how many
  /// (fix, fence) pairs are inside.
  @discardableResult
  func runGEOS(fixes: Int) -> Int {
    var inside = 0
    for _ in 0..<fixes {
      let (fix, _) = fixAt(next)
      next += 1
      inside += geosInside(latitude: fix.latitude, longitude: fix.longitude)
    }
    blackHole(inside)
    return inside
  }

  @inline(__always)
  func geosInside(latitude: Double, longitude: Double) -> Int {
    var inside = 0
    let shapes = geosShapes
    let ecef = ECEFPosition(latitude: latitude, longitude: longitude)
    do {
      try geosTree.query(latitude: latitude, longitude: longitude) { id in
        switch shapes[Int(id)] {
        case .circle(let circle):
          if circle.contains(ecef) { inside += 1 }
        case .polygon(let prepared):
          if (try? prepared.covers(latitude: latitude, longitude: longitude)) == true {
            inside += 1
          }
        }
      }
    } catch {
      preconditionFailure("GEOS: \(error)")
    }
    return inside
  }

  /// Checks, fix by fix over the first 20 rounds, that the number of zones the engine has a
  /// device checked into (from its check-in and check-out events) equals the number of fences
  /// GEOS finds holding the fix (one fence per zone, default rules: no hysteresis, no
  /// retrigger time, initial trigger on); then carries on from there with warm buffers.
  /// Returns the check-ins and check-outs of those rounds in order. With `firstFixSpeed`, each
  /// device's first fix carries that speed (m/s).
  @discardableResult
  func checkAndWarmUp(firstFixSpeed: Double? = nil) -> [CheckRecord] {
    let rounds = 20
    var checkedIn = [Int](repeating: 0, count: Self.deviceCount)
    var insideFixes = 0
    var log: [CheckRecord] = []
    for _ in 0..<rounds {
      for _ in 0..<Self.deviceCount {
        let (plainFix, d) = fixAt(next)
        var fix = plainFix
        if next < Self.deviceCount { fix.speed = firstFixSpeed }
        next += 1
        events.removeAll(keepingCapacity: true)
        evaluator.process(fix, device: handles[d], into: &events)
        for event in events {
          precondition(event.device == "d\(d)", "Event \(event) for another device than d\(d)")
          switch event.kind {
          case .checkIn: checkedIn[d] += 1
          case .checkOut: checkedIn[d] -= 1
          default: continue
          }
          log.append(
            CheckRecord(kind: event.kind, time: event.time, device: event.device, zone: event.zone))
        }
        let geos = geosInside(latitude: fix.latitude, longitude: fix.longitude)
        precondition(
          checkedIn[d] == geos,
          "Device d\(d) is in \(checkedIn[d]) zones by the engine, \(geos) by GEOS at \(fix)")
        if geos > 0 { insideFixes += 1 }
      }
    }
    precondition(insideFixes > 0, "No fix inside any fence in \(rounds) rounds")
    events.removeAll(keepingCapacity: true)
    return log
  }

  /// The 50th and 99th percentiles of the fix latencies of the last timed batch, in ns.
  func latencyPercentiles() -> (Int, Int) {
    latencies.sort()
    guard !latencies.isEmpty else { return (0, 0) }
    let p50 = latencies[(latencies.count - 1) * 50 / 100]
    let p99 = latencies[(latencies.count - 1) * 99 / 100]
    return (Int(p50), Int(p99))
  }

  // MARK: - Workloads

  /// One zone per circle of a country-wide circle workload, each with `rules`; devices start
  /// at query points.
  static func circles(
    count: Int, configuration: ZoneEvaluator.Configuration = .default, rules: ZoneRules = .default
  ) -> EngineFixture {
    let workload = CircleWorkload(count: count, region: .country)
    var zones: [Zone] = []
    zones.reserveCapacity(count)
    for (index, circle) in workload.circles.enumerated() {
      zones.append(
        Zone(id: "z\(index)", fences: [Fence(id: "f\(index)", area: .circle(circle))], rules: rules))
    }
    let starts = workload.queryPoints(count: deviceCount).map(\.coordinate)
    return EngineFixture(zones: zones, starts: starts, configuration: configuration)
  }

  /// The tz_world zones as the loader gives them (repaired); devices start in random zones.
  static func tzWorld(configuration: ZoneEvaluator.Configuration) -> EngineFixture? {
    guard let shapes = RealPolygons.tzWorld() else { return nil }
    var zones: [Zone] = []
    for (index, (_, shape)) in shapes.enumerated() {
      zones.append(Zone(id: "tz\(index)", fences: [Fence(id: "t\(index)", area: .polygon(shape))]))
    }
    var random = SplitMix64(seed: 0x7A)
    let starts = (0..<deviceCount).map { _ -> Coordinate in
      let box = shapes[Int(random.next() % UInt64(shapes.count))].shape.boundingBox
      let east = box.west > box.east ? box.east + 360 : box.east
      var longitude = box.west + (east - box.west) * random.nextUnit()
      if longitude > 180 { longitude -= 360 }
      return Coordinate(
        uncheckedLatitude: box.south + (box.north - box.south) * random.nextUnit(),
        longitude: longitude)
    }
    return EngineFixture(zones: zones, starts: starts, configuration: configuration)
  }
}

@inline(__always)
func monotonicNanoseconds() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}
