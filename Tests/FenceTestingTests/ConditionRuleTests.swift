import FenceTesting
import Testing

/// Rules v2 conditions (`rules-v2.md`, "Conditions"): speed and course bands and device tags,
/// and how a fix that fails them is invisible to the zone.
@Suite struct ConditionRuleTests {
  /// 200 m north of the depot, outside its 100 m fence.
  let outside = depot.moved(north: 200)
  /// 50 m north of the depot, inside its 100 m fence.
  let inside = depot.moved(north: 50)

  func zone(_ conditions: ZoneConditions, rules: ZoneRules = .default) throws -> Zone {
    var rules = rules
    rules.conditions = conditions
    return try .circle("depot", center: depot, radius: 100, rules: rules)
  }

  @Test func aFixBelowTheMinimumSpeedIsNotSeenAndAFasterOneChecksIn() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(minimumSpeed: 2)))
    scenario.add(
      DeviceScript("tug")
        .fix(at: outside, "10:00:00", speed: 5)
        .fix(at: inside, "10:00:30", speed: 1)
        .fix(at: inside, "10:00:40", speed: 2)
        .fix(at: inside, "10:00:50", speed: 1))
    try scenario.run().expectEvents([.checkIn("depot", at: "10:00:40")])
  }

  @Test func aFixWithoutSpeedUsesTheSpeedFromTheDevicesPreviousFix() throws {
    // 150 m in 30 s: 5 m/s, within 4...6; then 0 m in 10 s, below it.
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(minimumSpeed: 4, maximumSpeed: 6)))
    scenario.add(
      DeviceScript("tug")
        .fix(at: outside, "10:00:00")
        .fix(at: inside, "10:00:30")
        .fix(at: inside, "10:00:40"))
    let result = try scenario.run()
    result.expectEvents([.checkIn("depot", at: "10:00:30")])
    // The event carries the speed used (derived) and the course (due south).
    let event = try #require(result.events.first)
    // Derived in the local plane: within a millionth of the ellipsoidal distance over 150 m.
    let step = WGS84.localDisplacement(from: outside, to: inside)
    let expected = (step.north * step.north + step.east * step.east).squareRoot() / 30
    #expect(abs(try #require(event.speed) - expected) < 1e-12)
    #expect(abs(expected - WGS84.distance(outside, inside) / 30) < 5e-6)
    #expect(abs(expected - 5) < 0.01)
    #expect(event.course == 180)
  }

  @Test func aDevicesFirstFixHasNoSpeedAndFailsSpeedConditions() throws {
    // First fix inside: no speed, not seen; the second (10 m in 10 s = 1 m/s) checks in.
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(minimumSpeed: 0.5)))
    scenario.add(
      DeviceScript("tug")
        .fix(at: inside, "10:00:00")
        .fix(at: inside.moved(north: 10), "10:00:10"))
    try scenario.run().expectEvents([.checkIn("depot", at: "10:00:10")])
  }

  @Test func aFailingFixOutsideNeitherChecksOutNorCountsAsAnExit() throws {
    // Checked in fast; then outside slowly (invisible), outside fast (exit 1 of 2), outside
    // slowly (invisible), outside fast (exit 2): the check-out is stamped with the first fast
    // fix outside.
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(minimumSpeed: 2), rules: .init(exitConfirmations: 2)))
    scenario.add(
      DeviceScript("tug")
        .fix(at: inside, "10:00:00", speed: 3)
        .fix(at: outside, "10:01:00", speed: 1)
        .fix(at: outside, "10:02:00", speed: 3)
        .fix(at: outside, "10:03:00", speed: 1)
        .fix(at: outside, "10:04:00", speed: 3))
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:02:00", duration: 120),
    ])
  }

  @Test func aFailingFixDoesNotEndADwell() throws {
    // Dwell 60 s; an invisible fix outside at 10:00:30 starts no pending exit, so the dwell
    // fires at its deadline; the next visible fix outside checks out.
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(maximumSpeed: 10), rules: .init(dwell: 60)))
    scenario.add(
      DeviceScript("tug")
        .fix(at: inside, "10:00:00", speed: 1)
        .fix(at: outside, "10:00:30", speed: 20)
        .fix(at: outside, "10:01:30", speed: 1))
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .dwell("depot", at: "10:01:00"),
      .checkOut("depot", at: "10:01:30", duration: 90),
    ])
  }

  @Test func aFailingFixCountsNoHysteresis() throws {
    // Hysteresis 30 m: at 120 m a visible fix stays checked in (20 m from the edge); an
    // invisible fix at 500 m changes nothing; a visible one at 140 m checks out.
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(minimumSpeed: 2), rules: .init(exitHysteresis: 30)))
    scenario.add(
      DeviceScript("tug")
        .fix(at: inside, "10:00:00", speed: 3)
        .fix(at: depot.moved(north: 120), "10:01:00", speed: 3)
        .fix(at: depot.moved(north: 500), "10:02:00", speed: 1)
        .fix(at: depot.moved(north: 140), "10:03:00", speed: 3))
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:03:00", duration: 180),
    ])
  }

  @Test(arguments: [
    (350.0, true), (300, true), (60, true), (0, true), (360, true), (61, false), (90, false),
    (299.9, false), (-10, true), (710, true),
  ])
  func theCourseBandWrapsThroughNorth(course: Double, passes: Bool) throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(course: .init(from: 300, to: 60))))
    scenario.add(DeviceScript("tug").fix(at: inside, "10:00:00", course: course))
    let result = try scenario.run()
    #expect(result.events.count == (passes ? 1 : 0))
    if passes { #expect(result.events.first?.course == course) }
  }

  @Test func aCourseDerivedFromMovementPassesTheBand() throws {
    // Moving due east (90°) passes 45...135; due north (0°) does not.
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(course: .init(from: 45, to: 135))))
    scenario.add(
      DeviceScript("east")
        .fix(at: inside.moved(east: -20), "10:00:00")
        .fix(at: inside, "10:00:10"))
    scenario.add(
      DeviceScript("north")
        .fix(at: inside.moved(north: -20), "10:00:00")
        .fix(at: inside, "10:00:10"))
    let result = try scenario.run()
    result.expectEvents([.checkIn("depot", at: "10:00:10", device: "east")])
    #expect(abs(try #require(result.events.first?.course) - 90) < 1e-6)
  }

  @Test func deviceTagsAdmitAnyOfTheListedAndNoneOfTheExcluded() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(deviceTags: .init(any: ["ferry", "tug"], none: ["test"]))))
    scenario.deviceTags = ["ferry-1": ["ferry"], "tug-1": ["tug", "harbour"],
      "test-ferry": ["ferry", "test"], "barge": ["barge"]]
    for device in ["ferry-1", "tug-1", "test-ferry", "barge", "untagged"] {
      scenario.add(DeviceScript(device).fix(at: inside, "10:00:00"))
    }
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00", device: "ferry-1"),
      .checkIn("depot", at: "10:00:00", device: "tug-1"),
    ])
  }

  @Test func tagsSetWhileADeviceMovesCountFromItsNextFix() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(deviceTags: .init(any: ["ferry"]))))
    scenario.add(
      DeviceScript("boat")
        .fix(at: inside, "10:00:00")
        .fix(at: inside, "10:01:00")
        .fix(at: inside, "10:02:00")
        .fix(at: outside, "10:03:00"))
    scenario.at("10:00:30", .setTags(device: "boat", tags: ["ferry"]))
    scenario.at("10:02:30", .setTags(device: "boat", tags: []))
    // Tagged at 10:00:30: checks in at 10:01; untagged at 10:02:30: its fix outside is
    // invisible, so no check-out.
    try scenario.run().expectEvents([.checkIn("depot", at: "10:01:00")])
  }

  @Test func zonesWithoutConditionsKeepTheFixsOwnSpeedAndCourse() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(ZoneConditions(minimumSpeed: 0)))
    scenario.add(try .circle("plain", center: depot, radius: 100))
    scenario.add(
      DeviceScript("tug")
        .fix(at: outside, "10:00:00")
        .fix(at: inside, "10:00:30"))
    let result = try scenario.run()
    result.expectEvents([.checkIn("depot", at: "10:00:30"), .checkIn("plain", at: "10:00:30")])
    #expect(result.events[0].speed != nil)
    #expect(result.events[1].speed == nil)
    #expect(result.events[1].course == nil)
  }
}
