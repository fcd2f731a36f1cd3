import FenceTesting
import Testing

@Suite struct ScenarioClockTests {
  @Test func timesOfTheDayOffsetsAndInstantsResolveToTheExactMicrosecond() throws {
    let clock = try ScenarioClock(day: "2026-01-05", origin: "10:00:00")
    // 2026-01-05T00:00:00Z is 1_767_571_200 s after the epoch.
    let midnight: Int64 = 1_767_571_200_000_000
    #expect(clock.day.microsecondsSinceEpoch == midnight)
    #expect(try clock.timestamp("10:00:00").microsecondsSinceEpoch == midnight + 36_000_000_000)
    #expect(try clock.timestamp("10:00").microsecondsSinceEpoch == midnight + 36_000_000_000)
    #expect(try clock.timestamp("10:00:07.25").microsecondsSinceEpoch == midnight + 36_007_250_000)
    #expect(try clock.timestamp("25:00:00").microsecondsSinceEpoch == midnight + 90_000_000_000)
    #expect(try clock.timestamp(90).microsecondsSinceEpoch == midnight + 36_090_000_000)
    #expect(try clock.timestamp(0.5).microsecondsSinceEpoch == midnight + 36_000_500_000)
    #expect(
      try clock.timestamp("2026-01-06T01:02:03Z").microsecondsSinceEpoch
        == midnight + 90_123_000_000)
  }

  @Test func labelsAreClockTimesOnTheDayAndRFC3339Otherwise() throws {
    let clock = try ScenarioClock(day: "2026-01-05")
    #expect(clock.label(try clock.timestamp("10:05:00")) == "10:05:00")
    #expect(clock.label(try clock.timestamp("10:05:00.125")) == "10:05:00.125")
    #expect(clock.label(try clock.timestamp("00:00:00.000001")) == "00:00:00.000001")
    #expect(clock.label(try clock.timestamp("24:00:00")) == "2026-01-06T00:00:00Z")
  }

  @Test(arguments: [
    "10", "10:0", "10:00:60", "10:60", "1o:00", "10:00:00.1234567", "2026-01-05T10:00:00",
  ])
  func aTimeThatDoesNotParseIsAnErrorThatQuotesIt(_ text: String) throws {
    let clock = try ScenarioClock(day: "2026-01-05")
    #expect(throws: ScenarioError(fault: .invalidTime(text))) { try clock.timestamp(.text(text)) }
  }

  @Test func aDayThatDoesNotParseIsAnErrorThatSaysHowToWriteIt() {
    #expect(throws: ScenarioError(fault: .invalidDay("2026-02-30"))) {
      try ScenarioClock(day: "2026-02-30")
    }
    #expect(
      ScenarioError(fault: .invalidDay("5.1.2026")).description
        == "\"5.1.2026\" is not a day; write it as YYYY-MM-DD, such as \"2026-01-05\"")
  }
}
