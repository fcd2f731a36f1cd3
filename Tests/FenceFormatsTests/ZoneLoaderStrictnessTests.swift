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

  /// Files are read at the same time, but results and errors are those of reading them in
  /// order: zones in file order, and the first file (in order) at fault named.
  @Test func severalFilesGiveTheirZonesAndFirstErrorInFileOrder() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var paths: [String] = []
    for i in 0..<6 {
      paths.append(try directory.write("z\(i).geojson", #"{"type":"FeatureCollection","features":["# + feature("f\(i)", #"{"zone":"z\#(i)"}"#) + "]}"))
    }
    #expect(try ZoneLoader.loadZones(contentsOf: paths).map(\.id) == ["z0", "z1", "z2", "z3", "z4", "z5"])
    let broken = try directory.write("broken.geojson", #"{"type":"FeatureCollection","features":[{"#)
    let missing = directory.path + "/missing.geojson"
    let repeated = try directory.write("repeated.geojson", #"{"type":"FeatureCollection","features":["# + feature("g", #"{"zone":"z1"}"#) + "]}")
    // The missing file comes first: its error, not the broken file's.
    #expect(throws: ZoneLoadError(file: missing, message: "cannot read: No such file or directory")) {
      try ZoneLoader.loadZones(contentsOf: [paths[0], missing, broken])
    }
    #expect(throws: ZoneLoadError(file: broken, message: "invalid JSON at line 1, column 42: expected a string key in object, found end of input")) {
      try ZoneLoader.loadZones(contentsOf: [paths[0], broken, missing])
    }
    // A repeat in an earlier file than a broken one is found first, as in order.
    #expect(throws: ZoneLoadError(file: repeated, message: #"zone "z1" is also defined in \#(paths[1]); zone ids must be unique across the zone files"#)) {
      try ZoneLoader.loadZones(contentsOf: [paths[1], repeated, broken])
    }
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
