@testable import FenceEngine
import FenceGeometry
import Testing

/// A device settled in the cell of its last full evaluation (at most seven fences to test
/// there, no GEOLINE near, nothing pending) only fires timers at its next fixes in that cell
/// that the fences to test answer as that evaluation's fix did (`ZoneEvaluator.settledState`):
/// the events must be exactly those of an evaluator without the cell cache, which never
/// settles a device. The counts of settled fixes follow from the cache's admission: a
/// device's first fix in a parent cell is answered by the index (no memo), its second files
/// the parent (and the cell when the parent has fences to test) and makes the memo, and the
/// fixes after it in the same cell may be settled.
///
/// Cells are 1/1024 degree: near the tests' origin about 108 m north-south, from 43 m south to
/// 65 m north of it, and 82.6 m east-west, from the origin's meridian eastward.
@Suite struct SettledInCellTests {
  /// The events of `fixes` (then advanced by 600 s) with the cell cache and without it, and
  /// how many fixes were settled with it. `change` adds a zone before the fix at its index.
  static func replay(
    _ zones: [Zone], _ fixes: [LocationFix], adding change: (before: Int, zone: Zone)? = nil
  ) throws -> (cached: [String], plain: [String], settled: Int) {
    func run(capacity: Int) throws -> ([String], Int) {
      var evaluator = try ZoneEvaluator(
        configuration: .init(cellCacheCapacity: capacity), zones: zones)
      var events: [ZoneEvent] = []
      for (index, fix) in fixes.enumerated() {
        if let change, change.before == index { try evaluator.add(change.zone) }
        evaluator.process(fix, into: &events)
      }
      if let last = fixes.last {
        evaluator.advance(to: last.time.adding(seconds: 600), into: &events)
      }
      return (events.map(describe), evaluator.settledFixCount)
    }
    let (cached, settled) = try run(capacity: 65_536)
    let (plain, none) = try run(capacity: 0)
    #expect(none == 0)
    return (cached, plain, settled)
  }

  /// Fixes every 10 s from `start` seconds, at `positions` in turn (metres north and east).
  static func fixes(
    from start: Double = 0, count: Int, at positions: [(north: Double, east: Double)]
  ) -> [LocationFix] {
    (0..<count).map { k in
      let p = positions[k % positions.count]
      return fix(start + Double(k) * 10, north: p.north, east: p.east)
    }
  }

  /// Inside a circle of 2 km, wandering within one cell: settled from the third fix on, and
  /// the dwell still fires on time, from a settled fix.
  @Test func aDeviceWanderingInsideOneCellSettlesAndItsDwellFires() throws {
    let zones = [try circleZone("harbor", radius: 2_000, rules: ZoneRules(dwell: 60))]
    let fixes = Self.fixes(count: 31, at: [(0, 20), (15, 35), (-20, 60), (5, 10)])
    let run = try Self.replay(zones, fixes)
    #expect(
      run.cached == [
        "0 checkIn a harbor/harbor-fence", "60 dwell a harbor/harbor-fence in=0 dwell=60",
      ])
    #expect(run.cached == run.plain)
    #expect(run.settled == 29)
  }

  /// A meridian GEOLINE some metres east of the origin, fixes wandering in the origin's cell
  /// (east 0 to 82.6 m), and what follows.
  struct GeolineCase: Sendable, CustomTestStringConvertible {
    let east: Double
    let positions: [(north: Double, east: Double)]
    let crossings: Int
    let settled: Int
    var testDescription: String { "line \(Int(east)) m east" }
  }

  /// - 35 m east, through the cell between the fixes: every movement crosses it, so the device
  ///   never settles, and every crossing is reported;
  /// - 80 m east, across the cell's far edge from fixes at its western edge: the cell meets it,
  ///   so the device never settles, though no fix crosses it;
  /// - 120 m east, outside the cell but within two cells of the fixes (its box is compared with
  ///   the cell's), and 2 km east (settled without making the cell's box): the device settles.
  @Test(arguments: [
    GeolineCase(east: 35, positions: [(0, 20), (0, 50)], crossings: 30, settled: 0),
    GeolineCase(east: 80, positions: [(0, 2), (10, 4)], crossings: 0, settled: 0),
    GeolineCase(
      east: 120, positions: [(0, 20), (15, 35), (-20, 60), (5, 10)], crossings: 0, settled: 29),
    GeolineCase(
      east: 2_000, positions: [(0, 20), (15, 35), (-20, 60), (5, 10)], crossings: 0, settled: 29),
  ])
  func aGeolineSettlesTheDeviceOnlyWhenItMissesTheCell(_ line: GeolineCase) throws {
    let zones = [
      try circleZone("harbor", radius: 2_000),
      Zone(id: "line", geolines: [try geoline("meridian", [(-500, line.east), (500, line.east)])]),
    ]
    let run = try Self.replay(zones, Self.fixes(count: 31, at: line.positions))
    #expect(run.cached == run.plain)
    #expect(run.cached.first == "0 checkIn a harbor/harbor-fence")
    #expect(run.cached.filter { $0.contains("line/meridian geoline") }.count == line.crossings)
    #expect(run.cached.count == 1 + line.crossings)
    #expect(run.settled == line.settled)
  }

  /// Leaving a pier with three confirmations needed: the two fixes with an exit counted are not
  /// settled, the check-out comes at the third with the first's time, and the device settles
  /// once the record is gone. At the pier (whose boundary crosses the cell) the third fix is
  /// settled: the pier covers it as it did the second.
  @Test func aPendingExitKeepsTheDeviceUnsettledUntilItIsConfirmed() throws {
    let zones = [
      try circleZone("pier", east: 400, radius: 30, rules: ZoneRules(exitConfirmations: 3))
    ]
    let fixes = Self.fixes(count: 3, at: [(0, 400)])
      + Self.fixes(from: 30, count: 10, at: [(0, 600), (10, 620)])
    let run = try Self.replay(zones, fixes)
    #expect(
      run.cached == [
        "0 checkIn a pier/pier-fence", "30 checkOut a pier/pier-fence in=0 duration=30",
      ])
    #expect(run.cached == run.plain)
    #expect(run.settled == 1 + 7)
  }

  /// A zone added while the device is settled: the cache is emptied, the next fix is evaluated
  /// and checks in (the initial trigger), and the device settles again two fixes later.
  @Test func aZoneAddedWhileSettledChecksTheDeviceInAtItsNextFix() throws {
    let zones = [try circleZone("harbor", radius: 2_000)]
    let fixes = Self.fixes(count: 11, at: [(0, 20), (10, 30)])
    let buoy = try circleZone("buoy", radius: 500)
    let run = try Self.replay(zones, fixes, adding: (before: 6, zone: buoy))
    #expect(run.cached == ["0 checkIn a harbor/harbor-fence", "60 checkIn a buoy/buoy-fence"])
    #expect(run.cached == run.plain)
    #expect(run.settled == 4 + 3)
  }

  /// With skipping by safe radius on, the radius does the skipping and no device settles (a
  /// settled fix would leave the radius unrenewed): the same fixes as the first test.
  @Test func skippingBySafeRadiusTakesOverFromSettling() throws {
    let zones = [try circleZone("harbor", radius: 2_000, rules: ZoneRules(dwell: 60))]
    let fixes = Self.fixes(count: 31, at: [(0, 20), (15, 35), (-20, 60), (5, 10)])
    var evaluator = try ZoneEvaluator(
      configuration: .init(skipsUnchangedFixes: true), zones: zones)
    let events = replayEvents(fixes, through: &evaluator, advancingBy: 600).map(describe)
    #expect(
      events == ["0 checkIn a harbor/harbor-fence", "60 dwell a harbor/harbor-fence in=0 dwell=60"])
    #expect(evaluator.settledFixCount == 0)
    #expect(evaluator.skippedFixCount == 30)
  }

  /// Held in a pier only by its exit hysteresis (250 m), in a cell the pier does not reach
  /// (from 247.6 to 330.2 m east): not settled while held, since the hold depends on where in
  /// the cell the fix is; the move to 328 m east, past the hysteresis in the same cell, checks
  /// out, and the device settles after. (The third fix, in the pier, is settled as the second.)
  @Test func aStayHeldByHysteresisIsNotSettled() throws {
    let zones = [
      try circleZone("pier", east: 40, radius: 20, rules: ZoneRules(exitHysteresis: 250))
    ]
    let fixes = Self.fixes(count: 3, at: [(0, 40)])
      + Self.fixes(from: 30, count: 5, at: [(0, 250), (5, 255)])
      + Self.fixes(from: 80, count: 5, at: [(0, 328)])
    let run = try Self.replay(zones, fixes)
    #expect(
      run.cached == [
        "0 checkIn a pier/pier-fence", "80 checkOut a pier/pier-fence in=0 duration=80",
      ])
    #expect(run.cached == run.plain)
    #expect(run.settled == 1 + 4)
  }

  /// A buoy whose boundary crosses the cell (20 to 60 m east of the origin, in the cell from 0
  /// to 82.6 m): the device settles on either side, and each fix on the other side than the
  /// fix that settled it is evaluated whole, so the check-out and the check-in come on time.
  /// (Settled on the buoy's answer alone, the fix at 40 s would be skipped, and its check-out
  /// lost.)
  @Test func aFenceToTestAnswersLikeTheSettlingFixOrTheFixIsEvaluated() throws {
    let zones = [try circleZone("buoy", east: 40, radius: 20)]
    let fixes =
      Self.fixes(count: 4, at: [(0, 40), (5, 42)])
      + Self.fixes(from: 40, count: 4, at: [(0, 70), (5, 72)])
      + Self.fixes(from: 80, count: 4, at: [(0, 40), (-5, 38)])
    let run = try Self.replay(zones, fixes)
    #expect(
      run.cached == [
        "0 checkIn a buoy/buoy-fence", "40 checkOut a buoy/buoy-fence in=0 duration=40",
        "80 checkIn a buoy/buoy-fence",
      ])
    #expect(run.cached == run.plain)
    // The second fix files the cell and settles (inside); 40 s and 80 s are evaluated and
    // settle again (outside, then inside).
    #expect(run.settled == 2 + 3 + 3)
  }

  /// Circles around one point, every boundary crossing the cell: with seven fences to test
  /// the device settles, with eight (more than `SettledInCell.testLimit`) it never does.
  @Test(arguments: [(7, 29), (8, 0)])
  func aCellWithMoreThanSevenFencesToTestNeverSettles(circles: Int, settled: Int) throws {
    let zones = try (0..<circles).map { k in
      try circleZone("ring\(k)", east: 40, radius: 10 + 5 * Double(k))
    }
    let fixes = Self.fixes(count: 31, at: [(0, 40), (2, 41), (-1, 39)])
    let run = try Self.replay(zones, fixes)
    #expect(run.cached.count == circles)
    #expect(run.cached == run.plain)
    #expect(run.settled == settled)
  }

  /// Forty devices creeping (a few metres a fix, some still, now and then a jump of 300 m)
  /// among circles, polygons and GEOLINEs with MRT, dwell, hysteresis, exit confirmations, no
  /// check-out and no initial trigger, with zones removed and added on the way: every event,
  /// field for field, as without the cache, while thousands of fixes are settled.
  @Test func creepingDevicesAmongEveryRuleGiveTheSameEvents() throws {
    let zones = try ZoneRecordStoreTests.overlappingZones()
    var random = SkippingTests.Generator(state: 29)
    var positions = (0..<40).map { device in
      (north: random.next() * 1200, east: random.next() * 1200 + (device % 2 == 0 ? 0 : 2_400))
    }
    var fixes: [LocationFix] = []
    for step in 0..<150 {
      for device in positions.indices {
        let still = device % 5 == 0 && step % 30 < 20
        let stride = random.next() < 0.02 ? 300.0 : still ? 0 : 6
        positions[device].north += (random.next() - 0.5) * stride
        positions[device].east += (random.next() - 0.5) * stride
        fixes.append(
          fix(
            Double(step) * 10, north: positions[device].north, east: positions[device].east,
            device: "d\(device)"))
      }
    }
    let added = try circleZone(
      "late", north: 600, east: 600, radius: 400, rules: ZoneRules(dwell: 50))
    func run(capacity: Int) throws -> (events: [ZoneEvent], settled: Int) {
      var evaluator = try ZoneEvaluator(
        configuration: .init(cellCacheCapacity: capacity), zones: zones)
      var events: [ZoneEvent] = []
      for (index, fix) in fixes.enumerated() {
        if index == fixes.count / 3 { #expect(evaluator.remove(zoneIDs: ["ring3", "c4"]) == 2) }
        if index == 2 * fixes.count / 3 { try evaluator.add(added) }
        evaluator.process(fix, into: &events)
      }
      evaluator.advance(to: fixes[fixes.count - 1].time.adding(seconds: 600), into: &events)
      return (events, evaluator.settledFixCount)
    }
    let cached = try run(capacity: 65_536)
    let plain = try run(capacity: 0)
    #expect(cached.events == plain.events)
    #expect(plain.events.count > 100)
    #expect(cached.settled == 5_173)
  }
}
