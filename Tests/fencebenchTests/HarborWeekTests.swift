import FenceTestSupport
import Foundation
import Testing

/// The Staten Island ferry over a week of real AIS data (skipped when ../shared/data is absent).
@Suite struct HarborWeekTests {
  static let week = sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv")

  @Test(.enabled(if: FileManager.default.fileExists(atPath: week)))
  func ferryAndrewJBarberiUsesBothTerminalsAndCrossesNoGeoline() throws {
    let events = FenceBenchProcess.temporaryPath("week.ndjson")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", RunCommandTests.zones, Self.week, "--events", events, "--no-latency"])
    #expect(result.status == 0, "\(result.standardError)")
    let ferry = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
      .filter { $0.contains("\"device\":\"367000150\"") }
    func count(_ kind: String, _ zone: String) -> Int {
      ferry.filter { $0.contains("\"kind\":\"\(kind)\"") && $0.contains("\"zone\":\"\(zone)\"") }.count
    }
    for terminal in ["st-george", "whitehall"] {
      #expect(count("checkIn", terminal) > 10, "\(terminal)")
      #expect(count("dwell", terminal) > 10, "\(terminal)")
      #expect(count("checkOut", terminal) > 10, "\(terminal)")
    }
    #expect(!ferry.contains { $0.contains("\"trigger\":\"geoline\"") })
    #expect(!ferry.contains { $0.contains("\"zone\":\"narrows\"") || $0.contains("\"zone\":\"kill-van-kull\"") })
  }
}
