import FenceTesting
import Testing

/// Several devices in one stream, and proximity monitoring of the nearest fences.
@Suite struct DeviceAndProximityRuleTests {
  @Test func interleavedDevicesKeepTheirOwnStateAndEventsFollowTheStream() throws {
    let yard = depot.moved(north: 1000)
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100))
    scenario.add(try .circle("yard", center: yard, radius: 100))
    // The truck drives from the yard to the depot at 12 m/s, a fix every 10 s (120 m apart).
    scenario.add(
      DeviceScript("truck", every: 10)
        .start(at: yard, "10:00:00")
        .move(to: depot, speed: 12)
        .stay(for: 60))
    // The van does the opposite 35 s later.
    scenario.add(
      DeviceScript("van", every: 10)
        .start(at: depot, "10:00:35")
        .move(to: yard, speed: 12))

    try scenario.run().expectEvents([
      .checkIn("yard", at: "10:00:00", device: "truck"),
      .checkOut("yard", at: "10:00:10", duration: 10, device: "truck"),  // 120 m out
      .checkIn("depot", at: "10:00:35", device: "van"),
      .checkOut("depot", at: "10:00:45", duration: 10, device: "van"),
      .checkIn("depot", at: "10:01:20", device: "truck"),  // 40 m from the depot
      .checkIn("yard", at: "10:01:55", device: "van"),  // 40 m from the yard
    ])
  }

  @Test func theMonitoredSetIsTheNearestFencesWithinTheRadius() throws {
    // Three fences on a line north of the depot; at most two monitored, within 1000 m.
    var scenario = Scenario(
      day: testDay, configuration: .init(proximity: .init(count: 2, radius: 1000)))
    scenario.add(try .circle("a", center: depot, radius: 50))
    scenario.add(try .circle("b", center: depot.moved(north: 600), radius: 50))
    scenario.add(try .circle("c", center: depot.moved(north: 1500), radius: 50))
    scenario.add(
      DeviceScript("phone")
        .start(at: depot.moved(north: -500), "10:00:00")  // a 450 m, b 1050 m, c 1950 m
        .fix(at: depot.moved(north: -460), "10:01:00")  // b 1010 m: no change
        .fix(at: depot.moved(north: 300), "10:02:00")  // a 250 m, b 250 m, c 1150 m
        .fix(at: depot.moved(north: 1000), "10:03:00")  // a 950 m, b 350 m, c 450 m
        .fix(at: depot.moved(north: 5000), "10:04:00"))  // nothing within 1000 m

    try scenario.run().expectEvents([
      .monitoredSetChanged(on: ["a"], off: [], at: "10:00:00"),
      .monitoredSetChanged(on: ["b"], off: [], at: "10:02:00"),
      .monitoredSetChanged(on: ["c"], off: ["a"], at: "10:03:00"),
      .monitoredSetChanged(on: [], off: ["b", "c"], at: "10:04:00"),
    ])
  }

  @Test func theMonitoredSetChangeComesAfterTheFixsCheckIns() throws {
    var scenario = Scenario(
      day: testDay, configuration: .init(proximity: .init(count: 20, radius: 1000)))
    scenario.add(try .circle("a", center: depot, radius: 50))
    scenario.add(DeviceScript("phone").start(at: depot, "10:00:00"))

    try scenario.run().expectEvents([
      .checkIn("a", at: "10:00:00"),
      .monitoredSetChanged(on: ["a"], off: [], at: "10:00:00"),
    ])
  }
}
