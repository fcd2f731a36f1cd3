import FenceTesting
import Testing

/// Rules v2 zone lifetime (`validFrom`, `validUntil`) and `exitOnRemove` (`rules-v2.md`, "Zone
/// lifetime").
@Suite struct LifetimeRuleTests {
  let outside = depot.moved(north: 200)
  let inside = depot.moved(north: 50)

  func zone(
    _ id: String = "depot", from: String? = nil, until: String? = nil, exitOnRemove: Bool = false,
    rules: ZoneRules = .default
  ) throws -> Zone {
    var rules = rules
    rules.validFrom = try from.map { try at($0) }
    rules.validUntil = try until.map { try at($0) }
    rules.exitOnRemove = exitOnRemove
    return try .circle(id, center: depot, radius: 100, rules: rules)
  }

  /// A device inside the depot from 10:00 to 10:10, a fix a minute.
  var stayingTug: DeviceScript {
    var script = DeviceScript("tug").fix(at: inside, "10:00:00")
    for _ in 1...10 { script = script.fix(at: inside, after: 60) }
    return script
  }

  @Test func aZoneComesIntoExistenceAtValidFromAsIfAddedThen() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(from: "10:05:00"))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([.checkIn("depot", at: "10:05:00")])

    // Added then, a device already inside is an initial trigger: silent without it.
    scenario.zones = [try zone(from: "10:05:00", rules: .init(initialTrigger: false))]
    try scenario.run().expectEvents([])
  }

  @Test func validUntilWithExitOnRemoveChecksOutAtThatInstantBeforeTheFixsEvents() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(until: "10:04:30", exitOnRemove: true))
    scenario.add(try zone("plain", rules: .init()))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkIn("plain", at: "10:00:00"),
      .checkOut("depot", at: "10:04:30", duration: 270, reason: .zoneRemoved),
    ])
  }

  @Test func validUntilWithoutExitOnRemoveDropsTheStaySilently() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(until: "10:04:30"))
    scenario.add(stayingTug.fix(at: outside, after: 60))
    try scenario.run().expectEvents([.checkIn("depot", at: "10:00:00")])
  }

  @Test func anAdvancePastValidUntilChecksOut() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(until: "10:30:00", exitOnRemove: true))
    scenario.add(DeviceScript("tug").fix(at: inside, "10:00:00"))
    try scenario.run(until: "11:00:00").expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:30:00", duration: 1800, reason: .zoneRemoved),
    ])
  }

  @Test func aDwellDueBeforeValidUntilFiresAndOneDueAfterIsCancelled() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone("short", until: "10:02:30", exitOnRemove: true, rules: .init(dwell: 120)))
    scenario.add(try zone("long", until: "10:02:30", exitOnRemove: true, rules: .init(dwell: 180)))
    scenario.add(stayingTug)
    try scenario.run().expectEvents([
      .checkIn("long", at: "10:00:00"),
      .checkIn("short", at: "10:00:00"),
      .dwell("short", at: "10:02:00"),
      .checkOut("long", at: "10:02:30", duration: 150, reason: .zoneRemoved),
      .checkOut("short", at: "10:02:30", duration: 150, reason: .zoneRemoved),
    ])
  }

  @Test func removingAnExitOnRemoveZoneChecksOutAtTheEnginesTime() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(exitOnRemove: true))
    scenario.add(try zone("quiet"))
    scenario.add(stayingTug)
    scenario.at("10:03:30", .remove(zoneID: "depot"))
    scenario.at("10:03:30", .remove(zoneID: "quiet"))
    // The engine's time at the change is the 10:03 fix's.
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkIn("quiet", at: "10:00:00"),
      .checkOut("depot", at: "10:03:00", duration: 180, reason: .zoneRemoved),
    ])
    // An advance at the change's time stamps it there.
    scenario.changes = []
    scenario.advance(to: "10:03:30")
    scenario.at("10:03:30", .remove(zoneID: "depot"))
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkIn("quiet", at: "10:00:00"),
      .checkOut("depot", at: "10:03:30", duration: 210, reason: .zoneRemoved),
    ])
  }

  @Test func replacingWithoutTheFenceTheDeviceIsInChecksOutAndKeepsTheMRTWindow() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(exitOnRemove: true, rules: .init(minimumRetriggerTime: 600)))
    scenario.add(stayingTug)
    // Moved 1 km away at 10:03:30: the device is in no fence of the new version.
    let moved = try Zone.circle(
      "depot", center: depot.moved(north: 1000), radius: 100,
      rules: .init(minimumRetriggerTime: 600, exitOnRemove: true))
    scenario.at("10:03:30", .add(moved))
    // Back at 10:05:30: still inside the (old) MRT window opened by the check-out at 10:03.
    scenario.at("10:05:30", .add(try zone(exitOnRemove: true, rules: .init(minimumRetriggerTime: 600))))
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:03:00", duration: 180, reason: .zoneRemoved),
    ])
  }

  @Test func replacingWithTheFenceStillHoldingTheDeviceKeepsItCheckedIn() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try zone(exitOnRemove: true))
    scenario.add(stayingTug.fix(at: outside, after: 60))
    let bigger = try Zone.circle(
      "depot", center: depot, radius: 150, rules: .init(exitOnRemove: true))
    scenario.at("10:03:30", .add(bigger))
    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:11:00", duration: 660),
    ])
  }

  @Test func validUntilNotAfterValidFromIsRefused() throws {
    var evaluator = ZoneEvaluator()
    let zone = try zone(from: "10:00:00", until: "10:00:00")
    #expect(throws: ZoneError.self) { try evaluator.add(zone) }
    do {
      try evaluator.add(zone)
    } catch let error as ZoneError {
      #expect(
        error.description
          == "zone \"depot\": validUntil (2026-01-05T10:00:00Z) must be after validFrom (2026-01-05T10:00:00Z)")
    }
    #expect(evaluator.zoneCount == 0)
  }
}
