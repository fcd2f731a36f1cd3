import FenceTesting
import Testing

/// Rules v2 schedules in the engine (`rules-v2.md`, "Schedule"): a zone armed only in its
/// windows, check-outs at the closing instant, nothing while closed. The schedule's own
/// arithmetic (time zones, gaps, folds, except dates) is tested in `ZoneScheduleTests`.
@Suite struct ScheduleRuleTests {
  let outside = depot.moved(north: 200)
  let inside = depot.moved(north: 50)

  /// Monday 2026-01-05 (``testDay``), in UTC unless `timeZone` says otherwise.
  func schedule(_ from: String, _ to: String, timeZone: String = "UTC", days: [ZoneSchedule.Weekday] = [.mon])
    -> ZoneSchedule
  {
    ZoneSchedule(
      timeZone: timeZone,
      windows: [.init(days: days, from: .init(parsing: from)!, to: .init(parsing: to)!)])
  }

  func zone(_ schedule: ZoneSchedule, rules: ZoneRules = .default, id: String = "depot") throws -> Zone {
    var rules = rules
    rules.schedule = schedule
    return try .circle(id, center: depot, radius: 100, rules: rules)
  }

  /// A device inside the depot from 09:58 to 10:10, a fix a minute.
  var stayingTug: DeviceScript {
    var script = DeviceScript("tug").fix(at: inside, "09:58:00")
    for _ in 1...12 { script = script.fix(at: inside, after: 60) }
    return script
  }

  @Test func aZoneIsArmedOnlyInItsWindowAndChecksOutAtTheClosingInstant() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(schedule("10:00", "10:05")))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:05:00", duration: 300, reason: .scheduleClosed),
    ])
  }

  @Test func theClosingCheckOutComesWithAnotherDevicesFixOrAnAdvance() throws {
    // The tug's last fix is at 10:02; a ferry's fix at 10:30 moves the clock past 10:05.
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(schedule("10:00", "10:05")))
    scenario.add(DeviceScript("tug").fix(at: inside, "10:01:00").fix(at: inside, "10:02:00"))
    scenario.add(DeviceScript("ferry").fix(at: outside, "10:30:00"))
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:01:00", device: "tug"),
      .checkOut("depot", at: "10:05:00", duration: 240, device: "tug", reason: .scheduleClosed),
    ])
    // Without the ferry, an advance does it.
    scenario.scripts.removeLast()
    try scenario.run(until: "11:00:00").expectEvents([
      .checkIn("depot", at: "10:01:00"),
      .checkOut("depot", at: "10:05:00", duration: 240, reason: .scheduleClosed),
    ])
  }

  @Test func theWindowIsReadInItsTimeZone() throws {
    // 05:00-05:05 in New York is 10:00-10:05 UTC in January (EST, UTC-5).
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(schedule("05:00", "05:05", timeZone: "America/New_York")))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:05:00", duration: 300, reason: .scheduleClosed),
    ])
  }

  @Test func aDwellDueAtTheClosingInstantFiresAndALaterOneIsCancelled() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(schedule("10:00", "10:05"), rules: .init(dwell: 300), id: "five"))
    scenario.add(try zone(schedule("10:00", "10:05"), rules: .init(dwell: 301), id: "six"))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([
      .checkIn("five", at: "10:00:00"),
      .checkIn("six", at: "10:00:00"),
      .dwell("five", at: "10:05:00"),
      .checkOut("five", at: "10:05:00", duration: 300, reason: .scheduleClosed),
      .checkOut("six", at: "10:05:00", duration: 300, reason: .scheduleClosed),
    ])
  }

  @Test func everyDeviceIsOutsideWhenAWindowOpensAndItsNextFixInsideChecksIn() throws {
    // Two windows; between them the device stays inside. Initial trigger off does not silence
    // the check-in of the second window (it is not a first sighting).
    let twoWindows = ZoneSchedule(
      timeZone: "UTC",
      windows: [
        .init(days: [.mon], from: .init(parsing: "10:00")!, to: .init(parsing: "10:03")!),
        .init(days: [.mon], from: .init(parsing: "10:06")!, to: .init(parsing: "10:08")!),
      ])
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(twoWindows))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:03:00", duration: 180, reason: .scheduleClosed),
      .checkIn("depot", at: "10:06:00"),
      .checkOut("depot", at: "10:08:00", duration: 120, reason: .scheduleClosed),
    ])
  }

  @Test func theMinimumRetriggerTimeCountsAcrossWindows() throws {
    // MRT 10 min from the check-out at 10:03: the second window's entry at 10:06 is suppressed.
    let twoWindows = ZoneSchedule(
      timeZone: "UTC",
      windows: [
        .init(days: [.mon], from: .init(parsing: "10:00")!, to: .init(parsing: "10:03")!),
        .init(days: [.mon], from: .init(parsing: "10:06")!, to: .init(parsing: "10:08")!),
      ])
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(twoWindows, rules: .init(minimumRetriggerTime: 600)))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:03:00", duration: 180, reason: .scheduleClosed),
    ])
  }

  @Test func aClosedZoneCrossedByAGeolineGivesNothing() throws {
    var rules = ZoneRules()
    rules.schedule = schedule("10:00", "10:05")
    let line = try Zone.geoline(
      "gate", [depot.moved(east: -500), depot.moved(east: 500)], rules: rules)
    var scenario = Scenario(day: testDay)
    scenario.add(line)
    scenario.add(
      DeviceScript("tug")
        .fix(at: depot.moved(north: -100), "09:59:00")
        .fix(at: depot.moved(north: 100), "09:59:30")
        .fix(at: depot.moved(north: -100), "10:01:00"))
    try scenario.run().expectEvents([.checkIn("gate", at: "10:00:15", direction: .leftToRight)])
  }

  @Test func aBadTimeZoneIsALoadErrorNamingTheZone() throws {
    var evaluator = ZoneEvaluator()
    let bad = try zone(schedule("10:00", "10:05", timeZone: "Mars/Olympus"))
    do {
      try evaluator.add(bad)
      Issue.record("the zone loaded")
    } catch let error as ZoneError {
      #expect(error.description == "zone \"depot\": schedule.timeZone: unknown time zone \"Mars/Olympus\"")
    }
  }
}
