import FenceTesting
import Testing

/// The spec's zones changing while devices move: a replaced zone keeps device state, a removed
/// zone drops it, neither with an event.
@Suite struct ZoneChangeRuleTests {
  let away = depot.moved(north: 500)

  @Test func aZoneReplacedWhileADeviceIsInsideKeepsItsStateWithoutAnEvent() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100))
    scenario.at(
      "10:05:00",
      .add(
        try .circle(
          "depot", center: depot.moved(north: 20), radius: 150, customData: ["v": .number(2)])))
    scenario.add(
      DeviceScript("truck", every: 60)
        .start(at: depot, "10:00:00")
        .stay(for: 540)
        .fix(at: away, "10:10:00"))
    let result = try scenario.run()

    result.expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:10:00", duration: 600),
    ])
    #expect(result.events.last?.customData == ["v": .number(2)])
  }

  @Test func aZoneReplacedWithADwellWhileADeviceIsInsideDwellsFromTheCheckIn() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100))
    scenario.at(
      "10:02:00", .add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 300))))
    scenario.add(DeviceScript("truck", every: 60).start(at: depot, "10:00:00").stay(for: 600))

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .dwell("depot", at: "10:05:00"),
    ])
  }

  @Test func aRemovedZoneDropsItsStateWithoutAnEvent() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 600)))
    scenario.at("10:05:00", .remove(zoneID: "depot"))
    scenario.at("10:12:00", .add(try .circle("depot", center: depot, radius: 100)))
    scenario.add(
      DeviceScript("truck", every: 60)
        .start(at: depot, "10:00:00")
        .stay(for: 540)  // no dwell at 10:10: the zone is gone
        .fix(at: away, "10:10:00")  // no check-out
        .fix(at: depot, "10:15:00"))  // the zone is back: an ordinary entry

    try scenario.run(until: "10:20:00").expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkIn("depot", at: "10:15:00"),
    ])
  }

  @Test func replacingEveryZoneRemovesTheOnesNotNamed() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100))
    scenario.add(try .circle("yard", center: depot, radius: 200))
    scenario.at("10:05:00", .replaceAll([try .circle("yard", center: depot, radius: 200)]))
    scenario.add(
      DeviceScript("truck", every: 60).start(at: depot, "10:00:00").stay(for: 540)
        .fix(at: away, "10:10:00"))

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkIn("yard", at: "10:00:00"),
      .checkOut("yard", at: "10:10:00", duration: 600),
    ])
  }
}
