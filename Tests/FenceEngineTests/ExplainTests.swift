import FenceFormats
import FenceGeometry
import FenceTestSupport
import FenceTesting
import Testing

@testable import FenceEngine

/// `ZoneEvaluator.explain(_:into:)` (rules v2, "Explain"): the same events as `process`, and
/// what the engine looked at and decided for each fix.
@Suite struct ExplainTests {
  let depot = Coordinate(uncheckedLatitude: 51.9, longitude: 4.4)
  let day: Int64 = 1_767_571_200  // 2026-01-05T00:00:00Z

  func fix(_ seconds: Int64, _ position: Coordinate, speed: Double? = nil, device: String = "tug")
    -> LocationFix
  {
    LocationFix(
      device: device, time: Timestamp(microsecondsSinceEpoch: (day + 36_000 + seconds) * 1_000_000),
      latitude: position.latitude, longitude: position.longitude, speed: speed)
  }

  @Test func explainingEveryFixGivesTheEventsOfProcessingThem() throws {
    let zones = try ZoneLoader.loadZones(contentsOf: fixturePath("zones/nyharbor-zones.geojson"))
    let fixes = try readSorted(paths: [fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")])
    var plain = try ZoneEvaluator(zones: zones)
    var explained = try ZoneEvaluator(zones: zones)
    var plainEvents: [ZoneEvent] = []
    var explainedEvents: [ZoneEvent] = []
    var perFix = 0
    for fix in fixes {
      plain.process(fix, into: &plainEvents)
      if fix.device == "367000140" {
        let before = explainedEvents.count
        let explanation = explained.explain(fix, into: &explainedEvents)
        #expect(explanation.events == Array(explainedEvents[before...]))
        perFix += explanation.events.count
      } else {
        explained.process(fix, into: &explainedEvents)
      }
    }
    #expect(plainEvents == explainedEvents)
    #expect(perFix > 0)
  }

  @Test func aCheckInAnExitAndASuppressedEntryAreExplained() throws {
    var rules = ZoneRules(minimumRetriggerTime: 600, exitConfirmations: 2)
    rules.conditions = ZoneConditions(minimumSpeed: 1)
    let zone = Zone(id: "depot", fences: [try .circle(id: "gate", center: depot, radius: 100)], rules: rules)
    var evaluator = try ZoneEvaluator(zones: [zone])
    var events: [ZoneEvent] = []
    let inside = depot.moved(north: 50)
    let outside = depot.moved(north: 300)

    // Inside, but too slow: the conditions fail.
    let slow = evaluator.explain(fix(0, inside, speed: 0.5), into: &events)
    #expect(slow.outcome == .accepted)
    #expect(slow.candidates.map(\.id) == ["gate"])
    #expect(slow.candidates[0].predicate)
    #expect(slow.candidates[0].fromIndex)
    let reference = WGS84.distance(depot, inside) - 100
    #expect(abs(slow.candidates[0].distanceToEdge - reference) < 1e-6)
    #expect(slow.zones.count == 1)
    #expect(slow.zones[0].conditionsPassed == false)
    #expect(slow.zones[0].reason == "the fix fails the zone's conditions (speed 0.5 m/s, course none, tags [])")
    #expect(slow.reasonForNone == "no zone's state changed in a way that reports an event")

    // Fast enough: a check-in.
    let entry = evaluator.explain(fix(10, inside, speed: 2), into: &events)
    #expect(entry.events.map(\.kind) == [.checkIn])
    #expect(entry.zones[0].before == .outside)
    #expect(entry.zones[0].after.presence == .checkedIn)
    #expect(entry.zones[0].reason == "checkIn")
    #expect(entry.reasonForNone == nil)

    // Outside once: the exit waits for its second confirmation.
    let pending = evaluator.explain(fix(20, outside, speed: 2), into: &events)
    #expect(pending.events.isEmpty)
    #expect(pending.candidates.map(\.fromIndex) == [false])
    #expect(!pending.candidates[0].predicate)
    #expect(abs(pending.candidates[0].distanceToEdge - (WGS84.distance(depot, outside) - 100)) < 1e-6)
    #expect(pending.zones[0].after.exitCount == 1)
    #expect(pending.zones[0].reason == "outside, exit pending: 1 of 2 fixes outside")

    // Confirmed: the check-out, stamped with the first fix outside; the MRT window opens.
    let exit = evaluator.explain(fix(30, outside, speed: 2), into: &events)
    #expect(exit.events.map(\.kind) == [.checkOut])
    #expect(exit.zones[0].after.mrtUntil == fix(620, depot).time)

    // Back inside within the MRT: inside silently.
    let again = evaluator.explain(fix(40, inside, speed: 2), into: &events)
    #expect(again.events.isEmpty)
    #expect(again.zones[0].after.presence == .insideSilently)
    #expect(again.zones[0].reason == "entry suppressed by the minimum retrigger time until 2026-01-05T10:10:20Z")
  }

  @Test func rejectedAndDormantFixesSayWhy() throws {
    var rules = ZoneRules()
    rules.validFrom = fix(3600, depot).time
    let zone = Zone(id: "later", fences: [try .circle(id: "c", center: depot, radius: 100)], rules: rules)
    var evaluator = try ZoneEvaluator(zones: [zone])
    var events: [ZoneEvent] = []
    let dormant = evaluator.explain(fix(0, depot), into: &events)
    #expect(dormant.zones.map(\.armed) == [false])
    #expect(dormant.zones[0].reason == "the zone is not armed now (outside its schedule's windows or its lifetime)")
    let duplicate = evaluator.explain(fix(0, depot), into: &events)
    #expect(duplicate.outcome == .rejected(.duplicate))
    #expect(duplicate.candidates.isEmpty)
    #expect(duplicate.reasonForNone == "rejected: duplicate")
    let nowhere = evaluator.explain(fix(10, depot.moved(north: 5000)), into: &events)
    #expect(nowhere.zones.isEmpty)
    #expect(nowhere.reasonForNone == "no fence's box holds the fix and the device has no state with any zone")
    // The explanation as NDJSON names the same things.
    let line = dormant.ndjsonLine
    #expect(line.hasPrefix(#"{"fix":{"device":"tug","time":"2026-01-05T10:00:00Z","lat":51.9,"lon":4.4},"outcome":"accepted","candidates":[{"id":"c","zone":"later","kind":"circle","fromIndex":true,"predicate":true,"distanceToEdge":-100}]"#))
    #expect(line.contains(#""armed":false"#))
  }
}
