import FenceEngine
import FenceGeometry
import Testing

@Suite struct ZoneEvaluatorTests {
  @Test func aDeviceChecksInWhenItEntersAndOutWhenItLeaves() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("depot")])
    let events = run(&evaluator, [
      fix(0, north: 300),
      fix(10),
      fix(20, north: 50),
      fix(30, north: 300),
    ])
    #expect(events == [
      "10 checkIn a depot/depot-fence",
      "30 checkOut a depot/depot-fence in=10 duration=20",
    ])
  }

  @Test func theBoundaryOfACircleCountsAsInside() throws {
    let center = at()
    // A circle whose radius is exactly the WGS84 distance to the fix: the fix is on the edge.
    let edge = at(north: 80, east: 60)
    let radius = WGS84.distance(center, edge)
    let zone = Zone(id: "z", fences: [try .circle(id: "f", center: center, radius: radius)])
    var evaluator = try ZoneEvaluator(zones: [zone])
    var events: [ZoneEvent] = []
    evaluator.process(
      LocationFix(device: "a", time: t(0), latitude: edge.latitude, longitude: edge.longitude),
      into: &events)
    #expect(events.map(describe) == ["0 checkIn a z/f"])
  }

  @Test func aCheckInNamesTheLowestFenceIDAmongContainingFences() throws {
    let zone = Zone(
      id: "port",
      fences: [
        try .circle(id: "c-wide", center: at(), radius: 500),
        try .circle(id: "b-mid", center: at(), radius: 200),
        try .circle(id: "d-away", center: at(north: 5000), radius: 100),
      ])
    var evaluator = try ZoneEvaluator(zones: [zone])
    #expect(run(&evaluator, [fix(0, north: 1000), fix(10)]) == ["10 checkIn a port/b-mid"])
    // Moving between the fences of one zone is no event.
    #expect(run(&evaluator, [fix(20, north: 400), fix(30, north: 100)]) == [])
  }

  @Test func checkOutsComeBeforeCheckInsAndTiesGoByZoneID() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("b-zone", north: 0), circleZone("c-zone", north: 1000),
      circleZone("a-zone", north: 0), circleZone("d-zone", north: 1000),
    ])
    let events = run(&evaluator, [fix(0), fix(10, north: 1000)])
    #expect(events == [
      "0 checkIn a a-zone/a-zone-fence",
      "0 checkIn a b-zone/b-zone-fence",
      "10 checkOut a a-zone/a-zone-fence in=0 duration=10",
      "10 checkOut a b-zone/b-zone-fence in=0 duration=10",
      "10 checkIn a c-zone/c-zone-fence",
      "10 checkIn a d-zone/d-zone-fence",
    ])
  }

  @Test func aZoneWithCheckOutOffNeverChecksOut() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(checkOut: false))
    ])
    #expect(run(&evaluator, [fix(0), fix(10, north: 500), fix(20)]) == [
      "0 checkIn a z/z-fence noCheckOut",
      "20 checkIn a z/z-fence noCheckOut",
    ])
  }

  @Test func devicesAreIndependent() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    let events = run(&evaluator, [
      fix(0, device: "a"), fix(1, north: 500, device: "b"), fix(2, north: 500, device: "a"),
      fix(3, device: "b"),
    ])
    #expect(events == [
      "0 checkIn a z/z-fence",
      "2 checkOut a z/z-fence in=0 duration=2",
      "3 checkIn b z/z-fence",
    ])
  }

  @Test func eventsCarryTheZonesDataAndTheFixsPositionSpeedAndCourse() throws {
    let customData: JSONObject = ["terminal": .string("St. George"), "slips": .number(3)]
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", customData: customData)])
    var events: [ZoneEvent] = []
    let inside = fix(0, north: 10, speed: 2.5, course: 90)
    let outside = fix(60, north: 400, speed: 3, course: 180)
    evaluator.process(inside, into: &events)
    evaluator.process(outside, into: &events)

    var checkIn = ZoneEvent(kind: .checkIn, time: t(0), device: "a")
    checkIn.zone = "z"
    checkIn.fence = "z-fence"
    checkIn.trigger = .fence
    checkIn.latitude = inside.latitude
    checkIn.longitude = inside.longitude
    checkIn.speed = 2.5
    checkIn.course = 90
    checkIn.willCheckOut = true
    checkIn.customData = customData
    var checkOut = ZoneEvent(kind: .checkOut, time: t(60), device: "a")
    checkOut.zone = "z"
    checkOut.fence = "z-fence"
    checkOut.latitude = outside.latitude
    checkOut.longitude = outside.longitude
    checkOut.speed = 3
    checkOut.course = 180
    checkOut.customData = customData
    checkOut.checkInTime = t(0)
    checkOut.durationSeconds = 60
    #expect(events == [checkIn.withDeterministicID(), checkOut.withDeterministicID()])
  }

  @Test func aPreInternedDeviceHandleGivesTheSameEvents() throws {
    let fixes = [fix(0, north: 300), fix(10), fix(20, north: 300)]
    var byName = try ZoneEvaluator(zones: [circleZone("z")])
    var byHandle = try ZoneEvaluator(zones: [circleZone("z")])
    let handle = byHandle.handle(forDevice: "a")
    #expect(byHandle.handle(forDevice: "a") == handle)
    var expected: [ZoneEvent] = []
    var actual: [ZoneEvent] = []
    for f in fixes {
      byName.process(f, into: &expected)
      byHandle.process(f, device: handle, into: &actual)
    }
    #expect(actual == expected)
    #expect(actual.count == 2)
    let other = byHandle.handle(forDevice: "a much longer device name than fifteen bytes")
    #expect(byHandle.deviceName(handle) == "a")
    #expect(byHandle.deviceName(other) == "a much longer device name than fifteen bytes")
  }

  @Test func thePolygonBoundaryAndHolesFollowTheCoversRule() throws {
    let ring = [at(north: -100, east: -100), at(north: -100, east: 100), at(north: 100, east: 100),
      at(north: 100, east: -100), at(north: -100, east: -100)]
    let hole = [at(north: -20, east: -20), at(north: -20, east: 20), at(north: 20, east: 20),
      at(north: 20, east: -20), at(north: -20, east: -20)]
    let polygon = try Polygon(exterior: ring, holes: [hole])
    let zone = Zone(id: "yard", fences: [Fence(id: "yard-area", area: .polygon(MultiPolygon(polygon)))])
    var evaluator = try ZoneEvaluator(zones: [zone])
    let onHoleEdge = LocationFix(
      device: "a", time: t(20), latitude: hole[0].latitude, longitude: hole[0].longitude)
    var events: [ZoneEvent] = []
    for f in [fix(0, north: 300), fix(10, north: 50), fix(15), onHoleEdge, fix(25, east: 500)] {
      evaluator.process(f, into: &events)
    }
    #expect(events.map(describe) == [
      "10 checkIn a yard/yard-area",
      "15 checkOut a yard/yard-area in=10 duration=5",
      "20 checkIn a yard/yard-area",
      "25 checkOut a yard/yard-area in=20 duration=5",
    ])
  }
}
