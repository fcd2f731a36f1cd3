import FenceTesting
import Testing

/// The spec's GEOLINE rules.
///
/// Lines are laid out in metres around the depot; a line running north
/// has the west on its left.
@Suite struct GeolineRuleTests {
  let west = depot.moved(east: -50)
  let east = depot.moved(east: 50)
  /// A line from 100 m south to 100 m north of the depot, through it.
  let northward = [depot.moved(north: -100), depot.moved(north: 100)]

  @Test func aCrossingChecksInAtTheInterpolatedTimeWithItsDirection() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .geoline("gate", northward))
    scenario.add(DeviceScript("walker").start(at: west, "10:00:00").fix(at: east, "10:00:10"))

    try scenario.run().expectEvents([
      .checkIn("gate", at: "10:00:05", fence: "gate", direction: .leftToRight)
    ])
  }

  @Test func aCrossingScriptedWithCrossIsOnTheLineHalfwayThrough() throws {
    let gate = try Zone.geoline("gate", northward)
    var scenario = Scenario(day: testDay)
    scenario.add(gate)
    scenario.add(
      DeviceScript("walker", every: 5)
        .start(at: west, "10:00:00")
        .cross(gate.geolines[0], from: .left, offset: 20, speed: 2)  // 30 m approach, then 40 m
        .cross(gate.geolines[0], at: 0.25, from: .right, offset: 10, speed: 1))

    try scenario.run().expectEvents([
      .checkIn("gate", at: "10:00:25", direction: .leftToRight),
      // From 20 m east of the depot at 10:00:35 to 10 m east of the line's quarter point
      // (50 m south): 50.99 m at 1 m/s, then 10 m to the line.
      .checkIn("gate", at: "10:01:35.99", direction: .rightToLeft).within(0.01),
    ])
  }

  @Test func aCrossingThroughAVertexCountsOnce() throws {
    // South to the depot, then north-east: the walk from west to east passes the vertex.
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .geoline("gate", [depot.moved(north: -100), depot, depot.moved(north: 100, east: 50)]))
    scenario.add(DeviceScript("walker").start(at: west, "10:00:00").fix(at: east, "10:00:10"))

    try scenario.run().expectEvents([
      .checkIn("gate", at: "10:00:05", direction: .leftToRight)
    ])
  }

  @Test func touchingAVertexFromTheLeftIsNoCrossing() throws {
    // A peak at the depot: north of the line is its left on both segments.
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .geoline(
        "gate", [depot.moved(north: -100, east: -50), depot, depot.moved(north: -100, east: 50)]))
    scenario.add(DeviceScript("walker").start(at: west, "10:00:00").fix(at: east, "10:00:10"))

    try scenario.run().expectEvents([])
  }

  @Test func fromTheLeftOntoTheLineAndBackIsNoCrossing() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .geoline("gate", northward))
    scenario.add(
      DeviceScript("walker")
        .start(at: west, "10:00:00")
        .fix(at: depot, "10:00:10")  // on the line: counts as left
        .fix(at: west, "10:00:20"))

    try scenario.run().expectEvents([])
  }

  @Test func fromTheRightOntoTheLineAndBackIsTwoCrossings() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .geoline("gate", northward))
    scenario.add(
      DeviceScript("walker")
        .start(at: east, "10:00:00")
        .fix(at: depot, "10:00:10")  // onto the line from the right: a crossing, at the line
        .fix(at: east, "10:00:20"))  // back to the right: a second one, leaving the line

    try scenario.run().expectEvents([
      .checkIn("gate", at: "10:00:10", direction: .rightToLeft),
      .checkIn("gate", at: "10:00:10", direction: .leftToRight),
    ])
  }

  @Test func everyCrossingOfOneMovementIsReportedInPathOrder() throws {
    // A zigzag whose segments cross the movement's path 40 m west, at, and 40 m east of the
    // depot: 30 %, 50 % and 70 % of the way from 100 m west to 100 m east.
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .geoline(
        "zigzag",
        [
          depot.moved(north: 50, east: -60), depot.moved(north: -50, east: -20),
          depot.moved(north: 50, east: 20), depot.moved(north: -50, east: 60),
        ]))
    scenario.add(
      DeviceScript("walker")
        .start(at: depot.moved(east: -100), "10:00:00")
        .fix(at: depot.moved(east: 100), "10:00:20"))

    try scenario.run().expectEvents([
      .checkIn("zigzag", at: "10:00:06", direction: .rightToLeft),
      .checkIn("zigzag", at: "10:00:10", direction: .leftToRight),
      .checkIn("zigzag", at: "10:00:14", direction: .rightToLeft),
    ])
  }

  struct FilterCase: CustomTestStringConvertible, Sendable {
    let filter: Geoline.DirectionFilter
    let expected: [ExpectedEvent]
    var testDescription: String { "filter \(filter.rawValue)" }
  }

  @Test(arguments: [
    FilterCase(
      filter: .both,
      expected: [
        .checkIn("gate", at: "10:00:05", direction: .leftToRight),
        .checkIn("gate", at: "10:00:15", direction: .rightToLeft),
      ]),
    FilterCase(
      filter: .leftToRight, expected: [.checkIn("gate", at: "10:00:05", direction: .leftToRight)]),
    FilterCase(
      filter: .rightToLeft, expected: [.checkIn("gate", at: "10:00:15", direction: .rightToLeft)]),
  ])
  func crossingsAgainstTheDirectionFilterAreIgnored(_ c: FilterCase) throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .geoline("gate", northward, direction: c.filter))
    scenario.add(
      DeviceScript("walker")
        .start(at: west, "10:00:00")
        .fix(at: east, "10:00:10")
        .fix(at: west, "10:00:20"))

    try scenario.run().expectEvents(c.expected)
  }

  @Test func aCrossingDoesNotCheckInWhileTheDeviceIsCheckedInThroughAFence() throws {
    var yard = try Zone.circle("yard", center: depot, radius: 100)
    yard.geolines = [Geoline(id: "yard-gate", line: try Polyline(northward))]
    var scenario = Scenario(day: testDay)
    scenario.add(yard)
    scenario.add(
      DeviceScript("walker")
        .start(at: west, "10:00:00")  // inside the yard's fence
        .fix(at: east, "10:00:10")  // crosses the gate at 10:00:05, still inside
        .fix(at: depot.moved(north: 500), "10:01:00"))

    try scenario.run().expectEvents([
      .checkIn("yard", at: "10:00:00", fence: "yard"),
      .checkOut("yard", at: "10:01:00", duration: 60),
    ])
  }

  @Test func aCrossingBeforeTheCheckOutOfTheSameMovementDoesNotCheckIn() throws {
    // The device is checked in through the fence until its check-out at 10:00:10, so the
    // crossing at 10:00:01.666667 happens while it is checked in.
    var yard = try Zone.circle("yard", center: depot, radius: 30)
    yard.geolines = [Geoline(id: "yard-gate", line: try Polyline(northward))]
    var scenario = Scenario(day: testDay)
    scenario.add(yard)
    scenario.add(
      DeviceScript("walker")
        .start(at: depot.moved(east: -10), "10:00:00")
        .fix(at: east, "10:00:10"))

    try scenario.run().expectEvents([
      .checkIn("yard", at: "10:00:00", fence: "yard"),
      .checkOut("yard", at: "10:00:10", duration: 10),
    ])
  }
}
