import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

/// Keys given twice are refused with the feature named; a byte order mark is accepted; ids
/// repeated across files name both files; a huge CSV header is not echoed whole.
@Suite struct ZoneLoaderStrictnessTests {
  func loadError(_ text: String) -> String? {
    do {
      _ = try ZoneLoader.loadZones(from: Array(text.utf8))
      return nil
    } catch {
      return "\(error)"
    }
  }

  func feature(_ id: String, _ properties: String) -> String {
    #"{"type":"Feature","id":"\#(id)","properties":\#(properties),"geometry":{"type":"Point","coordinates":[-74,40.5]}}"#
  }

  @Test func keysGivenTwiceAreRefusedWithTheFeatureNamed() {
    let twiceInProperties = #"{"type":"FeatureCollection","features":["# + feature("a", #"{"dwell":60,"dwell":120}"#) + "]}"
    #expect(loadError(twiceInProperties) == #"feature 0 (id "a"): property "properties": properties has the key "dwell" twice; give each key once"#)
    let twiceInCustomData = #"{"type":"FeatureCollection","features":["# + feature("a", #"{"customData":{"x":1,"x":2}}"#) + "]}"
    #expect(loadError(twiceInCustomData) == #"feature 0 (id "a"): property "properties": properties.customData has the key "x" twice; give each key once"#)
    let twiceInFeature = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","id":"b","properties":{},"geometry":{"type":"Point","coordinates":[-74,40.5]}}]}"#
    #expect(loadError(twiceInFeature) == #"feature 0 (id "b"): the feature has the key "id" twice; give each key once"#)
    let twiceInZones = #"{"type":"FeatureCollection","features":["# + feature("a", "{}") + #"],"zones":{"a":{"dwell":1,"dwell":2}}}"#
    #expect(loadError(twiceInZones) == #"property "zones": zones.a has the key "dwell" twice; give each key once"#)
    let twiceAtTop = #"{"type":"FeatureCollection","features":[],"features":[]}"#
    #expect(loadError(twiceAtTop) == #"property "features": the FeatureCollection has the key "features" twice; give each key once"#)
    // The same key in different objects is fine.
    let fine = #"{"type":"FeatureCollection","features":["# + feature("a", #"{"x":1,"customData":{"x":2}}"#) + "]}"
    #expect(loadError(fine) == nil)
  }

  @Test func aByteOrderMarkIsAccepted() throws {
    let text = #"{"type":"FeatureCollection","features":["# + feature("a", "{}") + "]}"
    let zones = try ZoneLoader.loadZones(from: [0xEF, 0xBB, 0xBF] + Array(text.utf8))
    #expect(zones.map(\.id) == ["a"])
  }

  @Test func idsRepeatedAcrossFilesNameBothFiles() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let first = try directory.write("first.geojson", #"{"type":"FeatureCollection","features":["# + feature("a", #"{"zone":"z"}"#) + "]}")
    let sameZone = try directory.write("same-zone.geojson", #"{"type":"FeatureCollection","features":["# + feature("b", #"{"zone":"z"}"#) + "]}")
    let sameFence = try directory.write("same-fence.geojson", #"{"type":"FeatureCollection","features":["# + feature("a", #"{"zone":"y"}"#) + "]}")
    #expect(throws: ZoneLoadError(file: sameZone, message: #"zone "z" is also defined in \#(first); zone ids must be unique across the zone files"#)) {
      try ZoneLoader.loadZones(contentsOf: [first, sameZone])
    }
    #expect(throws: ZoneLoadError(file: sameFence, message: #"fence or GEOLINE "a" is also defined in \#(first) (zone "z"); fence and GEOLINE ids must be unique across the zone files"#)) {
      try ZoneLoader.loadZones(contentsOf: [first, sameFence])
    }
    #expect(try ZoneLoader.loadZones(contentsOf: [first]).map(\.id) == ["z"])
  }

  @Test func aHugeCSVHeaderIsNotEchoedWhole() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let header = (0..<100_000).map { "column\($0)" }.joined(separator: ",")
    let path = try directory.write("wide.csv", header + "\n1,2,3\n")
    do {
      _ = try TrackReader(path: path).readAll()
      Issue.record("read a file without the needed columns")
    } catch let error as TrackReadError {
      #expect(error.reason.count < 400)
      #expect(error.reason.hasPrefix("no device column: expected one of "))
      #expect(error.reason.hasSuffix("... (\(header.utf8.count) bytes in all))"))
    }
  }
}
