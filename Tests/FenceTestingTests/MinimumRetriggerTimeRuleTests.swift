import FenceTesting
import Testing

/// The spec's minimum retrigger time (MRT): where its window opens, and what a suppressed entry
/// leaves behind.
@Suite struct MinimumRetriggerTimeRuleTests {
  let away = depot.moved(north: 500)

  @Test func withCheckOutTheWindowOpensAtTheCheckOut() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle(
        "depot", center: depot, radius: 100, rules: .init(minimumRetriggerTime: 600, dwell: 30)))
    scenario.add(
      DeviceScript("truck")
        .start(at: depot, "10:00:00")  // check-in
        .fix(at: away, "10:02:00")  // check-out: the window runs to 10:12:00
        .fix(at: depot, "10:11:00")  // after check-in + MRT, before check-out + MRT: suppressed
        .fix(at: depot, "10:11:40")  // inside silently: no dwell
        .fix(at: away, "10:11:50")  // no check-out for a suppressed stay
        .fix(at: depot, "10:12:00"))  // the window has closed

    try scenario.run(until: "10:20:00").expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .dwell("depot", at: "10:00:30"),
      .checkOut("depot", at: "10:02:00", duration: 120),
      .checkIn("depot", at: "10:12:00"),
      .dwell("depot", at: "10:12:30"),
    ])
  }

  @Test func withoutCheckOutTheWindowOpensAtTheCheckIn() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle(
        "depot", center: depot, radius: 100,
        rules: .init(minimumRetriggerTime: 600, checkOut: false)))
    scenario.add(
      DeviceScript("truck")
        .start(at: depot, "10:00:00")  // check-in: the window runs to 10:10:00
        .fix(at: away, "10:02:00")
        .fix(at: depot, "10:09:59")  // suppressed
        .fix(at: away, "10:09:59.5")
        .fix(at: depot, "10:10:00"))  // exactly at window start + MRT: not suppressed

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkIn("depot", at: "10:10:00"),
    ])
  }

  @Test func aSuppressedEntryDoesNotMoveTheWindow() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle("depot", center: depot, radius: 100, rules: .init(minimumRetriggerTime: 300)))
    scenario.add(
      DeviceScript("truck")
        .start(at: depot, "10:00:00")
        .fix(at: away, "10:01:00")  // window runs to 10:06:00
        .fix(at: depot, "10:05:00")  // suppressed
        .fix(at: away, "10:05:30")
        .fix(at: depot, "10:06:00"))  // had the suppressed stay moved the window, still suppressed

    try scenario.run().expectEvents([
      .checkIn("depot", at: "10:00:00"),
      .checkOut("depot", at: "10:01:00", duration: 60),
      .checkIn("depot", at: "10:06:00"),
    ])
  }

  @Test func aGeolineCrossingOpensTheWindowAtTheCrossing() throws {
    let line = [depot.moved(north: -100), depot.moved(north: 100)]
    let west = depot.moved(east: -50)
    let east = depot.moved(east: 50)
    var scenario = Scenario(day: testDay)
    scenario.add(try .geoline("gate", line, rules: .init(minimumRetriggerTime: 60)))
    scenario.add(
      DeviceScript("walker")
        .start(at: west, "10:00:00")
        .fix(at: east, "10:00:10")  // crosses at 10:00:05: the window runs to 10:01:05
        .fix(at: west, "10:00:20")  // crosses at 10:00:15: suppressed
        .fix(at: east, "10:01:00")  // crosses at 10:00:40: suppressed
        .fix(at: west, "10:01:20"))  // crosses at 10:01:10

    try scenario.run().expectEvents([
      .checkIn("gate", at: "10:00:05", direction: .leftToRight),
      .checkIn("gate", at: "10:01:10", direction: .rightToLeft),
    ])
  }
}
