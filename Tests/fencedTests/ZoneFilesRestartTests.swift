import FenceTestSupport
import Foundation
import Testing

/// A restart with the same zone files does not read them again; changed files replace the zones.
@Suite(.serialized, .offThePool)
struct ZoneFilesRestartTests {
  @Test func unchangedFilesAreNotReadAndChangedOnesReplaceTheZones() async throws {
    let directory = DaemonProcess.temporaryDirectory("zone-files")
    let zonesFile = directory + "-zones.geojson"
    defer {
      try? FileManager.default.removeItem(atPath: directory)
      try? FileManager.default.removeItem(atPath: zonesFile)
    }
    try FileManager.default.copyItem(atPath: TestFixes.harborZones, toPath: zonesFile)
    let notRead = "the store already holds the zone files' zones (files unchanged; not read)"

    let first = try DaemonProcess(dataDirectory: directory, arguments: ["--zones", zonesFile])
    #expect(first.standardError.contains("zones replaced by the zone files"))
    _ = try await DaemonClient(baseURL: first.baseURL).postFixes(
      TestFixes.ndjson(try TestFixes.harborHour().prefix(500)))
    let zones = try await DaemonClient(baseURL: first.baseURL).request(.GET, "/v1/zones").body
    first.kill()  // SIGKILL: the note written at start survives it

    let second = try DaemonProcess(dataDirectory: directory, arguments: ["--zones", zonesFile])
    #expect(second.standardError.contains(notRead))
    #expect(try await DaemonClient(baseURL: second.baseURL).request(.GET, "/v1/zones").body == zones)
    #expect(second.terminate() == 0)

    // Other load options are another source: read again, found equal, not replaced.
    let third = try DaemonProcess(
      dataDirectory: directory, arguments: ["--zones", zonesFile, "--point-radius", "150"])
    #expect(!third.standardError.contains(notRead))
    #expect(third.standardError.contains("the store already holds the zone files' zones"))
    #expect(third.terminate() == 0)

    // The same options again: not read.
    let fourth = try DaemonProcess(
      dataDirectory: directory, arguments: ["--zones", zonesFile, "--point-radius", "150"])
    #expect(fourth.standardError.contains(notRead))
    #expect(fourth.terminate() == 0)

    // A changed file (a zone renamed): read, and the zones replaced.
    let text = try String(contentsOfFile: zonesFile, encoding: .utf8)
    let renamed = text.replacingOccurrences(of: "St. George Ferry Terminal", with: "St George")
    #expect(renamed != text)
    try renamed.write(toFile: zonesFile, atomically: true, encoding: .utf8)
    let fifth = try DaemonProcess(
      dataDirectory: directory, arguments: ["--zones", zonesFile, "--point-radius", "150"])
    #expect(!fifth.standardError.contains(notRead))
    #expect(fifth.standardError.contains("zones replaced by the zone files"))
    let renamedZones = try await DaemonClient(baseURL: fifth.baseURL).request(.GET, "/v1/zones").body
    #expect(renamedZones.contains("St George"))
    #expect(fifth.terminate() == 0)
  }
}
