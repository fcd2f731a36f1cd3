import FenceTesting
import Testing

/// The spec's rejections: bad fixes change nothing, cause no event, and are counted by reason.
///
/// Every bad fix here is placed inside the depot while the device is outside it, so a bad fix
/// the engine wrongly accepted would check it in.
@Suite struct RejectionRuleTests {
  let away = depot.moved(north: 500)

  func badFixes() -> DeviceScript {
    DeviceScript("phone")
      .start(at: away, "10:00:00")
      .duplicateFix(at: depot)  // 10:00:00 again
      .outOfOrderFix(by: 30, at: depot)  // 09:59:30
      .invalidFix()  // 10:00:01, latitude NaN
      .nullIslandFix()  // 10:00:02
      .lowAccuracyFix(150, at: depot)  // 10:00:03, above the 100 m default
      .rawFix(latitude: 95, longitude: 4.4, "10:00:04")  // out of range
      .fix(at: away, "10:01:00")
  }

  @Test func badFixesAreRejectedCountedByReasonAndCauseNoEvent() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(try .circle("depot", center: depot, radius: 100))
    scenario.add(badFixes())
    let result = try scenario.run()

    result.expectEvents([])
    result.expectRejections([
      .duplicate: 1, .outOfOrder: 1, .invalidCoordinate: 2, .nullIsland: 1, .lowAccuracy: 1,
    ])
    #expect(result.acceptedFixCount == 2)
  }

  @Test func rejectionsAreReportedAsDiagnosticsWhenAsked() throws {
    var scenario = Scenario(day: testDay, configuration: .init(reportsRejections: true))
    scenario.add(try .circle("depot", center: depot, radius: 100))
    scenario.add(badFixes())

    try scenario.run().expectEvents([
      .rejected(.duplicate, at: "10:00:00"),
      .rejected(.outOfOrder, at: "09:59:30"),
      .rejected(.invalidCoordinate, at: "10:00:01"),
      .rejected(.nullIsland, at: "10:00:02"),
      .rejected(.lowAccuracy, at: "10:00:03"),
      .rejected(.invalidCoordinate, at: "10:00:04"),
    ])
  }

  @Test func aRejectedFixIsNotTheStartOfTheNextMovement() throws {
    // The low-accuracy fix east of the gate is rejected: the movement to the west starts from
    // the last accepted fix, on the west side, so nothing is crossed.
    var scenario = Scenario(day: testDay)
    scenario.add(try .geoline("gate", [depot.moved(north: -100), depot.moved(north: 100)]))
    scenario.add(
      DeviceScript("phone")
        .start(at: depot.moved(east: -50), "10:00:00")
        .lowAccuracyFix(500, at: depot.moved(east: 50), after: 10)
        .fix(at: depot.moved(east: -40), "10:00:20"))

    let result = try scenario.run()
    result.expectEvents([])
    result.expectRejections([.lowAccuracy: 1])
  }
}
