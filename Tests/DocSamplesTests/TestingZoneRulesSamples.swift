// The Swift samples of Docs/Testing-zone-rules.md (and the README's identical zone-rule test),
// compiled here so that they keep compiling; see Scripts/check-doc-samples. The package
// manifest sample is Manifests/Testing-zone-rules.Package.swift, which the script loads with
// `swift package dump-package`.

import FenceTesting
import Testing

// Docs/Testing-zone-rules.md, "A complete test" (and README.md, "Writing a zone-rule test"):
// the sample is a whole test file, so it stands here at file scope, and runs.

let depot = Coordinate(uncheckedLatitude: 51.9, longitude: 4.4)

@Test func dwellFiresAtItsDeadlineBeforeTheCheckOutOfALaterFixOutside() throws {
  var scenario = Scenario(day: "2026-01-05")
  scenario.add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 300)))
  scenario.add(
    DeviceScript("truck")
      .start(at: depot, "10:00:00")
      .fix(at: depot.moved(north: 500), "10:07:00"))

  try scenario.run().expectEvents([
    .checkIn("depot", at: "10:00:00", fence: "depot", device: "truck"),
    .dwell("depot", at: "10:05:00", device: "truck"),
    .checkOut("depot", at: "10:07:00", duration: 420, device: "truck"),
  ])
}

/// Docs/Testing-zone-rules.md, "Expected events": the sample lists array elements.
func testingZoneRulesExpectedEvents() -> [ExpectedEvent] {
  [
    .checkIn("depot", at: "10:00:00"),                      // kind, zone and time always count
    .checkIn("gate", at: "10:00:05", direction: .leftToRight),
    .checkOut("depot", at: "10:07:00", duration: 420, fence: "depot", device: "truck"),
    .dwell("depot", at: "10:05:00"),
    .monitoredSetChanged(on: ["a", "b"], off: [], at: "10:00:00"),
    .rejected(.duplicate, at: "10:00:00"),                  // needs reportsRejections
    .checkIn("gate", at: "10:01:35.99").within(0.01),       // allow 0.01 s either side
  ]
}
