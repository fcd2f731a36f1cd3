import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

/// The harbor data read by several tasks at once, the way the engine tests and Swift Testing's
/// parallel runner do: every reader must see exactly what a lone reader sees.
@Suite struct ConcurrentReadingTests {
  static let firstHour = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")
  static let week = sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv")
  static let zones = fixturePath("zones/nyharbor-zones.geojson")

  /// What one full read of a track file gives: the count and an order-sensitive digest.
  struct Summary: Equatable, Sendable {
    var count = 0
    var skipped = 0
    var digest: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ fix: LocationFix) {
      count += 1
      for word in [
        UInt64(bitPattern: fix.time.microsecondsSinceEpoch), fix.latitude.bitPattern,
        fix.longitude.bitPattern, UInt64(truncatingIfNeeded: fix.device.hashValue),
      ] {
        digest = (digest ^ word) &* 0x0000_0100_0000_01b3
      }
    }
  }

  static func summary(_ path: String) throws -> Summary {
    let reader = try TrackReader(path: path)
    var summary = Summary()
    while let fix = try reader.next() { summary.add(fix) }
    summary.skipped = reader.skippedRowCount
    return summary
  }

  @Test func harborTracksAndZonesReadConcurrentlyGiveTheSameResults() async throws {
    let hasWeek = FileManager.default.fileExists(atPath: Self.week)
    let paths = hasWeek ? [Self.firstHour, Self.week] : [Self.firstHour]
    let expectedCounts = [Self.firstHour: 8_689, Self.week: 172_679]
    // Reference results, read alone.
    var reference: [String: Summary] = [:]
    for path in paths { reference[path] = try Self.summary(path) }
    for path in paths {
      #expect(reference[path]?.count == expectedCounts[path])
      #expect(reference[path]?.skipped == 0)
    }
    let referenceZones = try ZoneLoader.loadZones(contentsOf: Self.zones)
    #expect(referenceZones.count == 6)

    // Three rounds of every file and the zones, all at once.
    let rounds = 3
    try await withThrowingTaskGroup(of: (String, Summary?, [Zone]?).self) { group in
      for _ in 0..<rounds {
        for path in paths {
          group.addTask { (path, try Self.summary(path), nil) }
        }
        group.addTask { (Self.zones, nil, try ZoneLoader.loadZones(contentsOf: Self.zones)) }
      }
      var finished = 0
      for try await (path, summary, zones) in group {
        finished += 1
        if let summary { #expect(summary == reference[path], "\(path)") }
        if let zones { #expect(zones == referenceZones) }
      }
      #expect(finished == rounds * (paths.count + 1))
    }
  }
}
