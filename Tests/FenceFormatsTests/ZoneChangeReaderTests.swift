import FenceEngine
import FenceGeometry
import Foundation
import Testing

@testable import FenceFormats

/// Zone change files (`fencebench run --zone-changes`): each line's operation, time and zones,
/// and an error naming the line for each way a line can be wrong.
@Suite struct ZoneChangeReaderTests {
  static let circle =
    #""type":"FeatureCollection","features":[{"type":"Feature","id":"gate","properties":{"zone":"depot","radius":40,"dwell":60},"geometry":{"type":"Point","coordinates":[-74.0,40.7]}}]"#

  func read(_ text: String, options: ZoneLoadOptions = ZoneLoadOptions()) throws(ZoneChangeError) -> [ZoneChange] {
    try ZoneChangeReader.read(Array(text.utf8), file: "changes.ndjson", options: options)
  }

  func error(_ text: String) -> String? {
    do {
      _ = try read(text)
      return nil
    } catch {
      return error.description
    }
  }

  @Test func eachLineGivesItsOperationTimeAndZones() throws {
    let changes = try read(
      """
      {"time":"2020-01-01T00:00:30Z","change":"add",\(Self.circle)}

      {"time":1577836860,"change":"remove","ids":["depot","old"]}
      {"time":"2020-01-01T00:01:00Z","change":"replaceAll",\(Self.circle)}\r

      """)
    #expect(changes.map(\.line) == [1, 3, 4])
    #expect(changes.map(\.time.description) == [
      "2020-01-01T00:00:30Z", "2020-01-01T00:01:00Z", "2020-01-01T00:01:00Z",
    ])
    guard case .add(let added) = changes[0].operation,
      case .remove(let ids) = changes[1].operation,
      case .replaceAll(let replacing) = changes[2].operation
    else {
      Issue.record("unexpected operations: \(changes.map(\.operation))")
      return
    }
    #expect(added.map(\.id) == ["depot"])
    #expect(added.first?.fences.map(\.id) == ["gate"])
    #expect(added.first?.rules.dwell == 60)
    #expect(ids == ["depot", "old"])
    #expect(replacing == added)
  }

  @Test func theZoneFilesOptionsApplyToAddedZones() throws {
    var options = ZoneLoadOptions()
    options.pointRadius = 250
    let changes = try read(
      #"{"time":0,"change":"add","type":"FeatureCollection","features":[{"type":"Feature","id":"p","geometry":{"type":"Point","coordinates":[-74.0,40.7]}}]}"#,
      options: options)
    guard case .add(let zones) = changes.first?.operation, case .circle(let circle)? = zones.first?.fences.first?.area
    else {
      Issue.record("expected one circle")
      return
    }
    #expect(circle.radius == 250)
  }

  @Test(arguments: [
    ("[1,2]", "changes.ndjson:1: expected a JSON object"),
    (#"{"change":"remove","ids":[]}"#, #"changes.ndjson:1: missing "time""#),
    (#"{"time":"noon","change":"remove","ids":[]}"#,
     #"changes.ndjson:1: "time": expected an RFC 3339 time or epoch seconds, got "noon""#),
    (#"{"time":true,"change":"remove","ids":[]}"#,
     #"changes.ndjson:1: "time": expected an RFC 3339 time or epoch seconds"#),
    (#"{"time":1e300,"change":"remove","ids":[]}"#,
     #"changes.ndjson:1: "time": epoch seconds out of range: 1e+300"#),
    (#"{"time":0,"ids":[]}"#,
     #"changes.ndjson:1: missing "change": expected "add", "remove" or "replaceAll""#),
    (#"{"time":0,"change":"delete","ids":[]}"#,
     #"changes.ndjson:1: "change": expected "add", "remove" or "replaceAll", got "delete""#),
    (#"{"time":0,"change":"remove","id":"a"}"#, #"changes.ndjson:1: "ids": expected an array of zone ids"#),
    (#"{"time":0,"change":"remove","ids":["a",7]}"#, #"changes.ndjson:1: "ids"[1]: expected a zone id (a string)"#),
    (#"{"time":0,"change":"add","type":"FeatureCollection","features":[{"type":"Feature","id":"g","properties":{"radius":-1},"geometry":{"type":"Point","coordinates":[-74,40.7]}}]}"#,
     #"changes.ndjson:1: feature 0 (id "g"): property "radius": expected a number of metres above 0 and at most 10000000, got -1"#),
  ])
  func aBadLineIsNamed(_ text: String, _ message: String) {
    #expect(error(#"{"time":0,"change":"remove","ids":[]}"# + "\n" + text) == message.replacingOccurrences(of: ":1:", with: ":2:"))
  }

  @Test func changesMustBeInTimeOrder() {
    #expect(
      error(
        """
        {"time":"2020-01-01T00:01:00Z","change":"remove","ids":[]}
        {"time":"2020-01-01T00:00:59Z","change":"remove","ids":[]}
        """)
        == #"changes.ndjson:2: "time": 2020-01-01T00:00:59Z is before the previous change's 2020-01-01T00:01:00Z; changes must be in time order"#)
  }

  @Test func notJSONNamesTheLine() {
    let message = error("{\"time\":0,\n")
    #expect(message?.hasPrefix("changes.ndjson:1: not JSON: ") == true, "\(message ?? "nil")")
  }

  @Test func anUnreadableFileIsNamed() throws {
    let path = NSTemporaryDirectory() + "no-such-\(UUID().uuidString).ndjson"
    do {
      _ = try ZoneChangeReader.read(contentsOf: path)
      Issue.record("expected an error")
    } catch {
      #expect(error.line == 0)
      #expect(error.description.hasPrefix("\(path): cannot read: "))
    }
  }
}
