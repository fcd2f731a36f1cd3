import FenceTestSupport
import Foundation
import Testing

/// Bad input exits 1 with a message naming the file, feature or line; bad usage exits 2 with a
/// sentence telling what to do.
@Suite struct RunCommandErrorTests {
  static let zones = RunCommandTests.zones
  static let firstHour = RunCommandTests.firstHour

  struct ErrorCase: CustomTestStringConvertible, Sendable {
    let name: String
    let arguments: [String]
    let status: Int32
    /// The first line of standard error.
    let message: String
    var testDescription: String { name }
  }

  static let badZones = FenceBenchProcess.temporaryPath("bad.geojson")
  static let badTrack = FenceBenchProcess.temporaryPath("bad.csv")

  init() throws {
    try #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","properties":{"radius":-5},"geometry":{"type":"Point","coordinates":[-74,40.6]}}]}"#
      .write(toFile: Self.badZones, atomically: true, encoding: .utf8)
    try "device,time,lat,lon\na,2020-01-01T00:00:00Z,40.6,-74\nb,notatime,40.6,-74\n"
      .write(toFile: Self.badTrack, atomically: true, encoding: .utf8)
  }

  @Test(arguments: [
    ErrorCase(
      name: "a missing track file", arguments: ["run", "--zones", zones, "missing.csv"], status: 1,
      message: "fencebench: missing.csv: cannot open: No such file or directory"),
    ErrorCase(
      name: "a missing zones file", arguments: ["run", "--zones", "nozones.geojson", firstHour],
      status: 1, message: "fencebench: nozones.geojson: cannot read: No such file or directory"),
    ErrorCase(
      name: "a bad GeoJSON feature", arguments: ["run", "--zones", badZones, firstHour], status: 1,
      message:
        "fencebench: \(badZones): feature 0 (id \"a\"): property \"radius\": expected a number of metres above 0 and at most 10000000, got -5"),
    ErrorCase(
      name: "a bad track row in strict mode", arguments: ["run", "--zones", zones, badTrack, "--strict"],
      status: 1,
      message:
        "fencebench: \(badTrack):3: column \"time\": expected a time (RFC 3339 or epoch seconds), got \"notatime\""),
    ErrorCase(
      name: "a track file of unknown format", arguments: ["run", "--zones", zones, "tracks.txt"],
      status: 1,
      message:
        "fencebench: tracks.txt: cannot tell the track format from the file name: use .csv, .gpx, .ndjson or .jsonl (optionally .gz), or give the format explicitly"),
    ErrorCase(
      name: "a bad option value", arguments: ["run", "--zones", zones, firstHour, "--max-accuracy", "abc"],
      status: 2, message: "Error: The value 'abc' is invalid for '--max-accuracy <metres>'"),
    ErrorCase(
      name: "no zones file", arguments: ["run", firstHour], status: 2,
      message: "Error: Give at least one zones file with --zones FILE.geojson."),
    ErrorCase(
      name: "no track file", arguments: ["run", "--zones", zones], status: 2,
      message: "Error: Give at least one track file (.csv, .gpx or .ndjson) after the options."),
    ErrorCase(
      name: "monitoring no region", arguments: ["run", "--zones", zones, firstHour, "--monitor", "0"],
      status: 2, message: "Error: --monitor must be a whole number from 1 to 1000000, got 0."),
    ErrorCase(
      name: "a negative cell cache", arguments: ["run", "--zones", zones, firstHour, "--cell-cache", "-1"],
      status: 2, message: "Error: --cell-cache must be a whole number from 0 to 16777216, got -1."),
    ErrorCase(
      name: "a negative edge count for tables ahead",
      arguments: ["run", "--zones", zones, firstHour, "--tables-ahead-edges", "-1"], status: 2,
      message: "Error: --tables-ahead-edges must be a whole number of edges from 0, got -1."),
    ErrorCase(
      name: "a map that is neither HTML nor SVG",
      arguments: ["run", "--zones", zones, firstHour, "--map", "out.png"], status: 2,
      message: "Error: --map must name an .html or .svg file, for example --map run.html."),
    ErrorCase(
      name: "an unknown backend", arguments: ["run", "--zones", zones, firstHour, "--backend", "fast"],
      status: 2,
      message:
        "Error: The value 'fast' is invalid for '--backend <backend>'. Please provide one of 'native' and 'geos'."),
    ErrorCase(
      name: "a polygon of two vertices", arguments: ["generate", "fences", "--vertices", "2"],
      status: 2, message: "Error: --vertices must be at least 3 for a polygon; try --vertices 8."),
    ErrorCase(
      name: "a box the wrong way round", arguments: ["generate", "tracks", "--box=-73,40,-74,41"],
      status: 2, message: "Error: The value '-73,40,-74,41' is invalid for '--box <box>'"),
  ])
  func failsWithTheExpectedMessageAndStatus(_ c: ErrorCase) throws {
    let result = try FenceBenchProcess.run(c.arguments)
    #expect(result.status == c.status)
    #expect(result.standardError.split(separator: "\n").first.map(String.init) == c.message)
    #expect(result.standardOutput == "")
  }

  @Test func skippedRowsAreWarnedAboutAndCounted() throws {
    let result = try FenceBenchProcess.run(["run", "--zones", Self.zones, Self.badTrack, "--json"])
    #expect(result.status == 0)
    #expect(
      result.standardError
        == "fencebench: warning: skipped \(Self.badTrack):3: column \"time\": expected a time (RFC 3339 or epoch seconds), got \"notatime\"\n"
    )
    #expect(result.standardOutput.hasPrefix("{\"fixesRead\":1,\"rowsSkipped\":1,\"fixesAccepted\":1,"))
  }
}
