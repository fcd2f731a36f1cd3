import FenceTestSupport
import Foundation
import Testing

/// `fencebench explain` and `fencebench run --device-tags` (rules v2).
@Suite struct ExplainCommandTests {
  static let zones = "Fixtures/zones/nyharbor-zones.geojson"
  static let firstHour = "Fixtures/tracks/nyharbor-ais-2020-06-30-first-hour.csv"

  @Test func explainWritesOneLinePerFixOfTheDeviceInTheRange() throws {
    let result = try FenceBenchProcess.run([
      "explain", "--zones", Self.zones, Self.firstHour, "--device", "367000140",
      "--to", "2020-06-30T00:05:00Z",
    ])
    #expect(result.status == 0)
    let lines = result.standardOutput.split(separator: "\n")
    // The ferry's fixes at 00:00:00, 00:01:10, 00:02:20, 00:03:30 and 00:04:39.
    #expect(lines.count == 5)
    #expect(lines[0].hasPrefix(#"{"fix":{"device":"367000140","time":"2020-06-30T00:00:00Z""#))
    #expect(lines[0].contains(#""events":[{"id":"b98793efc3b37a0e","kind":"checkIn""#))
    #expect(lines[1].contains(#""reason":"still inside, checked in since 2020-06-30T00:00:00Z""#))
    let table = try FenceBenchProcess.run([
      "explain", "--zones", Self.zones, Self.firstHour, "--device", "367000140",
      "--to", "2020-06-30T00:00:00Z", "--table",
    ])
    #expect(table.status == 0)
    #expect(table.standardOutput.hasPrefix("2020-06-30T00:00:00Z  367000140  40.64409, -74.07157"))
    #expect(table.standardOutput.contains("  event checkIn st-george at 2020-06-30T00:00:00Z\n"))
  }

  @Test func explainRefusesABadTime() throws {
    let result = try FenceBenchProcess.run([
      "explain", "--zones", Self.zones, Self.firstHour, "--device", "x", "--from", "yesterday",
    ])
    #expect(result.status == 2)
    #expect(result.standardError.contains("--from must be an RFC 3339 time such as 2020-12-01T00:00:00Z, got yesterday."))
  }

  @Test func deviceTagsDecideWhoChecksIn() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("fencebench-tags-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let zones = directory.appendingPathComponent("zones.geojson").path
    let track = directory.appendingPathComponent("track.csv").path
    let tags = directory.appendingPathComponent("tags.csv").path
    let badTags = directory.appendingPathComponent("bad.csv").path
    try #"""
      {"type":"FeatureCollection","features":[{"type":"Feature",
       "geometry":{"type":"Point","coordinates":[-74.0,40.6]},
       "properties":{"id":"pier","zone":"pier","radius":100,
                     "conditions":{"deviceTags":{"any":["ferry"]}}}}]}
      """#.write(toFile: zones, atomically: true, encoding: .utf8)
    try "device,time,lat,lon\nboat,2020-06-30T00:00:00Z,40.6,-74.0\ntug,2020-06-30T00:00:00Z,40.6,-74.0\n"
      .write(toFile: track, atomically: true, encoding: .utf8)
    try "device,tag\nboat,ferry\n".write(toFile: tags, atomically: true, encoding: .utf8)
    try "boat\n".write(toFile: badTags, atomically: true, encoding: .utf8)
    let result = try FenceBenchProcess.run([
      "run", "--zones", zones, track, "--device-tags", tags, "--events", "-", "--no-latency",
    ])
    #expect(result.status == 0)
    let events = result.standardOutput.split(separator: "\n")
    #expect(events.count == 1)
    #expect(events.first?.contains(#""kind":"checkIn","time":"2020-06-30T00:00:00Z","device":"boat""#) == true)
    let bad = try FenceBenchProcess.run(["run", "--zones", zones, track, "--device-tags", badTags])
    #expect(bad.status == 1)
    #expect(bad.standardError == "fencebench: \(badTags):1: expected two fields, device and tag, got 1\n")
  }
}
