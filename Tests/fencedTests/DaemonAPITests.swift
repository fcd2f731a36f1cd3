import FenceEngine
import FenceFormats
import FenceTestSupport
import Foundation
import Testing

/// The daemon's routes doing what `fenced.md` says, on the real binary: events by cursor with
/// long-poll, server-sent events with `Last-Event-ID`, zones that load back, devices, metrics,
/// idempotent resends, concurrent zone changes and ingest, and usage errors.
@Suite(.serialized, .offThePool)
final class DaemonAPITests {
  let directory = DaemonProcess.temporaryDirectory("api")
  let daemon: DaemonProcess
  let client: DaemonClient

  init() throws {
    daemon = try DaemonProcess(dataDirectory: directory, arguments: ["--zones", TestFixes.harborZones])
    client = DaemonClient(baseURL: daemon.baseURL)
  }

  deinit {
    daemon.kill()
    try? FileManager.default.removeItem(atPath: directory)
  }

  @Test func ingestAnswersWithCountsAndSeqsAndAResendReturnsTheFirstAnswer() async throws {
    let fixes = try TestFixes.harborHour()
    let first = try await client.postFixes(TestFixes.ndjson(fixes.prefix(4000)), key: "k1")
    #expect(first.status == 200)
    #expect(first.body.hasPrefix("{\"accepted\":4000,\"rejected\":{"))
    let again = try await client.postFixes(TestFixes.ndjson(fixes.prefix(4000)), key: "k1")
    #expect(again.body == first.body)
    #expect(again.header("Idempotent-Replayed") == "true")
    let events = try await client.allEvents()
    #expect(events.count == (try #require(Self.member("events", of: first.body)) as? Int))
    // A JSON array body is the same as NDJSON.
    let array = "[" + fixes[4000..<4010].map(TestFixes.line).joined(separator: ",") + "]"
    let arrayAnswer = try await client.postFixes(array)
    #expect(arrayAnswer.body.hasPrefix("{\"accepted\":10,"))
    // Engine rejections are counted, not errors.
    let duplicate = try await client.postFixes(TestFixes.ndjson(fixes[4000..<4001]))
    #expect(duplicate.status == 200)
    #expect(duplicate.body.contains("\"accepted\":0"))
    #expect(duplicate.body.contains("\"duplicate\":1"))
    #expect(duplicate.body.hasSuffix("\"events\":0,\"firstSeq\":null,\"lastSeq\":null}\n"))
  }

  /// A member of a JSON object text.
  static func member(_ key: String, of text: String) -> Any? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?[key]
  }

  @Test func longPollWaitsForTheNextEventAndTheCursorContinues() async throws {
    let empty = try await client.request(.GET, "/v1/events?after=0&wait=1")
    #expect(empty.status == 200 && empty.body.isEmpty)
    #expect(empty.header("Fence-Cursor") == "0")
    let fixes = try TestFixes.harborHour()
    let client = self.client
    let poll = Task { try await client.request(.GET, "/v1/events?after=0&wait=20&limit=2") }
    try await Task.sleep(for: .milliseconds(300))
    _ = try await client.postFixes(TestFixes.ndjson(fixes))
    let answer = try await poll.value
    let lines = answer.body.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines[0].hasPrefix("{\"seq\":1,"))
    #expect(answer.header("Fence-Cursor") == "2")
    let next = try await client.request(.GET, "/v1/events?after=2&limit=1")
    #expect(next.body.hasPrefix("{\"seq\":3,"))
    #expect(next.header("Fence-Cursor") == "3")
  }

  @Test func serverSentEventsResumeAfterLastEventID() async throws {
    let fixes = try TestFixes.harborHour()
    _ = try await client.postFixes(TestFixes.ndjson(fixes))
    let all = try await client.allEvents()
    let connection = try RawConnection(port: daemon.port)
    connection.send("GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 50\r\n\r\n")
    // Streams never end: read what arrives within the socket's timeout.
    // "\r\n" is one Character in Swift: make line ends plain before splitting.
    let text = connection.readAll().replacingOccurrences(of: "\r\n", with: "\n")
    #expect(text.hasPrefix("HTTP/1.1 200"))
    #expect(text.lowercased().contains("content-type: text/event-stream"))
    let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { Int($0.dropFirst(4))! }
    #expect(ids == Array(51...all.count))
    #expect(text.contains("data: \(all[50])\n\n"))
  }

  @Test func zonesLoadBackAndChangeAsCommands() async throws {
    let zones = try await client.request(.GET, "/v1/zones")
    #expect(zones.status == 200)
    let loaded = try ZoneLoader.loadZones(from: Array(zones.body.utf8))
    let expected = try ZoneLoader.loadZones(contentsOf: fixturePath("zones/nyharbor-zones.geojson"))
    #expect(loaded.sorted { $0.id < $1.id } == expected.sorted { $0.id < $1.id })
    let one = try await client.request(.GET, "/v1/zones/\(expected[0].id)")
    #expect(try ZoneLoader.loadZones(from: Array(one.body.utf8)) == [expected.first { $0.id == expected[0].id }!])
    #expect(try await client.request(.GET, "/v1/zones/nope").status == 404)

    let depot = """
      {"type":"FeatureCollection","features":[{"type":"Feature","id":"depot",
      "properties":{"radius":150,"dwell":60},"geometry":{"type":"Point","coordinates":[-74.0,40.7]}}]}
      """
    let added = try await client.request(.POST, "/v1/zones", body: Array(depot.utf8))
    #expect(added.status == 200)
    #expect(added.body == "{\"zones\":\(expected.count + 1),\"fences\":5,\"geolines\":2}\n")
    let removed = try await client.request(.DELETE, "/v1/zones/depot")
    #expect(removed.body == "{\"zones\":\(expected.count),\"fences\":4,\"geolines\":2}\n")
    #expect(try await client.request(.DELETE, "/v1/zones/depot").status == 404)
    let replaced = try await client.request(.PUT, "/v1/zones", body: Array(depot.utf8))
    #expect(replaced.body == "{\"zones\":1,\"fences\":1,\"geolines\":0}\n")
    // A bow-tie is repaired with ?repair=true.
    let bowtie = """
      {"type":"FeatureCollection","features":[{"type":"Feature","id":"bowtie","properties":{},
      "geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}]}
      """
    #expect(try await client.request(.POST, "/v1/zones", body: Array(bowtie.utf8)).status == 400)
    #expect(try await client.request(.POST, "/v1/zones?repair=true", body: Array(bowtie.utf8)).status == 200)
  }

  @Test func deviceStateShowsTheLastFixAndItsZones() async throws {
    let line = #"{"device":"tug","time":"2020-06-30T00:00:00Z","lat":40.70,"lon":-74.01,"speed":3}"#
    _ = try await client.postFixes(line)
    let device = try await client.request(.GET, "/v1/devices/tug")
    #expect(device.status == 200)
    #expect(
      device.body
        == "{\"device\":\"tug\",\"lastFix\":{\"time\":\"2020-06-30T00:00:00Z\",\"lat\":40.7,\"lon\":-74.01,\"speed\":3,\"course\":null},\"inside\":[],\"monitored\":[],\"tags\":[]}\n")
    #expect(try await client.request(.GET, "/v1/devices/nobody").status == 404)
  }

  @Test func explainReplaysTheLogForADevicesFixes() async throws {
    let fixes = try TestFixes.harborHour()
    _ = try await client.postFixes(TestFixes.ndjson(fixes.prefix(2000)))
    let answer = try await client.request(
      .GET, "/v1/devices/367000140/explain?to=2020-06-30T00:05:00Z")
    #expect(answer.status == 200)
    #expect(answer.header("Content-Type") == "application/x-ndjson")
    let lines = answer.body.split(separator: "\n")
    #expect(lines.count == 5)
    #expect(lines[0].hasPrefix(#"{"fix":{"device":"367000140","time":"2020-06-30T00:00:00Z""#))
    #expect(lines[0].contains(#""kind":"checkIn""#))
    let limited = try await client.request(.GET, "/v1/devices/367000140/explain?limit=2")
    #expect(limited.body.split(separator: "\n").count == 2)
    #expect(try await client.request(.GET, "/v1/devices/367000140/explain?from=soon").status == 400)
    #expect(try await client.request(.GET, "/v1/devices/367000140/explain?limit=0").status == 400)
  }

  @Test func deviceTagsAreSetDurablyAndShownWithTheDevice() async throws {
    let put = try await client.request(
      .PUT, "/v1/devices/tug/tags", body: Array(#"{"tags":["tug","harbour","tug"]}"#.utf8))
    #expect(put.status == 200)
    let device = try await client.request(.GET, "/v1/devices/tug")
    #expect(device.body.hasSuffix(#""tags":["harbour","tug"]}"# + "\n"))
    for bad in [#"{"tags":"tug"}"#, #"{"tags":[""]}"#, #"["tug"]"#, #"{"tags":["a"],"x":1}"#] {
      #expect(try await client.request(.PUT, "/v1/devices/tug/tags", body: Array(bad.utf8)).status == 400)
    }
  }

  @Test func metricsCountFixesEventsAndTheLog() async throws {
    let fixes = try TestFixes.harborHour()
    _ = try await client.postFixes(TestFixes.ndjson(fixes))
    let metrics = try await client.request(.GET, "/metrics")
    #expect(metrics.status == 200)
    #expect(metrics.body.contains("fenced_fixes_accepted_total 8687"))
    #expect(metrics.body.contains("fenced_fixes_rejected_total{reason=\"duplicate\"} 2"))
    #expect(metrics.body.contains("fenced_events_total{kind=\"checkIn\"}"))
    #expect(metrics.body.contains("fenced_event_log_head"))
    #expect(metrics.body.contains("fenced_commit_duration_seconds_bucket"))
    #expect(metrics.body.contains("fenced_devices 295"))
    // No snapshot yet (one every 500 commands): none has taken any time.
    #expect(metrics.body.contains("\nfenced_last_snapshot_duration_seconds 0.0\n"))
  }

  @Test func concurrentZoneChangesAndIngestLeaveALogThatReplaysExactly() async throws {
    let fixes = try TestFixes.harborHour()
    let batches = TestFixes.batches(fixes, size: 500)
    let zonesText = try String(contentsOfFile: fixturePath("zones/nyharbor-zones.geojson"), encoding: .utf8)
    let client = self.client
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for (index, batch) in batches.enumerated() {
        group.addTask { try await client.postFixes(batch, key: "c\(index)").status }
        if index % 3 == 0 {
          group.addTask {
            try await client.request(.PUT, "/v1/zones", body: Array(zonesText.utf8)).status
          }
        }
      }
      var statuses: [Int] = []
      for try await status in group { statuses.append(status) }
      return statuses
    }
    #expect(statuses.allSatisfy { $0 == 200 })
    let events = try await client.allEvents()
    // A restart replays every command and checks its events: the log is consistent.
    #expect(daemon.terminate() == 0)
    let restarted = try DaemonProcess(dataDirectory: directory, arguments: ["--zones", TestFixes.harborZones])
    defer { restarted.kill() }
    #expect(try await DaemonClient(baseURL: restarted.baseURL).allEvents() == events)
  }

  @Test func usageErrorsExit2AndBadZoneFilesExit1WithoutTouchingTheStore() throws {
    let usage = try DaemonProcess.runToExit(["serve", "--data", directory + "-x", "--listen", "nowhere"])
    #expect(usage.status == 2)
    #expect(usage.standardError.contains("--listen"))
    let radius = try DaemonProcess.runToExit(["serve", "--data", directory + "-x", "--radius", "5"])
    #expect(radius.status == 2)
    let badZones = try DaemonProcess.runToExit([
      "serve", "--data", directory + "-y", "--zones", "Fixtures/polygons/tz-world-magadan-invalid.geojson",
    ])
    #expect(badZones.status == 1)
    #expect(badZones.standardError.contains("tz-world-magadan-invalid.geojson"))
    #expect(!FileManager.default.fileExists(atPath: directory + "-y"))
    // Where the store is: --data or --postgres, one of them, and a PostgreSQL URL that reads.
    let nowhere = try DaemonProcess.runToExit(["serve"])
    #expect(nowhere.status == 2)
    #expect(nowhere.standardError.contains("Give --data DIR (SQLite) or --postgres URL"))
    let both = try DaemonProcess.runToExit([
      "serve", "--data", directory + "-z", "--postgres", "postgres://u@127.0.0.1/d",
    ])
    #expect(both.status == 2)
    #expect(both.standardError.contains("--data and --postgres exclude each other"))
    let badURL = try DaemonProcess.runToExit(["serve", "--postgres", "postgres://u:secret@127.0.0.1/"])
    #expect(badURL.status == 2)
    #expect(badURL.standardError.contains("names no database"))
    #expect(!badURL.standardError.contains("secret"))
    // A server that is not there: exit 1 (bad input), naming it without the password.
    let unreachable = try DaemonProcess.runToExit(["serve", "--postgres", "postgres://u:secret@127.0.0.1:1/d"])
    #expect(unreachable.status == 1)
    #expect(unreachable.standardError.contains("cannot connect to PostgreSQL at postgres://u:***@127.0.0.1:1/d"))
    #expect(!unreachable.standardError.contains("secret"))
  }
}

/// SIGTERM with an event stream open: it ends, a snapshot is written, exit 0.
@Suite(.serialized, .offThePool)
struct GracefulShutdownTests {
  @Test func openStreamsEndAndTheDaemonExitsZeroWithASnapshot() async throws {
    let directory = DaemonProcess.temporaryDirectory("shutdown")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let daemon = try DaemonProcess(dataDirectory: directory, arguments: ["--zones", TestFixes.harborZones])
    let client = DaemonClient(baseURL: daemon.baseURL)
    _ = try await client.postFixes(TestFixes.ndjson(try TestFixes.harborHour().prefix(2000)))
    let stream = try RawConnection(port: daemon.port)
    stream.send("GET /v1/events/stream HTTP/1.1\r\nHost: x\r\n\r\n")
    // The stream is open once its first comment arrived.
    #expect(stream.read(until: ": fenced events after 0").contains("200 OK"))
    let start = ContinuousClock.now
    #expect(daemon.terminate() == 0)
    #expect(ContinuousClock.now - start < .seconds(30))
    #expect(daemon.standardError.contains("stopped"))
    let restarted = try DaemonProcess(dataDirectory: directory, arguments: ["--zones", TestFixes.harborZones])
    defer { restarted.kill() }
    #expect(restarted.standardError.contains("commandsReplayed=0"))
  }
}

/// `--clock wall`: a dwell due by the wall clock fires without any later fix or advance.
@Suite(.serialized, .offThePool)
struct WallClockTests {
  @Test func aDwellDueByTheWallClockFiresWithoutAnotherFix() async throws {
    let directory = DaemonProcess.temporaryDirectory("wall")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let daemon = try DaemonProcess(dataDirectory: directory, arguments: ["--clock", "wall"])
    defer { daemon.kill() }
    let client = DaemonClient(baseURL: daemon.baseURL)
    let depot = """
      {"type":"FeatureCollection","features":[{"type":"Feature","id":"depot",
      "properties":{"radius":150,"dwell":1},"geometry":{"type":"Point","coordinates":[-74.0,40.7]}}]}
      """
    #expect(try await client.request(.PUT, "/v1/zones", body: Array(depot.utf8)).status == 200)
    let now = RFC3339.format(Timestamp(secondsSinceEpoch: Date().timeIntervalSince1970.rounded(.down)))
    let fix = #"{"device":"van","time":"\#(now)","lat":40.7,"lon":-74.0}"#
    let answer = try await client.postFixes(fix)
    #expect(answer.body.contains("\"events\":1,"))  // the check-in
    let dwell = try await client.request(.GET, "/v1/events?after=1&wait=30")
    #expect(dwell.body.hasPrefix("{\"seq\":2,"))
    #expect(dwell.body.contains("\"kind\":\"dwell\""))
  }
}
