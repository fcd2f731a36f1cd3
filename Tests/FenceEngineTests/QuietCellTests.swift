@testable import FenceEngine
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// A quiet device's fix in the pure cell of its last full evaluation takes the same-cell path
/// (only timers and bookkeeping): the events must be exactly those of an evaluator without the
/// cell cache, which has no cells and so never takes that path.
@Suite struct QuietCellTests {
  /// One step of a timeline: a fix, or a zone change between fixes.
  enum Step {
    case fix(LocationFix)
    case add(Zone)
    case remove(String)
  }

  /// The events, the fixes on the same-cell path and, with `snapshots`, the evaluator's
  /// snapshot after every step (the same-cell path must leave the same state).
  static func replay(
    _ zones: [Zone], _ steps: [Step], capacity: Int, skipping: Bool = false,
    snapshots: Bool = false
  ) throws -> (events: [ZoneEvent], sameCell: Int, snapshots: [EvaluatorSnapshot]) {
    var evaluator = try ZoneEvaluator(
      configuration: .init(skipsUnchangedFixes: skipping, cellCacheCapacity: capacity),
      zones: zones)
    var events: [ZoneEvent] = []
    var last: Timestamp?
    var states: [EvaluatorSnapshot] = []
    for step in steps {
      switch step {
      case .fix(let fix):
        evaluator.process(fix, into: &events)
        last = fix.time
      case .add(let zone): try evaluator.add(zone)
      case .remove(let id): _ = evaluator.remove(zoneID: id)
      }
      if snapshots { states.append(evaluator.snapshot()) }
    }
    if let last { evaluator.advance(to: last.adding(seconds: 3600), into: &events) }
    return (events, evaluator.sameCellFixCount, states)
  }

  static func replay(
    _ zones: [Zone], _ fixes: [LocationFix], capacity: Int, skipping: Bool = false,
    snapshots: Bool = false
  ) throws -> (events: [ZoneEvent], sameCell: Int, snapshots: [EvaluatorSnapshot]) {
    try replay(
      zones, fixes.map { .fix($0) }, capacity: capacity, skipping: skipping, snapshots: snapshots)
  }

  /// Zones over the cell north 0 to 65 m, east 0 to 82 m of the origin (the origin's longitude,
  /// -74, is a cell edge): circles of 150 m around (10, 40) cover the cell but not its parent,
  /// so cells are filed; one rule each.
  static func standingZones() throws -> [Zone] {
    [
      try circleZone("dwell", north: 10, east: 40, radius: 150, rules: ZoneRules(dwell: 60)),
      try circleZone(
        "mrt", north: 10, east: 40, radius: 150,
        rules: ZoneRules(minimumRetriggerTime: 120, checkOut: false)),
      try circleZone(
        "confirm", north: 10, east: 40, radius: 150,
        rules: ZoneRules(dwell: 45, exitConfirmations: 3)),
      try circleZone(
        "hysteresis", north: 10, east: 40, radius: 150,
        rules: ZoneRules(dwell: 90, exitHysteresis: 200)),
      try circleZone(
        "silent", north: 10, east: 40, radius: 150, rules: ZoneRules(initialTrigger: false)),
      try circleZone(
        "nudge", north: 10, east: 40, radius: 150, rules: ZoneRules(exitHysteresis: 80)),
      try circleZone("wide", north: 10, east: 40, radius: 3000, rules: ZoneRules(dwell: 200)),
    ]
  }

  /// `count` fixes of `device`, `every` seconds from `start`, jittering a few metres around
  /// (`north`, `east`).
  static func stand(
    _ device: String, from start: Double, count: Int, every: Double = 5, north: Double = 10,
    east: Double = 30
  ) -> [LocationFix] {
    (0..<count).map { k in
      let wobble = Double(k % 5) - 2
      return fix(
        start + Double(k) * every, north: north + 3 * wobble, east: east - 2 * wobble,
        device: device)
    }
  }

  /// Standing through dwells, stepping out (a pending exit and a hysteresis-only stay), back,
  /// out for good and back again (MRT and initial trigger), with a second device standing in
  /// the cell, so that dwells fire on the same-cell path for both devices.
  @Test func standingInAPureCellGivesTheSameEvents() throws {
    var fixes = Self.stand("a", from: 0, count: 40)
    fixes += Self.stand("b", from: 2, count: 60, north: 30, east: 60)
    // Standing 220 m from the centre, in a pure cell of the wide zone alone: 70 m outside the
    // small circles, within the hysteresis (a stay held by it alone, and exits pending until
    // confirmed); then back.
    fixes += Self.stand("a", from: 200, count: 4, every: 1, north: 230, east: 40)
    // 110 m outside, same cell: beyond the nudge zone's hysteresis.
    fixes.append(fix(204, north: 270, east: 40, device: "a"))
    fixes += Self.stand("a", from: 205, count: 10)
    // Out for good (1 km), standing past the MRT window (its record dropped there), then back.
    fixes += Self.stand("a", from: 260, count: 16, every: 10, north: 1000, east: 40)
    fixes += Self.stand("a", from: 420, count: 10)
    fixes += Self.stand("a", from: 480, count: 40)
    fixes.sort { ($0.time, $0.device) < ($1.time, $1.device) }
    let zones = try Self.standingZones()
    let plain = try Self.replay(zones, fixes, capacity: 0, snapshots: true)
    #expect(plain.sameCell == 0)
    let fast = try Self.replay(zones, fixes, capacity: 65_536, snapshots: true)
    #expect(fast.events == plain.events)
    #expect(fast.snapshots == plain.snapshots)
    #expect(fast.sameCell == 169)
    let skipping = try Self.replay(zones, fixes, capacity: 65_536, skipping: true)
    #expect(skipping.events == plain.events)
    #expect(
      plain.events.map(describe) == [
        "0 checkIn a confirm/confirm-fence",
        "0 checkIn a dwell/dwell-fence",
        "0 checkIn a hysteresis/hysteresis-fence",
        "0 checkIn a mrt/mrt-fence noCheckOut",
        "0 checkIn a nudge/nudge-fence",
        "0 checkIn a wide/wide-fence",
        "2 checkIn b confirm/confirm-fence",
        "2 checkIn b dwell/dwell-fence",
        "2 checkIn b hysteresis/hysteresis-fence",
        "2 checkIn b mrt/mrt-fence noCheckOut",
        "2 checkIn b nudge/nudge-fence",
        "2 checkIn b wide/wide-fence",
        "45 dwell a confirm/confirm-fence in=0 dwell=45",
        "47 dwell b confirm/confirm-fence in=2 dwell=45",
        "60 dwell a dwell/dwell-fence in=0 dwell=60",
        "62 dwell b dwell/dwell-fence in=2 dwell=60",
        "90 dwell a hysteresis/hysteresis-fence in=0 dwell=90",
        "92 dwell b hysteresis/hysteresis-fence in=2 dwell=90",
        "200 dwell a wide/wide-fence in=0 dwell=200",
        "200 checkOut a dwell/dwell-fence in=0 duration=200",
        "202 dwell b wide/wide-fence in=2 dwell=200",
        "200 checkOut a confirm/confirm-fence in=0 duration=200",
        "204 checkOut a nudge/nudge-fence in=0 duration=204",
        "205 checkIn a confirm/confirm-fence",
        "205 checkIn a dwell/dwell-fence",
        "205 checkIn a mrt/mrt-fence noCheckOut",
        "205 checkIn a nudge/nudge-fence",
        "205 checkIn a silent/silent-fence",
        "250 dwell a confirm/confirm-fence in=205 dwell=45",
        "260 checkOut a dwell/dwell-fence in=205 duration=55",
        "260 checkOut a hysteresis/hysteresis-fence in=0 duration=260",
        "260 checkOut a nudge/nudge-fence in=205 duration=55",
        "260 checkOut a silent/silent-fence in=205 duration=55",
        "260 checkOut a confirm/confirm-fence in=205 duration=55",
        "420 checkIn a confirm/confirm-fence",
        "420 checkIn a dwell/dwell-fence",
        "420 checkIn a hysteresis/hysteresis-fence",
        "420 checkIn a mrt/mrt-fence noCheckOut",
        "420 checkIn a nudge/nudge-fence",
        "420 checkIn a silent/silent-fence",
        "465 dwell a confirm/confirm-fence in=420 dwell=45",
        "480 dwell a dwell/dwell-fence in=420 dwell=60",
        "510 dwell a hysteresis/hysteresis-fence in=420 dwell=90",
      ])
  }

  /// A GEOLINE through the cell: movements across it must take the full path.
  @Test func aGeolineThroughTheCellIsStillCrossed() throws {
    var zones = try Self.standingZones()
    zones.append(Zone(
      id: "line", geolines: [try geoline("line-a", [(-30, 50), (60, 50)])],
      rules: ZoneRules(minimumRetriggerTime: 10)))
    var fixes = Self.stand("a", from: 0, count: 12, east: 30)
    fixes += Self.stand("a", from: 60, count: 12, east: 70)
    fixes += Self.stand("a", from: 120, count: 12, east: 30)
    fixes += (0..<8).map { fix(180 + Double($0) * 5, north: 10, east: $0 % 2 == 0 ? 45 : 55) }
    let plain = try Self.replay(zones, fixes, capacity: 0)
    let fast = try Self.replay(zones, fixes, capacity: 65_536)
    #expect(fast.events == plain.events)
    #expect(fast.sameCell == 34)
    #expect(
      plain.events.map(describe) == [
        "0 checkIn a confirm/confirm-fence",
        "0 checkIn a dwell/dwell-fence",
        "0 checkIn a hysteresis/hysteresis-fence",
        "0 checkIn a mrt/mrt-fence noCheckOut",
        "0 checkIn a nudge/nudge-fence",
        "0 checkIn a wide/wide-fence",
        "45 dwell a confirm/confirm-fence in=0 dwell=45",
        "60 dwell a dwell/dwell-fence in=0 dwell=60",
        "57.142857 checkIn a line/line-a geoline leftToRight noCheckOut",
        "90 dwell a hysteresis/hysteresis-fence in=0 dwell=90",
        "117.894737 checkIn a line/line-a geoline rightToLeft noCheckOut",
        "182.5 checkIn a line/line-a geoline leftToRight noCheckOut",
        "192.5 checkIn a line/line-a geoline leftToRight noCheckOut",
        "200 dwell a wide/wide-fence in=0 dwell=200",
        "202.5 checkIn a line/line-a geoline leftToRight noCheckOut",
        "212.5 checkIn a line/line-a geoline leftToRight noCheckOut",
      ])
  }

  /// Zones added, replaced and removed between two fixes in the same cell: the next fix takes
  /// the full path (initial triggers of new zones, state dropped with removed ones).
  @Test func zoneChangesBetweenFixesInTheSameCellTakeTheFullPath() throws {
    let zones = try Self.standingZones()
    var steps: [QuietCellTests.Step] = Self.stand("a", from: 0, count: 10).map { .fix($0) }
    steps.append(.add(try circleZone("late", north: 10, east: 40, radius: 150)))
    steps += Self.stand("a", from: 50, count: 5).map { .fix($0) }
    steps.append(.remove("dwell"))
    steps += Self.stand("a", from: 75, count: 5).map { .fix($0) }
    steps.append(.add(try circleZone(
      "hysteresis", north: 10, east: 40, radius: 150, rules: ZoneRules(dwell: 20))))
    steps += Self.stand("a", from: 100, count: 10).map { .fix($0) }
    steps.append(.add(try circleZone("dwell", north: 10, east: 40, radius: 150)))
    steps += Self.stand("a", from: 150, count: 5).map { .fix($0) }
    let plain = try Self.replay(zones, steps, capacity: 0, snapshots: true)
    let fast = try Self.replay(zones, steps, capacity: 65_536, snapshots: true)
    #expect(fast.events == plain.events)
    #expect(fast.snapshots == plain.snapshots)
    #expect(fast.sameCell == 30)
    #expect(
      plain.events.map(describe) == [
        "0 checkIn a confirm/confirm-fence",
        "0 checkIn a dwell/dwell-fence",
        "0 checkIn a hysteresis/hysteresis-fence",
        "0 checkIn a mrt/mrt-fence noCheckOut",
        "0 checkIn a nudge/nudge-fence",
        "0 checkIn a wide/wide-fence",
        "45 dwell a confirm/confirm-fence in=0 dwell=45",
        "50 checkIn a late/late-fence",
        "60 dwell a dwell/dwell-fence in=0 dwell=60",
        "90 dwell a hysteresis/hysteresis-fence in=0 dwell=90",
        "150 checkIn a dwell/dwell-fence",
        "200 dwell a wide/wide-fence in=0 dwell=200",
      ])
  }

  @Test func harborHourGivesTheSameEventsOnTheSameCellPath() throws {
    let zones = try CellCacheTests.harborAndManhattanZones()
    let fixes = try HarborTests.fixes(fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv"))
    let plain = try Self.replay(zones, fixes, capacity: 0)
    let fast = try Self.replay(zones, fixes, capacity: 65_536)
    #expect(fast.events == plain.events)
    #expect(plain.sameCell == 0)
    #expect(fast.sameCell == 5_749)
  }

  @Test(.enabled(if: HarborTests.hasWeek))
  func harborWeekPrefixGivesTheSameEventsOnTheSameCellPath() throws {
    let zones = try CellCacheTests.harborAndManhattanZones()
    let fixes = Array(try HarborTests.fixes(HarborTests.weekPath).prefix(40_000))
    let plain = try Self.replay(zones, fixes, capacity: 0)
    let fast = try Self.replay(zones, fixes, capacity: 65_536)
    #expect(fast.events == plain.events)
    #expect(fast.sameCell == 13_532)
  }
}
