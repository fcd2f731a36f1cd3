import FenceTesting
import Testing

/// Rules v2 together: a schedule with conditions, a lifetime with a schedule, conditions on a
/// roaming zone, and the v1 rules alongside.
@Suite struct RuleCombinationTests {
  let outside = depot.moved(north: 200)
  let inside = depot.moved(north: 50)

  func window(_ from: String, _ to: String) -> ZoneSchedule {
    ZoneSchedule(
      timeZone: "UTC",
      windows: [.init(days: [.mon], from: .init(parsing: from)!, to: .init(parsing: to)!)])
  }

  @Test func aScheduledZoneWithConditionsNeedsBothTheWindowAndAPassingFix() throws {
    var rules = ZoneRules()
    rules.schedule = window("10:00", "10:10")
    rules.conditions = ZoneConditions(minimumSpeed: 2)
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: rules))
    scenario.add(
      DeviceScript("tug")
        .fix(at: inside, "09:59:00", speed: 3)  // fast, but before the window
        .fix(at: inside, "10:01:00", speed: 1)  // in the window, too slow
        .fix(at: inside, "10:02:00", speed: 3)  // both: check-in
        .fix(at: outside, "10:03:00", speed: 1)  // invisible: no exit
        .fix(at: inside, "10:12:00", speed: 3))  // after the window closed
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:02:00"),
      .checkOut("depot", at: "10:10:00", duration: 480, reason: .scheduleClosed),
    ])
  }

  @Test func aScheduleInsideALifetimeOpensOnlyWhileTheZoneExists() throws {
    // Windows 10:00-10:10 every Monday; the zone exists from 10:05 to 10:08.
    var rules = ZoneRules(dwell: 60)
    rules.schedule = window("10:00", "10:10")
    rules.validFrom = try at("10:05:00")
    rules.validUntil = try at("10:08:00")
    rules.exitOnRemove = true
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: rules))
    var script = DeviceScript("tug").fix(at: inside, "10:00:00")
    for _ in 1...12 { script = script.fix(at: inside, after: 60) }
    scenario.add(script)
    // In at 10:05 (added then: an initial trigger, on by default), a dwell at 10:06, out at
    // 10:08 as the zone's lifetime ends (removed, not closed by the schedule).
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:05:00"),
      .dwell("depot", at: "10:06:00"),
      .checkOut("depot", at: "10:08:00", duration: 180, reason: .zoneRemoved),
    ])
  }

  @Test func conditionsOnARoamingZoneJudgeTheTargetsFix() throws {
    var rules = ZoneRules()
    rules.roam = RoamingFence(radius: 500, around: .init(tags: ["tug"]), targets: .init(tags: ["barge"]))
    rules.conditions = ZoneConditions(maximumSpeed: 1)
    var scenario = Scenario(day: testDay)
    scenario.add(Zone(id: "escort", rules: rules))
    scenario.deviceTags = ["tug": ["tug"], "barge": ["barge"]]
    scenario.add(DeviceScript("tug").fix(at: depot, "10:00:00"))
    scenario.add(
      DeviceScript("barge")
        .fix(at: depot.moved(north: 100), "10:00:10", speed: 5)  // too fast: not seen
        .fix(at: depot.moved(north: 100), "10:00:20", speed: 0.5)  // checks in
        .fix(at: depot.moved(north: 900), "10:00:30", speed: 5)  // too fast: no exit
        .fix(at: depot.moved(north: 900), "10:00:40", speed: 0.5))  // out
    let result = try scenario.run()
    result.expectEvents([
      .checkIn("escort", at: "10:00:20", device: "barge"),
      .checkOut("escort", at: "10:00:40", duration: 20, device: "barge"),
    ])
    #expect(result.events.map(\.speed) == [0.5, 0.5])
  }

  @Test func exitConfirmationsAndMRTStillApplyInsideAWindow() throws {
    var rules = ZoneRules(minimumRetriggerTime: 120, exitConfirmations: 2)
    rules.schedule = window("10:00", "11:00")
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: rules))
    scenario.add(
      DeviceScript("tug")
        .fix(at: inside, "10:00:00")
        .fix(at: outside, "10:01:00")
        .fix(at: outside, "10:02:00")  // second outside: out, stamped 10:01
        .fix(at: inside, "10:02:30")  // within MRT (10:01 + 120 s): silent
        .fix(at: outside, "10:04:00")
        .fix(at: outside, "10:05:00")
        .fix(at: inside, "10:06:00"))  // after the MRT: in again
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:01:00", duration: 60),
      .checkIn("depot", at: "10:06:00"),
    ])
  }
}
