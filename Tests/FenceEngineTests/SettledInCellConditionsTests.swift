@testable import FenceEngine
import FenceGeometry
import Testing

/// A device settled in its cell while zones have conditions (rules v2): a later fix in the cell
/// is skipped only when every zone that would see it and holds no stay of the device still
/// fails its conditions (`ZoneEvaluator.conditionsKeepSettled`). The events must be exactly
/// those of an evaluator without the cell cache, which never settles a device; the settled
/// counts show that the skip applies (see `SettledInCellTests` for how they follow from the
/// cache's admission: fix 0 is a first visit, fix 1 files the cell and settles, fixes after it
/// in the cell may be settled).
@Suite struct SettledInCellConditionsTests {
  /// Fixes every 10 s in the origin's cell (alternating between two points 10 m apart), with
  /// the speeds given.
  static func fixes(speeds: [Double]) -> [LocationFix] {
    speeds.enumerated().map { k, speed in
      fix(Double(k) * 10, north: 0, east: k.isMultiple(of: 2) ? 20 : 30, speed: speed)
    }
  }

  /// A zone whose fix fails its speed condition holds no record, so the device settles outside
  /// it; the fixes after it are judged again, and the first to pass checks in (it is not
  /// skipped). Settled: fixes 2-9 (too fast, still failing), then 11-19 (the stay, now hidden
  /// by the speed again, changes nothing).
  @Test func aZoneFailingItsConditionsChecksInWhenALaterFixInTheCellPassesThem() throws {
    let zones = [
      try circleZone(
        "harbor", radius: 2_000, rules: ZoneRules(conditions: ZoneConditions(maximumSpeed: 5)))
    ]
    let speeds = Array(repeating: 10.0, count: 10) + [2] + Array(repeating: 10.0, count: 9)
    let run = try SettledInCellTests.replay(zones, Self.fixes(speeds: speeds))
    #expect(run.cached == ["100 checkIn a harbor/harbor-fence"])
    #expect(run.cached == run.plain)
    #expect(run.settled == 8 + 9)
  }

  /// A stay whose zone the fix's speed hides counts no exit, so the hidden fixes in the cell
  /// are skipped like the visible ones; the device checks out when it leaves the circle.
  @Test func aStayHiddenByItsConditionsStaysSettledUntilTheDeviceLeaves() throws {
    let zones = [
      try circleZone(
        "pier", east: 100, radius: 150,
        rules: ZoneRules(conditions: ZoneConditions(maximumSpeed: 5)))
    ]
    let speeds: [Double] = [2, 2, 9, 2, 9, 9, 2, 2]
    let fixes = Self.fixes(speeds: speeds) + [fix(80, north: 0, east: 900, speed: 2)]
    let run = try SettledInCellTests.replay(zones, fixes)
    #expect(
      run.cached == [
        "0 checkIn a pier/pier-fence", "80 checkOut a pier/pier-fence in=0 duration=80",
      ])
    #expect(run.cached == run.plain)
    #expect(run.settled == 6)
  }

  /// A tag condition: tags set while the device is settled do not empty the cell cache, so the
  /// next fix in the cell must judge the zone again, pass it, and check in.
  @Test func tagsSetWhileSettledLetTheNextFixInTheCellCheckIn() throws {
    let zones = [
      try circleZone(
        "yard", radius: 2_000,
        rules: ZoneRules(conditions: ZoneConditions(deviceTags: .init(any: ["crew"]))))
    ]
    let fixes = Self.fixes(speeds: Array(repeating: 1, count: 12))
    func run(capacity: Int) throws -> (events: [String], settled: Int) {
      var evaluator = try ZoneEvaluator(
        configuration: .init(cellCacheCapacity: capacity), zones: zones)
      var events: [ZoneEvent] = []
      for (k, fix) in fixes.enumerated() {
        if k == 6 { evaluator.setTags(["crew"], forDevice: "a") }
        evaluator.process(fix, into: &events)
      }
      return (events.map(describe), evaluator.settledFixCount)
    }
    let cached = try run(capacity: 65_536)
    let plain = try run(capacity: 0)
    #expect(cached.events == ["60 checkIn a yard/yard-fence"])
    #expect(cached.events == plain.events)
    // Fixes 2-5 settled outside the zone, fix 6 evaluated whole, fixes 7-11 settled in it.
    #expect(cached.settled == 4 + 5)
    #expect(plain.settled == 0)
  }

  /// Zones with and without conditions in one cell: the one without holds a stay, the one
  /// with fails until fix 6; the check-in of the second still comes at fix 6.
  @Test func aZoneWithoutConditionsBesideOneWithThemDoesNotHideItsCheckIn() throws {
    let zones = [
      try circleZone("harbor", radius: 2_000),
      try circleZone(
        "slow", radius: 1_500, rules: ZoneRules(conditions: ZoneConditions(maximumSpeed: 3))),
    ]
    let speeds: [Double] = [8, 8, 8, 8, 8, 8, 1, 8, 8, 8]
    let run = try SettledInCellTests.replay(zones, Self.fixes(speeds: speeds))
    #expect(run.cached == ["0 checkIn a harbor/harbor-fence", "60 checkIn a slow/slow-fence"])
    #expect(run.cached == run.plain)
    #expect(run.settled == 4 + 3)
  }
}
