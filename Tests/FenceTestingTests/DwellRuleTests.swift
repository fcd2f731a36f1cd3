import FenceTesting
import Testing

/// The spec's Dwell section, one timeline per rule.
@Suite struct DwellRuleTests {
  let away = depot.moved(north: 500)

  @Test func dwellFiresAtItsDeadlineBeforeTheCheckOutOfALaterFixOutside() throws {
    // The spec's worked example: seen inside at 10:00, next seen outside at 10:07, D = 5 min.
    // Docs/Testing-zone-rules.md shows this test: keep the two the same.
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 300)))
    scenario.add(
      DeviceScript("truck")
        .start(at: depot, "10:00:00")
        .fix(at: depot.moved(north: 500), "10:07:00"))

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00", fence: "depot", device: "truck"),
      .dwell("depot", at: "10:05:00", device: "truck"),
      .checkOut("depot", at: "10:07:00", duration: 420, device: "truck"),
    ])
  }

  @Test func dwellFiresWhenTheHostAdvancesTheEnginesTime() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 300)))
    scenario.add(DeviceScript("truck").start(at: depot, "10:00:00"))

    try scenario.run(until: "10:04:59").expectEvents([.checkIn("depot", at: "10:00:00")])
    try scenario.run(until: "10:05:00").expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .dwell("depot", at: "10:05:00"),
    ])
  }

  @Test func dwellFiresBeforeAnotherDevicesFixAtOrAfterTheDeadline() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 300)))
    scenario.add(DeviceScript("truck").start(at: depot, "10:00:00"))
    scenario.add(DeviceScript("van").start(at: away, "10:06:00").fix(at: depot, "10:06:30"))

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00", device: "truck"),
      .dwell("depot", at: "10:05:00", device: "truck"),
      .checkIn("depot", at: "10:06:30", device: "van"),
    ])
  }

  @Test func leavingBeforeTheDwellTimeGivesNoDwell() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 300)))
    scenario.add(
      DeviceScript("truck", every: 60)
        .start(at: depot, "10:00:00")
        .stay(for: 240)
        .fix(at: away, "10:04:59"))

    try scenario.run(until: "11:00:00").expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:04:59", duration: 299),
    ])
  }

  @Test func aDueDwellWaitsForAPendingExitAndFiresWhenTheDeviceIsBackInside() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle(
        "depot", center: depot, radius: 100, rules: .init(dwell: 300, exitConfirmations: 2)))
    scenario.add(
      DeviceScript("truck")
        .start(at: depot, "10:00:00")
        .fix(at: away, "10:04:30")  // exit pending (1 of 2)
        .fix(at: depot, "10:05:30")  // inside again: the waiting dwell is emitted
        .fix(at: away, "10:06:00")
        .fix(at: away, "10:06:10"))  // exit confirmed, stamped with its first fix

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .dwell("depot", at: "10:05:00"),
      .checkOut("depot", at: "10:06:00", duration: 360),
    ])
  }

  @Test func aDueDwellIsDroppedWhenThePendingExitIsConfirmedBeforeItsDeadline() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle(
        "depot", center: depot, radius: 100, rules: .init(dwell: 300, exitConfirmations: 2)))
    scenario.add(
      DeviceScript("truck")
        .start(at: depot, "10:00:00")
        .fix(at: away, "10:04:30")
        .fix(at: away, "10:05:30"))

    try scenario.run(until: "11:00:00").expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:04:30", duration: 270),
    ])
  }
}
