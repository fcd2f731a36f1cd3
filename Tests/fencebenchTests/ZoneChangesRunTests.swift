import FenceTestSupport
import Foundation
import Testing

/// `fencebench run --zone-changes` on the harbor's first hour: changes before the first fix give
/// exactly the events of a fresh load of the resulting zone set; a removal mid-stream drops the
/// zone's open stay without an event and changes nothing else.
@Suite struct ZoneChangesRunTests {
  static let zones = RunCommandTests.zones
  static let firstHour = RunCommandTests.firstHour

  static func json(_ object: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
  }

  @Test(arguments: [[], ["--presorted"]])
  func changesBeforeTheFirstFixGiveTheEventsOfAFreshLoadOfTheResult(_ options: [String]) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: FenceBenchProcess.repositoryRoot + "/" + Self.zones))
    let fixture = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let features = try #require(fixture["features"] as? [[String: Any]])
    let rules = try #require(fixture["zones"] as? [String: Any])
    func zone(of feature: [String: Any]) -> String? { (feature["properties"] as? [String: Any])?["zone"] as? String }
    // St. George's slip grows to 500 m; a new 300 m zone sits on Whitehall's slip; the
    // anchorage goes.
    var stGeorge = try #require(features.first { zone(of: $0) == "st-george" })
    var properties = try #require(stGeorge["properties"] as? [String: Any])
    properties["radius"] = 500
    stGeorge["properties"] = properties
    let whitehall = try #require(features.first { zone(of: $0) == "whitehall" })
    let added: [String: Any] = [
      "type": "Feature", "id": "second-slip", "properties": ["zone": "second", "radius": 300],
      "geometry": try #require(whitehall["geometry"]),
    ]
    let addedRules: [String: Any] = ["st-george": try #require(rules["st-george"]), "second": ["dwell": 60]]

    var resultFeatures = features.filter { zone(of: $0) != "upper-bay-anchorage" && zone(of: $0) != "st-george" }
    resultFeatures += [stGeorge, added]
    var resultRules = rules
    resultRules["upper-bay-anchorage"] = nil
    resultRules["second"] = ["dwell": 60]
    let result = FenceBenchProcess.temporaryPath("changed-zones.geojson")
    try Self.json(["type": "FeatureCollection", "features": resultFeatures, "zones": resultRules])
      .write(toFile: result, atomically: true, encoding: .utf8)
    // The same start, as the fixture re-serialised the same way (custom data keys sorted).
    let start = FenceBenchProcess.temporaryPath("start-zones.geojson")
    try Self.json(fixture).write(toFile: start, atomically: true, encoding: .utf8)
    let changes = FenceBenchProcess.temporaryPath("changes.ndjson")
    try [
      #"{"time":"2020-06-30T00:00:00Z","change":"remove","ids":["upper-bay-anchorage"]}"#,
      try Self.json([
        "time": "2020-06-30T00:00:00Z", "change": "add", "type": "FeatureCollection",
        "features": [stGeorge, added], "zones": addedRules,
      ]),
    ].joined(separator: "\n").write(toFile: changes, atomically: true, encoding: .utf8)
    defer { for path in [result, start, changes] { try? FileManager.default.removeItem(atPath: path) } }

    let changedEvents = FenceBenchProcess.temporaryPath("changed.ndjson")
    let freshEvents = FenceBenchProcess.temporaryPath("fresh.ndjson")
    defer { for path in [changedEvents, freshEvents] { try? FileManager.default.removeItem(atPath: path) } }
    let changed = try FenceBenchProcess.run(
      ["run", "--zones", start, Self.firstHour, "--zone-changes", changes, "--events", changedEvents, "--json"] + options)
    #expect(changed.status == 0, "\(changed.standardError)")
    let fresh = try FenceBenchProcess.run(["run", "--zones", result, Self.firstHour, "--events", freshEvents] + options)
    #expect(fresh.status == 0, "\(fresh.standardError)")
    let actual = try String(contentsOfFile: changedEvents, encoding: .utf8)
    #expect(actual == (try String(contentsOfFile: freshEvents, encoding: .utf8)))
    // The changes matter: the new zone has its own events, and the whole differs from the
    // unchanged run.
    #expect(actual.components(separatedBy: "\"zone\":\"second\"").count - 1 == 6)
    #expect(actual != (try String(contentsOfFile: fixturePath("golden/nyharbor-first-hour.ndjson"), encoding: .utf8)))
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(changed.standardOutput.utf8)) as? [String: Any])
    let counts = try #require(summary["zoneChanges"] as? [String: Any])
    #expect(counts["changes"] as? Int == 2)
    #expect(counts["zonesAdded"] as? Int == 1)
    #expect(counts["zonesReplaced"] as? Int == 1)
    #expect(counts["zonesRemoved"] as? Int == 1)
    #expect(counts["zonesAfter"] as? Int == 6)
    #expect(counts["fencesAfter"] as? Int == 4)
    #expect(counts["fixesBefore"] as? Int == 0)
    #expect(counts["fixesAfter"] as? Int == 8689)
  }

  @Test(arguments: [[], ["--presorted"]])
  func aRemovalMidStreamDropsTheOpenStayAndNothingElse(_ options: [String]) throws {
    let changes = FenceBenchProcess.temporaryPath("remove-whitehall.ndjson")
    try #"{"time":"2020-06-30T00:30:00Z","change":"remove","ids":["whitehall"]}"#
      .write(toFile: changes, atomically: true, encoding: .utf8)
    let events = FenceBenchProcess.temporaryPath("events.ndjson")
    defer { for path in [changes, events] { try? FileManager.default.removeItem(atPath: path) } }
    let run = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--zone-changes", changes, "--events", events, "--json"] + options)
    #expect(run.status == 0, "\(run.standardError)")
    // Vessel 367000190 is in Whitehall's slip from 00:23:04 to 00:33:56: its check-out goes.
    let golden = try String(contentsOfFile: fixturePath("golden/nyharbor-first-hour.ndjson"), encoding: .utf8)
    let expected = golden.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix(#"{"id":"4fff5200802675d0","kind":"checkOut","time":"2020-06-30T00:33:56Z""#) }
      .joined(separator: "\n")
    #expect(expected.count < golden.count)
    #expect(try String(contentsOfFile: events, encoding: .utf8) == expected)
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
    let counts = try #require(summary["zoneChanges"] as? [String: Any])
    #expect(counts["zonesRemoved"] as? Int == 1)
    #expect(counts["zonesAfter"] as? Int == 5)
    let before = try #require(counts["fixesBefore"] as? Int)
    let after = try #require(counts["fixesAfter"] as? Int)
    #expect(before + after == 8689)
    #expect(before > 4000 && after > 4000)
  }

  @Test func aChangeTheEngineRefusesStopsTheRunNamingTheLine() throws {
    let changes = FenceBenchProcess.temporaryPath("bad-change.ndjson")
    try """
      {"time":"2020-06-30T00:10:00Z","change":"remove","ids":["narrows"]}
      {"time":"2020-06-30T00:20:00Z","change":"remove","ids":["narrows"]}
      """.write(toFile: changes, atomically: true, encoding: .utf8)
    let events = FenceBenchProcess.temporaryPath("events.ndjson")
    defer { for path in [changes, events] { try? FileManager.default.removeItem(atPath: path) } }
    let run = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--zone-changes", changes, "--events", events])
    #expect(run.status == 1)
    #expect(run.standardError == "fencebench: \(changes):2: remove: no zone \"narrows\" is loaded at 2020-06-30T00:20:00Z\n")
    #expect(!FileManager.default.fileExists(atPath: events))
  }

  @Test func zoneChangesAndCompareGEOSAreAUsageError() throws {
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--zone-changes", Self.zones, "--compare-geos"])
    #expect(result.status == 2)
    #expect(
      result.standardError.split(separator: "\n").first.map(String.init)
        == "Error: --compare-geos compares against one fixed zone set; leave out --zone-changes or --compare-geos.")
  }
}
