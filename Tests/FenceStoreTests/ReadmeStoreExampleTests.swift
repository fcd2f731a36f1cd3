import FenceEngine
import FenceFormats
import FenceStore
import FenceTestSupport
import Foundation
import Testing

/// The `FenceStore` example of README.md, on the bundled fixtures, so it keeps compiling and
/// keeps giving the plain evaluator's events.
@Suite(.offThePool) struct ReadmeStoreExampleTests {
  /// The README's lines, with the paths as parameters.
  func readmeExample(directory: String, zonesPath: String, fixesPath: String) throws -> (CommandAnswer?, [StoredEvent]) {
    let store = try FenceStore(directory: directory)  // SQLite (WAL) in that folder
    try store.execute(.replaceAllZones(try ZoneLoader.loadZones(contentsOf: zonesPath)))
    let answer = try store.execute(
      .fixes(try TrackReader(path: fixesPath).readAll()), idempotencyKey: "batch-1")
    let events = try store.events(after: 0)
    try store.close()
    return (answer, events)
  }

  @Test func theStoreExampleGivesTheEvaluatorsEventsWithSeqs() async throws {
    try await offThePool {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("readme-store-\(UUID().uuidString)").path
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let zonesPath = fixturePath("zones/nyharbor-zones.geojson")
      let fixesPath = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")
      let (answer, events) = try readmeExample(
        directory: directory, zonesPath: zonesPath, fixesPath: fixesPath)

      var engine = try ZoneEvaluator(zones: try ZoneLoader.loadZones(contentsOf: zonesPath))
      var expected: [ZoneEvent] = []
      for fix in try TrackReader(path: fixesPath).readAll() { engine.process(fix, into: &expected) }
      #expect(answer?.events == expected.count)
      #expect(answer?.firstSeq == 1)
      #expect(events.map(\.seq) == Array(1...Int64(expected.count)))
      #expect(events.map { "{" + $0.line.drop { $0 != "," }.dropFirst() } == expected.map(\.ndjsonLine))
      // Reopened: the same log, and the key answers the first answer without applying again.
      let store = try FenceStore(directory: directory)
      let again = try store.execute(.fixes([]), idempotencyKey: "batch-1")
      #expect(again?.isReplay == true)
      #expect(again?.events == expected.count)
      #expect(try store.events(after: 0, limit: 100_000) == events)
      try store.close()
    }
  }
}
