import FenceEngine
import Testing

/// A fix that must be rejected, after an accepted fix of the same device at t(100).
struct RejectionCase: CustomTestStringConvertible, Sendable {
  let name: String
  let fix: LocationFix
  let reason: RejectionReason
  var testDescription: String { name }
}

@Suite struct RejectionTests {
  static let cases = [
    RejectionCase(
      name: "NaN latitude",
      fix: LocationFix(device: "a", time: t(200), latitude: .nan, longitude: -74),
      reason: .invalidCoordinate),
    RejectionCase(
      name: "infinite longitude",
      fix: LocationFix(device: "a", time: t(200), latitude: 40, longitude: .infinity),
      reason: .invalidCoordinate),
    RejectionCase(
      name: "longitude out of range",
      fix: LocationFix(device: "a", time: t(200), latitude: 40, longitude: 200),
      reason: .invalidCoordinate),
    RejectionCase(
      name: "latitude out of range",
      fix: LocationFix(device: "a", time: t(200), latitude: -90.5, longitude: 10),
      reason: .invalidCoordinate),
    RejectionCase(
      name: "null island",
      fix: LocationFix(device: "a", time: t(200), latitude: 0, longitude: 0),
      reason: .nullIsland),
    RejectionCase(name: "earlier than the last fix", fix: fix(99, north: 500), reason: .outOfOrder),
    RejectionCase(name: "at the time of the last fix", fix: fix(100, north: 500), reason: .duplicate),
    RejectionCase(
      name: "accuracy above the maximum", fix: fix(200, north: 500, accuracy: 100.5),
      reason: .lowAccuracy),
    RejectionCase(
      name: "NaN accuracy", fix: fix(200, north: 500, accuracy: .nan), reason: .lowAccuracy),
    RejectionCase(
      name: "faster than the maximum speed", fix: fix(101, north: 500),
      reason: .implausibleSpeed),
  ]

  @Test(arguments: cases)
  func aRejectedFixChangesNothingAndIsCountedAndReported(_ c: RejectionCase) throws {
    let configuration = ZoneEvaluator.Configuration(maximumSpeed: 100, reportsRejections: true)
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: [circleZone("z")])
    #expect(run(&evaluator, [fix(100)]) == ["100 checkIn a z/z-fence"])
    var events: [ZoneEvent] = []
    evaluator.process(c.fix, into: &events)
    #expect(events.count == 1)
    #expect(events.first?.kind == .rejected)
    #expect(events.first?.reason == c.reason)
    #expect(events.first?.time == c.fix.time)
    #expect(evaluator.rejections[c.reason] == 1)
    #expect(evaluator.rejections.total == 1)
    #expect(evaluator.acceptedFixCount == 1)
    #expect(evaluator.time == t(100))
    // The device is still checked in from t(100).
    #expect(run(&evaluator, [fix(300, north: 500)]) == ["300 checkOut a z/z-fence in=100 duration=200"])
  }

  @Test func rejectedFixesAreOnlyCountedWithoutDiagnostics() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    let events = run(&evaluator, [
      fix(0), fix(0), fix(-5),
      LocationFix(device: "a", time: t(10), latitude: 0, longitude: 0),
      fix(20, accuracy: 300),
    ])
    #expect(events == ["0 checkIn a z/z-fence"])
    #expect(evaluator.rejections.byReason == [.duplicate: 1, .outOfOrder: 1, .nullIsland: 1, .lowAccuracy: 1])
  }

  @Test func accuracyEqualToTheMaximumIsAccepted() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    #expect(run(&evaluator, [fix(0, accuracy: 100)]) == ["0 checkIn a z/z-fence"])
  }

  @Test func aRejectedFixDoesNotMoveTheEngineTimeForDwells() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", rules: ZoneRules(dwell: 60))])
    #expect(run(&evaluator, [
      fix(0), fix(100, device: "b", accuracy: 500),
      LocationFix(device: "c", time: t(100), latitude: 0, longitude: 0),
    ]) == ["0 checkIn a z/z-fence"])
    #expect(run(&evaluator, [fix(100, north: 900, device: "b")]) == [
      "60 dwell a z/z-fence in=0 dwell=60"
    ])
  }

  @Test func theFirstFixOfADeviceIsNeverOutOfOrder() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    #expect(run(&evaluator, [fix(1000, device: "a"), fix(5, device: "b")]) == [
      "1000 checkIn a z/z-fence",
      "5 checkIn b z/z-fence",
    ])
  }
}
