import FenceEngine
import Testing

@testable import FenceFormats

@Suite struct TimestampParserTests {
  struct TimeCase: CustomTestStringConvertible, Sendable {
    let text: String
    let micros: Int64?
    var testDescription: String { text }
  }

  // 2020-06-30T00:01:10Z is 1593475270 seconds after the epoch.
  @Test(arguments: [
    TimeCase(text: "2020-06-30T00:01:10Z", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-30T00:01:10", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-30 00:01:10", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-30t00:01:10z", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-30T00:01:10.25Z", micros: 1_593_475_270_250_000),
    TimeCase(text: "2020-06-30T00:01:10,5", micros: 1_593_475_270_500_000),
    TimeCase(text: "2020-06-30T00:01:10.123456789Z", micros: 1_593_475_270_123_457),
    TimeCase(text: "2020-06-30T02:01:10+02:00", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-29T19:01:10-0500", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-30T05:31:10+05:30", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-30T01:01:10+01", micros: 1_593_475_270_000_000),
    TimeCase(text: "2020-06-30T00:01Z", micros: 1_593_475_260_000_000),
    TimeCase(text: "2020-06-30", micros: 1_593_475_200_000_000),
    TimeCase(text: " 2020-06-30T00:01:10Z ", micros: 1_593_475_270_000_000),
    TimeCase(text: "2016-12-31T23:59:60Z", micros: 1_483_228_800_000_000),
    TimeCase(text: "1593475270", micros: 1_593_475_270_000_000),
    TimeCase(text: "1593475270.25", micros: 1_593_475_270_250_000),
    TimeCase(text: "1593475270250", micros: 1_593_475_270_250_000),
    TimeCase(text: "-86400", micros: -86_400_000_000),
    TimeCase(text: "1969-12-31T00:00:00Z", micros: -86_400_000_000),
    TimeCase(text: "2020-02-29T00:00:00Z", micros: 1_582_934_400_000_000),
    TimeCase(text: "2019-02-29T00:00:00Z", micros: nil),
    TimeCase(text: "2020-13-01T00:00:00Z", micros: nil),
    TimeCase(text: "2020-06-30T25:00:00Z", micros: nil),
    TimeCase(text: "2020-06-30T00:01:10Q", micros: nil),
    TimeCase(text: "2020-06-30T00:01:10.Z", micros: nil),
    TimeCase(text: "yesterday", micros: nil),
    TimeCase(text: "", micros: nil),
    TimeCase(text: "nan", micros: nil),
  ])
  func parsesEachAcceptedForm(_ c: TimeCase) {
    #expect(TimestampParser.parse(c.text)?.microsecondsSinceEpoch == c.micros)
  }
}
