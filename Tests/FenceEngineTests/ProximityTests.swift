import FenceEngine
import Testing

@Suite struct ProximityTests {
  /// Fences 100, 300, 600 and 2,000 m north of the origin (radius 10 m), and a GEOLINE 450 m
  /// south of it.
  func zones() throws -> [Zone] {
    [
      try circleZone("z100", fence: "f100", north: 110, radius: 10),
      try circleZone("z300", fence: "f300", north: 310, radius: 10),
      try circleZone("z600", fence: "f600", north: 610, radius: 10),
      try circleZone("z2000", fence: "f2000", north: 2010, radius: 10),
      Zone(id: "line", geolines: [try geoline("g450", [(-450, -1000), (-450, 1000)])]),
    ]
  }

  @Test func theMonitoredSetIsTheNearestNWithinTheRadius() throws {
    let configuration = ZoneEvaluator.Configuration(
      proximity: .init(count: 3, radius: 1000))
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones())
    #expect(run(&evaluator, [
      fix(0),  // 100, 300, 450 (600 is 4th)
      fix(10, east: 1),  // same set: no event
      fix(20, north: 310),  // inside f300 (0), f100 and f600 at 190 m and 290 m
      fix(30, north: 5000),  // nothing within 1 km
    ]) == [
      "0 monitoredSetChanged a on=[\"f100\", \"f300\", \"g450\"] off=[]",
      "20 checkIn a z300/f300",
      "20 monitoredSetChanged a on=[\"f600\"] off=[\"g450\"]",
      "30 checkOut a z300/f300 in=20 duration=10",
      "30 monitoredSetChanged a on=[] off=[\"f100\", \"f300\", \"f600\"]",
    ])
  }

  @Test func tiesAreBrokenByID() throws {
    let configuration = ZoneEvaluator.Configuration(proximity: .init(count: 1, radius: 1000))
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: [
      circleZone("b", fence: "fb", radius: 50), circleZone("a", fence: "fa", radius: 50),
    ])
    #expect(run(&evaluator, [fix(0)]) == [
      "0 checkIn a a/fa",
      "0 checkIn a b/fb",
      "0 monitoredSetChanged a on=[\"fa\"] off=[]",
    ])
  }

  @Test func moreTiesThanPlacesAreBrokenByID() throws {
    // 30 fences hold the device (distance 0): the 20 with the lowest ids are monitored.
    let configuration = ZoneEvaluator.Configuration(proximity: .init(count: 20, radius: 1000))
    let zones = try (0..<30).map { try circleZone("z\($0)", fence: "f\(100 + $0)", radius: 50) }
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones.reversed())
    var events: [ZoneEvent] = []
    evaluator.process(fix(0), into: &events)
    let change = try #require(events.last)
    #expect(change.kind == .monitoredSetChanged)
    #expect(change.on == (100..<120).map { "f\($0)" })
  }

  @Test func inMonitoredOnlyModeUnmonitoredFencesDoNotTrigger() throws {
    // Three fences around the path; only the nearest one is monitored.
    let configuration = ZoneEvaluator.Configuration(
      proximity: .init(count: 1, radius: 1000, triggersOnlyMonitored: true))
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: [
      circleZone("near", north: 0, radius: 50), circleZone("far", north: 400, radius: 50),
    ])
    #expect(run(&evaluator, [
      fix(0),  // first fix: the set around it ({near}) is used, so near checks in
      fix(10, north: 400),  // the set registered before this fix is {near}: far is invisible
      fix(20, north: 410),  // now far is monitored: check-in
    ]) == [
      "0 checkIn a near/near-fence",
      "0 monitoredSetChanged a on=[\"near-fence\"] off=[]",
      "10 checkOut a near/near-fence in=0 duration=10",
      "10 monitoredSetChanged a on=[\"far-fence\"] off=[\"near-fence\"]",
      "20 checkIn a far/far-fence",
    ])
  }

  @Test func aRemovedFenceLeavesTheMonitoredSetWithoutAnEvent() throws {
    let configuration = ZoneEvaluator.Configuration(proximity: .init(count: 5, radius: 1000))
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones())
    _ = run(&evaluator, [fix(0)])
    evaluator.remove(zoneID: "z100")
    #expect(run(&evaluator, [fix(10, east: 1)]) == [])
  }
}
