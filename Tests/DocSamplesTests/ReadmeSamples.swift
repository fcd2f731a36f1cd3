// The Swift samples of README.md, compiled here so that they keep compiling; see
// Scripts/check-doc-samples, which fails when a sample has no copy in this target.
//
// The README's zone-rule test ("Writing a zone-rule test") is the same text as the complete
// test of Docs/Testing-zone-rules.md; its copy is in TestingZoneRulesSamples.swift (one module
// cannot declare its `depot` and its test twice).

import FenceEngine
import FenceFormats
import FenceStore

/// README.md, "Embedding the engine in a daemon". Not run: it reads `zones.geojson` and
/// `fixes.ndjson` from the working directory (`ReadmeExampleTests` runs the same loop on the
/// fixtures).
func readmeEmbeddingTheEngineInADaemon() async throws {
  let zones = try ZoneLoader.loadZones(contentsOf: "zones.geojson")   // all or nothing
  let monitor = try FenceMonitor(zones: zones)

  let forwarder = Task {
    for await event in monitor.events {
      print(event.ndjsonLine)            // check-in, check-out, dwell: with the zone's customData
    }
  }
  let fixes = try TrackReader(path: "fixes.ndjson")   // the daemon wire format; CSV and GPX too
  while let fix = try fixes.next() {
    monitor.submit(fix)                   // from any thread
  }
  monitor.finish()
  await forwarder.value
}

/// README.md, "Making it durable". Not run: it writes `fence-data` in the working directory
/// (`ReadmeStoreExampleTests` runs the same steps in a temporary folder). Returns `answer`,
/// which the sample shows but does not use.
func readmeMakingItDurable() throws -> CommandAnswer? {
  let store = try FenceStore(directory: "fence-data")      // SQLite (WAL) in that folder
  try store.execute(.replaceAllZones(try ZoneLoader.loadZones(contentsOf: "zones.geojson")))
  let answer = try store.execute(.fixes(try TrackReader(path: "fixes.ndjson").readAll()),
                                 idempotencyKey: "batch-1")   // a resend answers the same, once
  for event in try store.events(after: 0) {
    print(event.line)                     // {"seq":1,"id":…,"kind":"checkIn",…}
  }
  try store.close()                        // writes a snapshot; kill -9 loses nothing either
  return answer
}
