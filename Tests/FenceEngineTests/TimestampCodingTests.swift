import FenceEngine
import Foundation
import Testing

/// RFC 3339 reading in the engine (`RFC3339.parse`) and the `Codable` form of `Timestamp`.
@Suite struct TimestampCodingTests {
  /// 2020-06-30T00:01:10Z.
  let t0 = Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)

  @Test func readsEveryFormOfTheFormat() {
    #expect(RFC3339.parse("2020-06-30T00:01:10Z") == t0)
    #expect(RFC3339.parse("2020-06-30t00:01:10z") == t0)
    #expect(RFC3339.parse("2020-06-30T02:31:10+02:30") == t0)
    #expect(RFC3339.parse("2020-06-29T19:01:10-05:00") == t0)
    #expect(RFC3339.parse("2020-06-30T00:01:10.25Z") == t0.adding(seconds: 0.25))
    #expect(RFC3339.parse("2020-06-30T00:01:10.000001Z") == t0.adding(seconds: 0.000_001))
    // Beyond microseconds: rounded to the nearest, half up.
    #expect(RFC3339.parse("2020-06-30T00:01:10.1234564Z") == t0.adding(seconds: 0.123_456))
    #expect(RFC3339.parse("2020-06-30T00:01:10.1234565Z") == t0.adding(seconds: 0.123_457))
    // A leap second is second 0 of the next minute.
    #expect(RFC3339.parse("2016-12-31T23:59:60Z") == RFC3339.parse("2017-01-01T00:00:00Z"))
    #expect(
      RFC3339.parse("2020-02-29T00:00:00Z")
        == Timestamp(microsecondsSinceEpoch: 1_582_934_400_000_000))
    #expect(RFC3339.parse("1969-12-31T23:59:59.5Z") == Timestamp(microsecondsSinceEpoch: -500_000))
    #expect(
      RFC3339.parse("0000-01-01T00:00:00Z")
        == Timestamp(microsecondsSinceEpoch: -62_167_219_200_000_000))
  }

  @Test(arguments: [
    "", "2020-06-30", "2020-06-30 00:01:10Z", "2020-06-30T00:01:10", "2020-06-30T00:01Z",
    "2020-06-30T00:01:10.Z", "2020-06-30T00:01:10+0200", "2020-06-30T00:01:10+02",
    "2020-06-30T24:00:00Z", "2020-06-30T00:60:00Z", "2020-06-30T00:00:61Z", "2021-02-29T00:00:00Z",
    "2020-13-01T00:00:00Z", "2020-06-31T00:00:00Z", "2020-06-30T00:01:10Z ",
    " 2020-06-30T00:01:10Z",
    "1593475270", "+2020-06-30T00:01:10Z", "20200-06-30T00:01:10Z", "2020-06-30T00:01:10+24:00",
  ])
  func refusesWhatIsNotAnRFC3339DateTime(text: String) {
    #expect(RFC3339.parse(text) == nil)
  }

  @Test func readsBackWhatFormatWrites() {
    let instants: [Int64] = [
      0, 1_593_475_270_000_000, 1_593_475_270_250_000, 1_593_475_270_000_001, -1, -500_000,
      253_402_300_799_999_999, -62_167_219_200_000_000,
    ]
    for micros in instants {
      let t = Timestamp(microsecondsSinceEpoch: micros)
      #expect(RFC3339.parse(RFC3339.format(t)) == t, "\(micros)")
    }
  }

  @Test func isCodedAsItsRFC3339Text() throws {
    #expect(
      try CodingTestSupport.encodedText(t0.adding(seconds: 0.25)) == #""2020-06-30T00:01:10.25Z""#)
    #expect(try CodingTestSupport.encodedText([t0]) == #"["2020-06-30T00:01:10Z"]"#)
    #expect(
      try CodingTestSupport.decoded(Timestamp.self, from: #""2020-06-30T02:01:10+02:00""#) == t0)
  }

  @Test func decodingRefusesOtherText() {
    let error = #expect(throws: DecodingError.self) {
      try CodingTestSupport.decoded(Timestamp.self, from: #""2020-06-30 00:01:10""#)
    }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect(
      context.debugDescription == #"expected an RFC 3339 date-time, got "2020-06-30 00:01:10""#)
    #expect(throws: DecodingError.self) {
      try CodingTestSupport.decoded(Timestamp.self, from: "1593475270")
    }
  }

  @Test func encodingRefusesYearsRFC3339CannotWrite() {
    let tooLate = Timestamp(microsecondsSinceEpoch: 253_402_300_800_000_000)  // 10000-01-01
    let tooEarly = Timestamp(microsecondsSinceEpoch: -62_167_219_200_000_001)
    for t in [tooLate, tooEarly] {
      let error = #expect(throws: EncodingError.self) { try CodingTestSupport.encodedText(t) }
      guard case .invalidValue(_, let context)? = error else {
        Issue.record("expected invalidValue, got \(String(describing: error))")
        continue
      }
      #expect(
        context.debugDescription == "RFC 3339 has no text for \(t): its year is not 0000 to 9999")
    }
  }
}
