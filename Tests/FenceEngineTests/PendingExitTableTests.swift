import FenceGeometry
import Testing

@testable import FenceEngine

/// The first fixes of pending exits live in the evaluator's `PendingExitTable` only while an
/// exit spans fixes: each entry leaves when the exit is confirmed, when the device is found
/// inside again, and when a zone change closes or drops the stay, and the check-out is stamped
/// with the exit's first fix.
@Suite struct PendingExitTableTests {
  static let rules = ZoneRules(exitConfirmations: 3)

  @Test func anEntryLastsWhileItsExitIsPending() throws {
    var evaluator = try ZoneEvaluator(zones: [
      try circleZone("depot", radius: 100, rules: Self.rules),
      try circleZone("quay", east: 5000, radius: 100),
    ])
    let events1 = run(&evaluator, [fix(0), fix(10, east: 5000, device: "b")])
    #expect(events1 == [
      "0 checkIn a depot/depot-fence", "10 checkIn b quay/quay-fence",
    ])
    // Out once, back in: the entry comes and goes.
    let events2 = run(&evaluator, [fix(20, north: 300)])
    #expect(events2.isEmpty)
    #expect(evaluator.pendingExits.count == 1)
    #expect(evaluator.pendingExits[device: 0, zone: 0]?.time == t(20))
    let events3 = run(&evaluator, [fix(30)])
    #expect(events3.isEmpty)
    #expect(evaluator.pendingExits.isEmpty)
    // The quay confirms on its first fix outside: nothing is kept.
    let events4 = run(&evaluator, [fix(35, east: 5300, device: "b")])
    #expect(events4 == [
      "35 checkOut b quay/quay-fence in=10 duration=25"
    ])
    #expect(evaluator.pendingExits.isEmpty)
    // Out three times: the check-out is stamped with the first, and the entry is gone.
    var events: [ZoneEvent] = []
    for (seconds, north) in [(40.0, 300.0), (50, 310), (60, 320)] {
      evaluator.process(fix(seconds, north: north, speed: seconds / 10), into: &events)
      #expect(evaluator.pendingExits.count == (seconds < 60 ? 1 : 0))
    }
    #expect(events.map(describe) == ["40 checkOut a depot/depot-fence in=0 duration=40"])
    let checkOut = try #require(events.first)
    #expect(checkOut.latitude == at(north: 300).latitude)
    #expect(checkOut.speed == 4)
  }

  @Test func aZoneChangeTakesThePendingExitWithTheStay() throws {
    var evaluator = try ZoneEvaluator(zones: [try circleZone("depot", rules: Self.rules)])
    _ = run(&evaluator, [fix(0), fix(10, north: 300)])
    #expect(evaluator.pendingExits.count == 1)
    // Replaced with the same fence: the stay and its pending exit stay.
    try evaluator.add(try circleZone("depot", rules: Self.rules))
    #expect(evaluator.pendingExits.count == 1)
    let events5 = run(&evaluator, [fix(20, north: 300), fix(30, north: 300)])
    #expect(events5 == [
      "10 checkOut a depot/depot-fence in=0 duration=10"
    ])
    #expect(evaluator.pendingExits.isEmpty)
    // A new stay, out once, then the zone is removed: the entry goes with the record.
    _ = run(&evaluator, [fix(40), fix(50, north: 300)])
    #expect(evaluator.pendingExits.count == 1)
    let removed = evaluator.remove(zoneID: "depot")
    #expect(removed)
    #expect(evaluator.pendingExits.isEmpty)
  }

  @Test func aReplacementThatMovesTheFenceClosesTheStayAndItsExit() throws {
    var rules = Self.rules
    rules.exitOnRemove = true
    var evaluator = try ZoneEvaluator(zones: [try circleZone("depot", rules: rules)])
    _ = run(&evaluator, [fix(0), fix(10, north: 300)])
    #expect(evaluator.pendingExits.count == 1)
    // The new fence does not hold the last position: the stay is closed on the spot.
    var events: [ZoneEvent] = []
    try evaluator.add(try circleZone("depot", east: 3000, rules: rules))
    evaluator.advance(to: t(15), into: &events)
    #expect(events.map { $0.kind } == [.checkOut])
    #expect(evaluator.pendingExits.isEmpty)
  }
}
