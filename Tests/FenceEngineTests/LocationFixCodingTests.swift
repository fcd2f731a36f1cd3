import FenceEngine
import FenceFormats
import FenceTestSupport
import Foundation
import Testing

/// `LocationFix`'s `Codable` form: the NDJSON fix object of the track format and the daemon.
@Suite struct LocationFixCodingTests {
  let ferry = LocationFix(
    device: "ferry-1", time: Timestamp(microsecondsSinceEpoch: 1_593_475_200_000_000),
    latitude: 40.6437, longitude: -74.0736)

  @Test func encodesTheNDJSONFixObjectLeavingOutWhatWasNotReported() throws {
    #expect(
      try CodingTestSupport.encodedText(ferry, formatting: .sortedKeys)
        == #"{"device":"ferry-1","lat":40.6437,"lon":-74.0736,"time":"2020-06-30T00:00:00Z"}"#)
    var full = ferry
    full.time = full.time.adding(seconds: 0.25)
    full.accuracy = 5
    full.speed = 3.2
    full.course = -49.6
    #expect(
      try CodingTestSupport.encodedText(full, formatting: .sortedKeys)
        == #"{"accuracy":5,"course":-49.6,"device":"ferry-1","lat":40.6437,"lon":-74.0736,"speed":3.2,"time":"2020-06-30T00:00:00.25Z"}"#
    )
  }

  @Test func decodesTheREADMEsWireLine() throws {
    let line = #"{"device":"ferry-1","time":"2020-06-30T00:00:00Z","lat":40.6437,"lon":-74.0736}"#
    #expect(try CodingTestSupport.decoded(LocationFix.self, from: line) == ferry)
  }

  @Test func decodesNullAsNotReportedAndIgnoresOtherMembers() throws {
    let line =
      #"{"lon":-74.0736,"speed":null,"vessel":"ANDREW J BARBERI","lat":40.6437,"time":"2020-06-29T20:00:00-04:00","device":"ferry-1","accuracy":null}"#
    #expect(try CodingTestSupport.decoded(LocationFix.self, from: line) == ferry)
  }

  @Test func aMissingMemberIsNamed() {
    let error = #expect(throws: DecodingError.self) {
      try CodingTestSupport.decoded(
        LocationFix.self, from: #"{"device":"ferry-1","time":"2020-06-30T00:00:00Z","lat":40.6437}"#
      )
    }
    guard case .keyNotFound(let key, _)? = error else {
      Issue.record("expected keyNotFound, got \(String(describing: error))")
      return
    }
    #expect(key.stringValue == "lon")
  }

  /// Every fix of the harbor's first hour (speeds converted from knots, negative courses) goes
  /// through JSONEncoder and JSONDecoder unchanged, and `FixBatchReader` (what `fenced` reads
  /// bodies with) reads the encoder's lines and its array as the same fixes.
  @Test func harborFixesSurviveTheCodersAndReadAsTheDaemonsBody() throws {
    let fixes = try TrackReader(path: fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv"))
      .readAll()
    #expect(fixes.count == 8_689)
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    var lines: [UInt8] = []
    for fix in fixes {
      let data = try encoder.encode(fix)
      #expect(try decoder.decode(LocationFix.self, from: data) == fix)
      lines += data
      lines.append(UInt8(ascii: "\n"))
    }
    #expect(try FixBatchReader.fixes(in: lines) == fixes)
    #expect(try FixBatchReader.fixes(in: try encoder.encode(fixes)) == fixes)
    #expect(try decoder.decode([LocationFix].self, from: try encoder.encode(fixes)) == fixes)
  }
}
