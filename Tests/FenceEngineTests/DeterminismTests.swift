import FenceEngine
import Testing

@Suite struct DeterminismTests {
  func scenario() throws -> [ZoneEvent] {
    var evaluator = try ZoneEvaluator(
      configuration: .init(proximity: .init()),
      zones: [
        circleZone("z", rules: ZoneRules(dwell: 30)),
        Zone(id: "line", geolines: [try geoline("g", [(200, -1000), (200, 1000)])]),
      ])
    var events: [ZoneEvent] = []
    for step in 0..<60 {
      evaluator.process(fix(Double(step) * 7, north: Double(step % 12) * 40 - 100), into: &events)
    }
    evaluator.advance(to: t(10_000), into: &events)
    return events
  }

  @Test func theSameInputGivesTheSameEventsWithTheSameIDs() throws {
    let first = try scenario()
    let second = try scenario()
    #expect(first == second)
    #expect(first.count > 10)
    #expect(Set(first.map(\.id)).count == first.count)
    #expect(first.allSatisfy { $0.id.count == 16 && $0.id.allSatisfy(\.isHexDigit) })
  }

  @Test func idsHashDeviceZoneFenceKindAndTime() {
    let id = ZoneEvent.deterministicID(
      device: "367000140", zone: "st-george", fence: "st-george-slips", kind: .checkIn,
      time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000))
    // Checked against an independent FNV-1a 64 computation of the same bytes.
    #expect(id == "c05128cce4a29c89")
    let variants = [
      ZoneEvent.deterministicID(
        device: "367000141", zone: "st-george", fence: "st-george-slips", kind: .checkIn,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)),
      ZoneEvent.deterministicID(
        device: "367000140", zone: "st-george", fence: nil, kind: .checkIn,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)),
      ZoneEvent.deterministicID(
        device: "367000140", zone: "st-george", fence: "st-george-slips", kind: .checkOut,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)),
      ZoneEvent.deterministicID(
        device: "367000140", zone: "st-george", fence: "st-george-slips", kind: .checkIn,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_001)),
    ]
    #expect(Set(variants + [id]).count == 5)
  }
}
