import FenceTestSupport
import Foundation
import Testing

/// `fencebench run` end to end: the binary on the harbor fixtures, whole outputs compared.
@Suite struct RunCommandTests {
  static let zones = "Fixtures/zones/nyharbor-zones.geojson"
  static let firstHour = "Fixtures/tracks/nyharbor-ais-2020-06-30-first-hour.csv"

  struct GoldenCase: CustomTestStringConvertible, Sendable {
    let golden: String
    let options: [String]
    var testDescription: String { ([golden] + options).joined(separator: " ") }
  }

  /// Each golden file was produced once by the binary and checked by eye against the spec
  /// (for example: ferry SAMUEL I NEWHOUSE, 367000140, is in the St. George slip all hour:
  /// initial check-in at 00:00:00, dwell at 00:02:00 for the zone's 120 s, no check-out;
  /// ANDREW J BARBERI, 367000150, leaves Whitehall at 00:03:14 after its dwell and checks in
  /// at St. George at 00:19:58).
  @Test(arguments: [
    GoldenCase(golden: "nyharbor-first-hour.ndjson", options: []),
    // Skipping fixes inside a device's safe radius must not change a single event.
    GoldenCase(golden: "nyharbor-first-hour.ndjson", options: ["--skip-unchanged"]),
    // Nor may the cell cache, off or small enough to be emptied again and again.
    GoldenCase(golden: "nyharbor-first-hour.ndjson", options: ["--cell-cache", "0"]),
    GoldenCase(golden: "nyharbor-first-hour.ndjson", options: ["--cell-cache", "1"]),
    // Nor the polygons' tables built at load rather than by the first fix near them.
    GoldenCase(golden: "nyharbor-first-hour.ndjson", options: ["--tables-ahead-edges", "0"]),
    GoldenCase(
      golden: "nyharbor-first-hour-monitor-diagnostics.ndjson",
      options: ["--monitor", "3", "--radius", "2000", "--diagnostics"]),
  ])
  func eventsMatchTheGoldenFile(_ c: GoldenCase) throws {
    let events = FenceBenchProcess.temporaryPath("events.ndjson")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--events", events] + c.options)
    #expect(result.status == 0, "\(result.standardError)")
    let actual = try String(contentsOfFile: events, encoding: .utf8)
    let expected = try String(contentsOfFile: fixturePath("golden/\(c.golden)"), encoding: .utf8)
    #expect(actual == expected)
  }

  @Test func eventsGoToStandardOutputWithDash() throws {
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--events", "-", "--json"])
    #expect(result.status == 0)
    let expected = try String(
      contentsOfFile: fixturePath("golden/nyharbor-first-hour.ndjson"), encoding: .utf8)
    // Standard output holds the events only; the summary goes to standard error.
    #expect(result.standardOutput == expected)
    #expect(result.standardError.hasPrefix("{\"fixesRead\":8689,"))
  }

  @Test func presortedStreamingGivesTheSameEventsOnATimeOrderedFile() throws {
    // The first-hour file is in time order, so streaming it must give the golden events.
    let events = FenceBenchProcess.temporaryPath("events.ndjson")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--presorted", "--events", events])
    #expect(result.status == 0)
    let expected = try String(
      contentsOfFile: fixturePath("golden/nyharbor-first-hour.ndjson"), encoding: .utf8)
    #expect(try String(contentsOfFile: events, encoding: .utf8) == expected)
  }

  @Test func jsonSummaryHasEveryFieldWithTheRunsCounts() throws {
    let result = try FenceBenchProcess.run(["run", "--zones", Self.zones, Self.firstHour, "--json"])
    #expect(result.status == 0)
    let data = Data(result.standardOutput.utf8)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(
      Set(object.keys) == [
        "fixesRead", "rowsSkipped", "fixesAccepted", "fixesRejected", "rejectedByReason", "zones",
        "fences", "geolines", "devices", "loadSeconds", "indexBuildSeconds", "readSeconds",
        "evaluationSeconds", "throughputFixesPerSecond", "latencyMicroseconds", "events",
        "eventsByKind", "peakMemoryBytes", "readRowsPerSecond", "cellCache",
      ])
    #expect(object["fixesRead"] as? Int == 8689)
    #expect(object["rowsSkipped"] as? Int == 0)
    #expect(object["fixesAccepted"] as? Int == 8687)
    #expect(object["fixesRejected"] as? Int == 2)
    #expect(object["zones"] as? Int == 6)
    #expect(object["fences"] as? Int == 4)
    #expect(object["geolines"] as? Int == 2)
    #expect(object["devices"] as? Int == 295)
    #expect(object["events"] as? Int == 57)
    let reasons = try #require(object["rejectedByReason"] as? [String: Int])
    #expect(
      reasons == [
        "invalidCoordinate": 0, "nullIsland": 0, "outOfOrder": 0, "duplicate": 2,
        "lowAccuracy": 0, "implausibleSpeed": 0,
      ])
    let kinds = try #require(object["eventsByKind"] as? [String: Int])
    #expect(
      kinds == ["checkIn": 36, "checkOut": 12, "dwell": 9, "monitoredSetChanged": 0, "rejected": 0])
    let latency = try #require(object["latencyMicroseconds"] as? [String: Double])
    #expect(Set(latency.keys) == ["p50", "p99", "p99.9", "max"])
    let p50 = try #require(latency["p50"]), p99 = try #require(latency["p99"])
    let p999 = try #require(latency["p99.9"]), maximum = try #require(latency["max"])
    #expect(0 < p50 && p50 <= p99 && p99 <= p999 && p999 <= maximum)
    #expect((object["throughputFixesPerSecond"] as? Double ?? 0) > 0)
    #expect((object["peakMemoryBytes"] as? Int ?? 0) > 1_000_000)
    #expect((object["readRowsPerSecond"] as? Double ?? 0) > 0)
    #expect(object["compareGEOS"] == nil)
    #expect(object["fixesSkippedUnchanged"] == nil)
    // 814 parent cells reached (each first visit answered by the index), 605 cells and parents
    // filed, every other fix answered from the cache; the hour never stops paying. Of the hits,
    // 5,890 found their device settled in its cell and only fired timers.
    let cache = try #require(object["cellCache"] as? [String: Int])
    #expect(
      cache == ["hits": 7811, "fills": 605, "firstVisits": 814, "bypassed": 0, "settled": 5890])
  }

  @Test func cellCacheCountsComeWithTheNativeBackendOnly() throws {
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--backend", "geos", "--json"])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    #expect(object["cellCache"] == nil)
    #expect(object["events"] as? Int == 57)
  }

  @Test func skipUnchangedCountsTheSkippedFixes() throws {
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--skip-unchanged", "--json"])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let skipped = try #require(object["fixesSkippedUnchanged"] as? Int)
    // Most of the hour's fixes are ships at anchor or berth, far from every fence.
    #expect(skipped > 1000 && skipped < 8687)
    #expect(object["events"] as? Int == 57)
  }

  @Test func textSummaryNamesEveryFigure() throws {
    let result = try FenceBenchProcess.run(["run", "--zones", Self.zones, Self.firstHour])
    #expect(result.status == 0)
    let labels = result.standardOutput.split(separator: "\n").map {
      $0.split(separator: "  ").first.map(String.init) ?? ""
    }
    #expect(
      labels == [
        "fixes read", "accepted", "rejected", "devices", "zones", "load", "index build",
        "read + sort", "events", "evaluation", "throughput", "latency", "cell cache",
        "peak memory",
      ])
    #expect(result.standardOutput.contains("rejected     2 (duplicate 2)\n"))
    #expect(result.standardOutput.contains("events       57 (checkIn 36, checkOut 12, dwell 9)\n"))
    // No terminal here: no progress bar on standard error.
    #expect(result.standardError == "")
  }

  @Test func ruleDefaultsApplyOnlyToZonesWithoutTheirOwn() throws {
    // --dwell 60 gives Governors Island (no dwell of its own) dwells; the terminals keep 120 s.
    let events = FenceBenchProcess.temporaryPath("events.ndjson")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--dwell", "60", "--events", events])
    #expect(result.status == 0)
    let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
    let dwells = lines.filter { $0.contains("\"kind\":\"dwell\"") }
    #expect(dwells.contains { $0.contains("\"zone\":\"governors-island\"") && $0.contains("\"dwellSeconds\":60") })
    #expect(!dwells.contains { $0.contains("\"zone\":\"st-george\"") && $0.contains("\"dwellSeconds\":60") })
    #expect(dwells.contains { $0.contains("\"zone\":\"st-george\"") && $0.contains("\"dwellSeconds\":120") })
  }

  @Test func noCheckOutDefaultIsOverriddenByZonesThatDoNotSetIt() throws {
    let events = FenceBenchProcess.temporaryPath("events.ndjson")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--no-check-out", "--events", events])
    #expect(result.status == 0)
    let text = try String(contentsOfFile: events, encoding: .utf8)
    #expect(!text.contains("\"kind\":\"checkOut\""))
  }
}
