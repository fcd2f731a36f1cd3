import FenceTesting
import Testing

/// The spec's initial trigger: a device first seen inside, or inside a zone just added.
@Suite struct InitialTriggerRuleTests {
  let away = depot.moved(north: 500)

  @Test func aDeviceFirstSeenInsideChecksInByDefault() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100))
    scenario.add(
      DeviceScript("truck", every: 60).start(at: depot, "10:00:00").stay(for: 120)
        .fix(at: away, "10:03:00"))

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:03:00", duration: 180),
    ])
  }

  @Test func withInitialTriggerOffADeviceFirstSeenInsideIsInsideSilently() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle(
        "depot", center: depot, radius: 100, rules: .init(dwell: 60, initialTrigger: false)))
    scenario.add(
      DeviceScript("truck", every: 60)
        .start(at: depot, "10:00:00")  // inside silently: no check-in, no dwell
        .stay(for: 120)
        .fix(at: away, "10:03:00")  // no check-out for that stay
        .fix(at: depot, "10:04:00"))  // an ordinary entry

    try scenario.run(until: "10:10:00").expectEvents([
      .checkIn("depot", at: "10:04:00"),
      .dwell("depot", at: "10:05:00"),
    ])
  }

  @Test func theFirstFixAfterAZoneIsAddedThatFindsTheDeviceInsideChecksIn() throws {
    var scenario = Scenario(day: testDay)
    scenario.at("10:01:30", .add(try .circle("depot", center: depot, radius: 100)))
    scenario.at(
      "10:01:30",
      .add(try .circle("yard", center: away, radius: 100, rules: .init(initialTrigger: false))))
    scenario.add(DeviceScript("truck", every: 60).start(at: depot, "10:00:00").stay(for: 180))
    scenario.add(DeviceScript("van", every: 60).start(at: away, "10:00:00").stay(for: 180))

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:02:00", device: "truck")
    ])
  }
}
