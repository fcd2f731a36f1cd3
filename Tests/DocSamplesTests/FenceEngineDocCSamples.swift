// The Swift sample of the FenceEngine DocC catalog (Sources/FenceEngine/Documentation.docc),
// compiled and run here; see Scripts/check-doc-samples.

import FenceEngine
import FenceGeometry
import Testing

/// FenceEngine.md, "Overview": the sample, returning its `events`.
func fenceEngineOverview() throws -> [ZoneEvent] {
  let terminal = try Coordinate(latitude: 40.644, longitude: -74.0716)
  let zone = Zone(
    id: "st-george", customData: ["terminal": .string("St. George")],
    fences: [try .circle(id: "st-george-slips", center: terminal, radius: 300)],
    rules: ZoneRules(minimumRetriggerTime: 300, dwell: 120))

  var evaluator = try ZoneEvaluator(zones: [zone])
  var events: [ZoneEvent] = []
  evaluator.process(
    LocationFix(
      device: "367000150", time: Timestamp(secondsSinceEpoch: 1_593_475_200),
      latitude: 40.6441, longitude: -74.0717),
    into: &events)
  evaluator.advance(to: Timestamp(secondsSinceEpoch: 1_593_475_400), into: &events)
  // events: a checkIn at 00:00:00, then a dwell stamped 00:02:00.
  return events
}

/// The sample's last comment holds.
@Test func theFenceEngineOverviewGivesACheckInThenADwell() throws {
  let events = try fenceEngineOverview()
  #expect(events.map(\.kind) == [.checkIn, .dwell])
  #expect(events.map { RFC3339.format($0.time) } == ["2020-06-30T00:00:00Z", "2020-06-30T00:02:00Z"])
  #expect(events.map(\.zone) == ["st-george", "st-george"])
}
