import FenceEngine
import FenceGeometry
import Testing

@Suite struct ZoneChangeTests {
  @Test func aReplacedZoneKeepsTheDevicesStay() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", customData: ["v": .number(1)])])
    #expect(run(&evaluator, [fix(0)]) == ["0 checkIn a z/z-fence"])
    try evaluator.add(circleZone("z", radius: 150, customData: ["v": .number(2)]))
    var events: [ZoneEvent] = []
    evaluator.process(fix(10, north: 120), into: &events)
    evaluator.process(fix(20, north: 500), into: &events)
    #expect(events.map(describe) == ["20 checkOut a z/z-fence in=0 duration=20"])
    #expect(events.first?.customData == ["v": .number(2)])
  }

  @Test func aReplacedZoneWhoseFenceMovedAwayChecksOutAtTheNextFix() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    #expect(run(&evaluator, [fix(0)]) == ["0 checkIn a z/z-fence"])
    try evaluator.add(circleZone("z", fence: "moved", north: 3000))
    #expect(run(&evaluator, [fix(10)]) == ["10 checkOut a z/z-fence in=0 duration=10"])
    #expect(run(&evaluator, [fix(20, north: 3000)]) == ["20 checkIn a z/moved"])
  }

  @Test func aReplacedZoneKeepsItsMRTWindowAndReschedulesAPendingDwell() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(minimumRetriggerTime: 100, dwell: 300)),
      circleZone("y", north: 1000, rules: ZoneRules(dwell: 300)),
    ])
    #expect(run(&evaluator, [fix(0), fix(10, north: 1000)]) == [
      "0 checkIn a z/z-fence",
      "10 checkOut a z/z-fence in=0 duration=10",
      "10 checkIn a y/y-fence",
    ])
    try evaluator.add([
      circleZone("z", rules: ZoneRules(minimumRetriggerTime: 100)),
      circleZone("y", north: 1000, rules: ZoneRules(dwell: 50)),
    ])
    // z's window (10..<110) survives the replace; y's dwell moves from 310 to 60; z's stay
    // has no dwell any more.
    #expect(run(&evaluator, [fix(70), fix(100, north: 1000), fix(105), fix(110, north: 1000), fix(115)]) == [
      "60 dwell a y/y-fence in=10 dwell=50",
      "70 checkOut a y/y-fence in=10 duration=60",
      "100 checkIn a y/y-fence",
      "105 checkOut a y/y-fence in=100 duration=5",
      "110 checkIn a y/y-fence",
      "115 checkOut a y/y-fence in=110 duration=5",
      "115 checkIn a z/z-fence",
    ])
  }

  @Test func aRemovedZoneDropsItsStateWithoutAnEvent() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(minimumRetriggerTime: 1000, dwell: 60)), circleZone("other", north: 5000),
    ])
    #expect(run(&evaluator, [fix(0)]) == ["0 checkIn a z/z-fence"])
    let removed = evaluator.remove(zoneID: "z")
    let removedAgain = evaluator.remove(zoneID: "z")
    #expect(removed)
    #expect(!removedAgain)
    #expect(run(&evaluator, [fix(100, north: 500)]) == [])
    #expect(advance(&evaluator, to: 1000) == [])
    // Added again under the same id it is a new zone: no MRT window, an initial trigger.
    try evaluator.add(circleZone("z", rules: ZoneRules(minimumRetriggerTime: 1000, dwell: 60)))
    #expect(run(&evaluator, [fix(1010)]) == ["1010 checkIn a z/z-fence"])
    #expect(evaluator.zoneCount == 2)
  }

  @Test func replacingTheWholeSetRemovesZonesThatAreNotInIt() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z"), circleZone("y")])
    #expect(run(&evaluator, [fix(0)]) == ["0 checkIn a y/y-fence", "0 checkIn a z/z-fence"])
    try evaluator.replaceAll(with: [circleZone("z"), circleZone("x")])
    #expect(evaluator.zones.map(\.id) == ["x", "z"])
    #expect(run(&evaluator, [fix(10), fix(20, north: 500)]) == [
      "10 checkIn a x/x-fence",
      "20 checkOut a x/x-fence in=10 duration=10",
      "20 checkOut a z/z-fence in=0 duration=20",
    ])
  }

  @Test func fencesAddedOneByOneGiveTheSameEventsAsOneLoad() throws {
    // 2,000 circle zones on a grid, added one at a time while a device streams, against the
    // same set loaded at once.
    var zones: [Zone] = []
    for row in 0..<40 {
      for column in 0..<50 {
        zones.append(try circleZone(
          "g\(row)-\(column)", north: Double(row) * 300, east: Double(column) * 300, radius: 120))
      }
    }
    let fixes = (0..<400).map { step in
      fix(Double(step), north: Double(step) * 29, east: Double(step) * 37)
    }
    var loaded = try ZoneEvaluator(zones: zones)
    var incremental = ZoneEvaluator()
    var expected: [ZoneEvent] = []
    var actual: [ZoneEvent] = []
    for zone in zones { try incremental.add(zone) }
    for f in fixes {
      loaded.process(f, into: &expected)
      incremental.process(f, into: &actual)
    }
    #expect(actual == expected)
    #expect(expected.count > 20)
  }

  @Test func zonesAddedWhileADeviceStreamsApplyFromTheNextFix() throws {
    var evaluator = ZoneEvaluator()
    var events: [ZoneEvent] = []
    for step in 0..<100 {
      if step % 10 == 0 { try evaluator.add(circleZone("z\(step)", east: Double(step) * 50, radius: 30)) }
      evaluator.process(fix(Double(step), east: Double(step) * 50), into: &events)
    }
    #expect(events.filter { $0.kind == .checkIn }.map(\.zone) == (0..<10).map { "z\($0 * 10)" })
  }

  @Test func removingABatchDropsEachZonesStateAsRemovingThemOneByOne() throws {
    let zones = [
      try circleZone("a-zone"), try circleZone("b-zone", radius: 200),
      try circleZone("c-zone", radius: 300), try circleZone("d-zone", north: 5000),
    ]
    var batched = try ZoneEvaluator(zones: zones)
    var oneByOne = try ZoneEvaluator(zones: zones)
    let first = [fix(0), fix(0, device: "b")]
    #expect(run(&batched, first) == run(&oneByOne, first))
    let removed = batched.remove(zoneIDs: ["b-zone", "nowhere", "a-zone", "b-zone"])
    #expect(removed == 2)
    oneByOne.remove(zoneID: "a-zone")
    oneByOne.remove(zoneID: "b-zone")
    #expect(batched.zones.map(\.id) == ["c-zone", "d-zone"])
    #expect(batched.zoneCount == 2)
    #expect(batched.fenceCount == 2)
    #expect(batched.geolineCount == 0)
    // The removed zones' stays end without a check-out; c-zone's goes on.
    let later = [fix(10, north: 400), fix(10, north: 400, device: "b"), fix(20, north: 5000)]
    #expect(run(&batched, later) == [
      "10 checkOut a c-zone/c-zone-fence in=0 duration=10",
      "10 checkOut b c-zone/c-zone-fence in=0 duration=10",
      "20 checkIn a d-zone/d-zone-fence",
    ])
    #expect(run(&oneByOne, later) == [
      "10 checkOut a c-zone/c-zone-fence in=0 duration=10",
      "10 checkOut b c-zone/c-zone-fence in=0 duration=10",
      "20 checkIn a d-zone/d-zone-fence",
    ])
    #expect(batched.remove(zoneIDs: ["nowhere"]) == 0)
  }

  @Test func fenceAndGeolineCountsFollowEveryChange() throws {
    var evaluator = ZoneEvaluator()
    #expect(evaluator.fenceCount == 0)
    try evaluator.add([
      Zone(
        id: "port",
        fences: [
          try .circle(id: "p1", center: at(north: 0, east: 0), radius: 50),
          try .circle(id: "p2", center: at(north: 900, east: 0), radius: 50),
        ],
        geolines: [try geoline("gate", [(0, -100), (0, 100)])]),
      try circleZone("solo"),
    ])
    #expect([evaluator.zoneCount, evaluator.fenceCount, evaluator.geolineCount, evaluator.elementCount] == [2, 3, 1, 4])
    // Replaced with one fence fewer and no GEOLINE.
    try evaluator.add(Zone(id: "port", fences: [try .circle(id: "p1", center: at(north: 0, east: 0), radius: 60)]))
    #expect([evaluator.zoneCount, evaluator.fenceCount, evaluator.geolineCount, evaluator.elementCount] == [2, 2, 0, 2])
    evaluator.remove(zoneID: "solo")
    #expect([evaluator.zoneCount, evaluator.fenceCount, evaluator.geolineCount, evaluator.elementCount] == [1, 1, 0, 1])
  }
}
