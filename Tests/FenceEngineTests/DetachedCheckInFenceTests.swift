import FenceGeometry
import Testing

@testable import FenceEngine

/// A record names its check-in fence by element slot; when a zone change removes that fence
/// during the stay, the id is kept aside, so the stay's check-out (and a snapshot taken
/// meanwhile) still names the fence the device checked in through.
@Suite struct DetachedCheckInFenceTests {
  /// The depot's fence is `old-gate` first, then `new-gate` over the same ground.
  static func depot(fence: String) throws -> Zone {
    try circleZone("depot", fence: fence, radius: 200, rules: ZoneRules(dwell: 60))
  }

  @Test func aStayKeepsTheFenceItCheckedInThroughAcrossAReplacement() throws {
    var evaluator = try ZoneEvaluator(zones: [try Self.depot(fence: "old-gate")])
    let entered = run(&evaluator, [fix(0)])
    #expect(entered == ["0 checkIn a depot/old-gate"])
    try evaluator.add(try Self.depot(fence: "new-gate"))
    #expect(evaluator.detachedCheckInFences.count == 1)
    let rest = run(&evaluator, [fix(70, north: 10), fix(80, north: 500), fix(90), fix(100, north: 500)])
    #expect(rest == [
      "60 dwell a depot/old-gate in=0 dwell=60",
      "80 checkOut a depot/old-gate in=0 duration=80",
      "90 checkIn a depot/new-gate",
      "100 checkOut a depot/new-gate in=90 duration=10",
    ])
    // Checked in through the new fence since: the kept id goes at the next zone change.
    try evaluator.add(try circleZone("quay", east: 5000))
    #expect(evaluator.detachedCheckInFences.isEmpty)
  }

  @Test func aSnapshotCarriesTheRemovedFencesID() throws {
    var evaluator = try ZoneEvaluator(zones: [try Self.depot(fence: "old-gate")])
    _ = run(&evaluator, [fix(0)])
    try evaluator.add(try Self.depot(fence: "new-gate"))
    let snapshot = evaluator.snapshot()
    #expect(snapshot.devices.first?.records.first?.checkInFence == "old-gate")
    var restored = try ZoneEvaluator(zones: [try Self.depot(fence: "new-gate")])
    try restored.restore(try EvaluatorSnapshot(decoding: snapshot.encoded()))
    #expect(restored.snapshot() == snapshot)
    let rest = run(&restored, [fix(30, north: 500)])
    #expect(rest == ["30 checkOut a depot/old-gate in=0 duration=30"])
  }

  @Test func removingTheZoneChecksOutThroughTheRemovedFence() throws {
    var rules = ZoneRules.default
    rules.exitOnRemove = true
    var evaluator = try ZoneEvaluator(zones: [
      try circleZone("depot", fence: "old-gate", rules: rules),
    ])
    _ = run(&evaluator, [fix(0)])
    var events: [ZoneEvent] = []
    evaluator.advance(to: t(10), into: &events)
    let removed = evaluator.remove(zoneID: "depot")
    #expect(removed)
    evaluator.advance(to: t(20), into: &events)
    #expect(events.map(describe) == ["10 checkOut a depot/old-gate in=0 duration=10"])
    #expect(evaluator.detachedCheckInFences.isEmpty)
  }
}
