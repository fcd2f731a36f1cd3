import FenceTesting

// Where the tests happen: a depot in the port of Rotterdam. Every other position is given in
// metres from it with `moved(north:east:)`, so distances to fences are known by construction.

/// The centre of the depot (the one literal position of the tests).
let depot = Coordinate(uncheckedLatitude: 51.9, longitude: 4.4)

/// The test scenarios' day.
let testDay = "2026-01-05"

/// The scenario clock of ``testDay``.
func testClock() throws -> ScenarioClock {
  try ScenarioClock(day: testDay)
}

/// The instant of a time of ``testDay``, written `HH:MM:SS[.ffffff]`.
func at(_ time: String) throws -> Timestamp {
  try testClock().timestamp(.text(time))
}
