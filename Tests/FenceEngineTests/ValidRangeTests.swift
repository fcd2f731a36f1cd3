import FenceEngine
import FenceGeometry
import FenceTesting
import Testing

/// Durations, distances and counts outside their stated ranges are refused with a clear error,
/// and none of them (nor any instant) can make time arithmetic trap.
@Suite struct ValidRangeTests {
  let center = Coordinate(uncheckedLatitude: 40.6, longitude: -74.0)

  func zone(_ rules: ZoneRules) throws -> Zone {
    try Zone.circle("z", center: center, radius: 100, rules: rules)
  }

  @Test func rulesBeyondTheirRangeAreZoneErrors() throws {
    let cases: [(ZoneRules, String)] = [
      (ZoneRules(dwell: 1e13), "dwell must be a number of seconds from 0 to 1000000000, got 10000000000000.0"),
      (ZoneRules(minimumRetriggerTime: 1e13), "minimumRetriggerTime must be a number of seconds from 0 to 1000000000, got 10000000000000.0"),
      (ZoneRules(minimumRetriggerTime: .nan), "minimumRetriggerTime must be a number of seconds from 0 to 1000000000, got nan"),
      (ZoneRules(exitHysteresis: 2e7), "exitHysteresis must be a number of metres from 0 to 10000000, got 20000000.0"),
      (ZoneRules(exitConfirmations: 2_000_000), "exitConfirmations must be a whole number from 1 to 1000000, got 2000000"),
    ]
    for (rules, message) in cases {
      var evaluator = ZoneEvaluator()
      do {
        try evaluator.add([try zone(rules)])
        Issue.record("accepted \(rules)")
      } catch let error as ZoneError {
        #expect(error.description == "zone \"z\": \(message)")
      }
      #expect(evaluator.zoneCount == 0)
    }
    // The largest values are accepted and work.
    var evaluator = ZoneEvaluator()
    try evaluator.add([try zone(ZoneRules(minimumRetriggerTime: 1e9, dwell: 1e9))])
    var events: [ZoneEvent] = []
    evaluator.process(LocationFix(device: "d", time: Timestamp(secondsSinceEpoch: 0), latitude: 40.6, longitude: -74.0), into: &events)
    #expect(events.map(\.kind) == [.checkIn])
    evaluator.advance(to: Timestamp(secondsSinceEpoch: 1e9), into: &events)
    #expect(events.map(\.kind) == [.checkIn, .dwell])
  }

  @Test func configurationOutOfRangeIsNamed() {
    func problem(_ configuration: ZoneEvaluator.Configuration) -> String? {
      do {
        try configuration.validate()
        return nil
      } catch {
        return error.description
      }
    }
    #expect(problem(.default) == nil)
    #expect(problem(.init(maximumAccuracy: 0)) == "maximumAccuracy must be a number of metres above 0 and from 0 to 10000000, got 0.0")
    #expect(problem(.init(maximumSpeed: -1)) == "maximumSpeed must be a number of metres per second above 0 and from 0 to 299792458, got -1.0")
    #expect(problem(.init(proximity: .init(count: .max))) == "proximity.count must be a whole number from 1 to 1000000, got 9223372036854775807")
    #expect(problem(.init(proximity: .init(radius: .infinity))) == "proximity.radius must be a number of metres above 0 and from 0 to 10000000, got inf")
    #expect(problem(.init(cellCacheCapacity: .max)) == "cellCacheCapacity must be a number of cells from 0 to 16777216, got 9223372036854775807")
  }

  @Test func anEvaluatorWithUnvalidatedHugeSettingsDoesNotTrap() throws {
    var evaluator = try ZoneEvaluator(
      configuration: .init(proximity: .init(count: .max), cellCacheCapacity: .max), zones: [try zone(.default)])
    var events: [ZoneEvent] = []
    evaluator.process(LocationFix(device: "d", time: Timestamp(secondsSinceEpoch: 0), latitude: 40.6, longitude: -74.0), into: &events)
    #expect(events.map(\.kind) == [.checkIn, .monitoredSetChanged])
  }

  @Test func timeArithmeticSaturatesInsteadOfTrapping() {
    let latest = Timestamp(microsecondsSinceEpoch: .max)
    let earliest = Timestamp(microsecondsSinceEpoch: .min)
    #expect(latest.adding(seconds: 1e13) == latest)
    #expect(earliest.adding(seconds: -1e13) == earliest)
    #expect(latest.adding(seconds: .infinity) == latest)
    #expect(Timestamp(secondsSinceEpoch: 1e300) == latest)
    #expect(Timestamp(secondsSinceEpoch: -.infinity) == earliest)
    #expect(Timestamp(secondsSinceEpoch: .nan) == Timestamp(microsecondsSinceEpoch: 0))
    #expect(latest.seconds(since: earliest) == 18_446_744_073_709.551615)
    // Ordinary values are exact as before.
    let t = Timestamp(microsecondsSinceEpoch: 1_593_475_200_000_001)
    #expect(t.adding(seconds: 0.5).microsecondsSinceEpoch == 1_593_475_200_500_001)
    #expect(t.adding(seconds: 0.5).seconds(since: t) == 0.5)
  }

  @Test func fixesAtTheEndsOfTimeWithRulesAtTheirLimitsDoNotTrap() throws {
    var evaluator = try ZoneEvaluator(zones: [
      try zone(ZoneRules(minimumRetriggerTime: 1e9, dwell: 1e9)),
      try Zone.geoline("g", [center.moved(north: -500), center.moved(north: 500)], rules: ZoneRules(minimumRetriggerTime: 1e9)),
    ])
    var events: [ZoneEvent] = []
    let times: [Int64] = [.min, .min + 1, 0, .max - 1, .max]
    for (index, time) in times.enumerated() {
      let east = index % 2 == 0 ? -200.0 : 200.0
      let p = center.moved(east: east)
      evaluator.process(
        LocationFix(device: "d", time: Timestamp(microsecondsSinceEpoch: time), latitude: p.latitude, longitude: p.longitude),
        into: &events)
    }
    evaluator.advance(to: Timestamp(microsecondsSinceEpoch: .max), into: &events)
    // Each fix crosses the GEOLINE, halfway in time between two fixes (rounded); the circle
    // is 200 m away throughout.
    #expect(
      events.map { "\($0.kind) \($0.zone ?? "") \($0.time.microsecondsSinceEpoch)" } == [
        "checkIn g -9223372036854775807", "checkIn g -4611686018427387903",
        "checkIn g 4611686018427387904", "checkIn g 9223372036854775807",
      ])
    #expect(evaluator.acceptedFixCount == 5)
  }
}
