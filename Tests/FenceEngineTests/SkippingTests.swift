import FenceEngine
import FenceGeometry
import Testing

/// Skipping fixes that cannot change anything must give exactly the events of a full
/// evaluation.
@Suite struct SkippingTests {
  /// A seeded linear congruential generator (Knuth's MMIX constants), for repeatable tracks.
  struct Generator {
    var state: UInt64
    mutating func next() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) / Double(UInt64(1) << 53)
    }
  }

  static func syntheticZones() throws -> [Zone] {
    var zones: [Zone] = []
    for index in 0..<36 {
      let north = Double(index / 6) * 300
      let east = Double(index % 6) * 300
      switch index % 4 {
      case 0:
        zones.append(try circleZone(
          "c\(index)", north: north, east: east, radius: 90,
          rules: ZoneRules(minimumRetriggerTime: 40, dwell: 30, exitHysteresis: 8)))
      case 1:
        let ring = [at(north: north - 80, east: east - 60), at(north: north - 70, east: east + 90),
          at(north: north + 90, east: east + 40), at(north: north - 80, east: east - 60)]
        zones.append(Zone(
          id: "p\(index)",
          fences: [Fence(id: "p\(index)-area", area: .polygon(MultiPolygon(try Polygon(exterior: ring))))],
          rules: ZoneRules(dwell: 45, exitConfirmations: 3)))
      case 2:
        zones.append(Zone(id: "g\(index)", geolines: [
          try geoline("g\(index)-line", [(north - 120, east), (north + 20, east + 30), (north + 120, east - 10)])
        ], rules: ZoneRules(minimumRetriggerTime: 20)))
      default:
        zones.append(try circleZone(
          "q\(index)", north: north, east: east, radius: 60,
          rules: ZoneRules(checkOut: false, initialTrigger: false)))
      }
    }
    return zones
  }

  static func replay(
    _ zones: [Zone], _ fixes: [LocationFix], skipping: Bool, backend: ZoneEvaluator.PredicateBackend = .native
  ) throws -> (events: [ZoneEvent], skipped: Int) {
    var evaluator = try ZoneEvaluator(
      configuration: .init(predicateBackend: backend, skipsUnchangedFixes: skipping), zones: zones)
    let events = replayEvents(fixes, through: &evaluator, advancingBy: 3600)
    return (events, evaluator.skippedFixCount)
  }

  @Test func syntheticSlowWalksGiveTheSameEventsWithAndWithoutSkipping() throws {
    var random = Generator(state: 7)
    var fixes: [LocationFix] = []
    var positions = (0..<30).map { _ in (north: random.next() * 1500, east: random.next() * 1500) }
    for second in 0..<600 {
      for device in positions.indices {
        // Mostly creeping (a phone at 1 Hz), sometimes a jump.
        let step = random.next() < 0.05 ? 200.0 : 5.0
        positions[device].north += (random.next() - 0.5) * step
        positions[device].east += (random.next() - 0.5) * step
        fixes.append(fix(
          Double(second), north: positions[device].north, east: positions[device].east,
          device: "d\(device)"))
      }
    }
    let zones = try Self.syntheticZones()
    let full = try Self.replay(zones, fixes, skipping: false)
    let skipped = try Self.replay(zones, fixes, skipping: true)
    #expect(skipped.events == full.events)
    #expect(full.events.count > 100)
    #expect(full.skipped == 0)
    #expect(skipped.skipped > fixes.count / 2)
  }

  @Test(.enabled(if: HarborTests.hasFirstHour))
  func harborTracksGiveTheSameEventsWithAndWithoutSkipping() throws {
    let fixes = try HarborTests.fixes(HarborTests.firstHourPath)
    let zones = try HarborTests.harborZones()
    let full = try Self.replay(zones, fixes, skipping: false)
    let skipped = try Self.replay(zones, fixes, skipping: true)
    let geos = try Self.replay(zones, fixes, skipping: true, backend: .geosPrepared)
    #expect(skipped.events == full.events)
    #expect(geos.events == full.events)
    #expect(skipped.skipped > 0)
  }

  @Test func aZoneAddedNearASkippingDeviceIsSeenAtItsNextFix() throws {
    var evaluator = try ZoneEvaluator(
      configuration: .init(skipsUnchangedFixes: true), zones: [circleZone("far", north: 5000)])
    #expect(run(&evaluator, [fix(0), fix(1, north: 1)]) == [])
    #expect(evaluator.skippedFixCount == 1)
    try evaluator.add(circleZone("near", north: 2, radius: 10))
    #expect(run(&evaluator, [fix(2, north: 2)]) == ["2 checkIn a near/near-fence"])
  }

  /// The safe radius grows with the pace: 250 m for a device's first fix (no pace yet), then
  /// 32 fixes at the pace (here 40 m a fix: about 1,281 m, under the 2,000 m ceiling).
  @Test func aFasterDeviceGetsALargerSafeRadius() throws {
    var evaluator = try ZoneEvaluator(
      configuration: .init(skipsUnchangedFixes: true), zones: [circleZone("far", north: 5000)])
    let fixes = (0..<38).map { fix(Double($0), north: 40 * Double($0)) }
    #expect(run(&evaluator, fixes) == [])
    // Full evaluations at 0 m and at 280 m (the first fix beyond 250 m); from there the
    // radius holds the next 30 fixes (1,200 m).
    #expect(evaluator.skippedFixCount == 36)
  }

  /// Inside a polygon far larger than the safe radius, the boundary is measured only up to the
  /// ceiling, and the polygon holding the fix is not measured twice: the device skips as in
  /// open country, and gets exactly the events of a full evaluation.
  @Test func aDeviceDeepInsideALargePolygonSkips() throws {
    let square = [
      at(north: -10_000, east: -10_000), at(north: -10_000, east: 10_000),
      at(north: 10_000, east: 10_000), at(north: 10_000, east: -10_000),
      at(north: -10_000, east: -10_000),
    ]
    let zones = [
      Zone(
        id: "big",
        fences: [Fence(id: "big-area", area: .polygon(MultiPolygon(try Polygon(exterior: square))))])
    ]
    let fixes = (0..<30).map { fix(Double($0), north: 10 * Double($0)) }
    let full = try Self.replay(zones, fixes, skipping: false)
    let skipped = try Self.replay(zones, fixes, skipping: true)
    #expect(skipped.events == full.events)
    #expect(full.events.map(\.kind) == [.checkIn])
    // Full evaluations at 0 m (radius 250 m) and at 250 m (pace 10 m: radius 320 m).
    #expect(skipped.skipped == 28)
  }
}
