import FenceEngine
import FenceFormats
import FenceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The HTTP API of the scaled-out `fenced` (`Docs/Daemon.md`, "Several processes"): its usage
/// errors, the answers of commands with and without `?wait=events`, the `Fence-Cursor`, the
/// requests it refuses, and webhook delivery across a failover.
@Suite(
  .serialized, .offThePool,
  .enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct ClusterAPITests {

  @Test func usageErrorsAndAStoreOfTheOtherKindAreRefusedWithExitStatus2() async throws {
    let database = try TestPostgres.createDatabase("cluster_usage")
    defer { TestPostgres.dropDatabase(database.name) }
    let cases: [([String], String)] = [
      (["serve", "--data", "/tmp/x", "--partitions", "8"], "--partitions needs --postgres"),
      (["serve", "--postgres", database.url, "--partitions", "0"], "--partitions must be from 1 to 65536"),
      (["serve", "--postgres", database.url, "--partitions", "8", "--clock", "wall"], "--clock wall and --partitions exclude each other"),
      (["serve", "--postgres", database.url, "--partitions", "8", "--lease-seconds", "0.1"], "--lease-seconds must be from 0.5 to 600"),
    ]
    for (arguments, message) in cases {
      let run = try DaemonProcess.runToExit(arguments)
      #expect(run.status == 2, "\(arguments)")
      #expect(run.standardError.contains(message), "\(run.standardError)")
    }
    // A partitioned database is not opened by one process as its own, nor the reverse.
    let cluster = try DaemonProcess(
      dataDirectory: DaemonProcess.temporaryDirectory("usage"), arguments: ["--partitions", "4"],
      postgres: database.url)
    cluster.terminate()
    let single = try DaemonProcess.runToExit(["serve", "--postgres", database.url])
    #expect(single.status == 2)
    #expect(single.standardError.contains("the database holds a store scaled out over 4 partitions; start with --partitions 4"))
    let other = try TestPostgres.createDatabase("cluster_single")
    defer { TestPostgres.dropDatabase(other.name) }
    let one = try DaemonProcess(
      dataDirectory: DaemonProcess.temporaryDirectory("usage"), arguments: ["--zones", TestFixes.harborZones],
      postgres: other.url)
    one.terminate()
    let scaled = try DaemonProcess.runToExit(["serve", "--postgres", other.url, "--partitions", "4"])
    #expect(scaled.status == 2)
    #expect(scaled.standardError.contains("the database holds a single-process store (1 commands); scale out into a new database"))
    // Another partition count than the database's.
    let count = try DaemonProcess.runToExit(["serve", "--postgres", database.url, "--partitions", "8"])
    #expect(count.status == 2)
    #expect(count.standardError.contains("the store was created with 4 partitions; it cannot be started with 8"))
  }

  @Test func commandsAnswerWhenDurableOrOnceExecutedAndEventsReadBehindTheCursor() async throws {
    let database = try TestPostgres.createDatabase("cluster_api")
    defer { TestPostgres.dropDatabase(database.name) }
    let daemon = try DaemonProcess(
      dataDirectory: DaemonProcess.temporaryDirectory("api"),
      arguments: ["--partitions", "4", "--zones", TestFixes.harborZones], postgres: database.url)
    defer { daemon.terminate() }
    let client = DaemonClient(baseURL: daemon.baseURL)
    let fixes = try TestFixes.harborHour()
    let first = Array(fixes[..<600])
    // Once durable in the inboxes: the fixes received and where each part went.
    let plain = try await client.postFixes(TestFixes.ndjson(first), key: "k1")
    #expect(plain.status == 200)
    #expect(plain.body.hasPrefix("{\"received\":600,\"parts\":[{\"partition\":0,\"inboxSeq\":2},"))
    let again = try await client.postFixes(TestFixes.ndjson(first), key: "k1")
    #expect(again.body == plain.body)
    #expect(again.header("Idempotent-Replayed") == "true")
    // Waited for: the engine's counts added up over the parts, each part's seqs.
    let second = Array(fixes[600..<2000])
    let waited = try await client.request(
      .POST, "/v1/fixes?wait=events", body: Array(TestFixes.ndjson(second).utf8))
    #expect(waited.status == 200)
    guard case .object(let answer)? = try? JSONReader.parse(waited.body) else {
      Issue.record("not JSON: \(waited.body)")
      return
    }
    #expect(answer["received"] == .number(1400))
    #expect(answer["accepted"] == .number(1400))
    guard case .array(let parts)? = answer["parts"], case .number(let events)? = answer["events"] else {
      Issue.record("no parts: \(waited.body)")
      return
    }
    #expect(parts.count == 4)
    var partEvents = 0.0
    for part in parts {
      guard case .object(let object) = part, case .number(let count)? = object["events"] else { continue }
      partEvents += count
      #expect(object["inboxSeq"] == .number(3))
    }
    #expect(partEvents == events)
    #expect(try await client.request(.POST, "/v1/fixes?wait=soon", body: Array("".utf8)).status == 400)

    // Events: the merged log with its cursor; the cursor continues with nothing.
    let page = try await client.request(.GET, "/v1/events?after=0&limit=5")
    #expect(page.status == 200)
    let cursor = try #require(page.header("Fence-Cursor"))
    #expect(cursor.split(separator: ".").count == 4)
    #expect(page.body.split(separator: "\n").count == 5)
    // Read 5,000 at a time or all at once: the same events.
    let all = try await client.allEvents()
    let end = try await client.request(.GET, "/v1/events?after=0&limit=100000")
    #expect(all == end.body.split(separator: "\n").map(String.init))
    #expect(all.count >= Int(events) && Set(all).count == all.count)
    let rest = try await client.request(.GET, "/v1/events?after=\(end.header("Fence-Cursor")!)")
    #expect(rest.body.isEmpty)
    #expect(rest.header("Fence-Cursor") == end.header("Fence-Cursor"))
    // Server-sent events: every id is the cursor after its event; Last-Event-ID resumes.
    let connection = try RawConnection(port: daemon.port)
    connection.send("GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nLast-Event-ID: \(cursor)\r\n\r\n")
    let text = connection.readAll().replacingOccurrences(of: "\r\n", with: "\n")
    #expect(text.hasPrefix("HTTP/1.1 200"))
    let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
    let data = text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
    #expect(ids.count == all.count - 5)
    #expect(ids.last == end.header("Fence-Cursor"))
    #expect(Set(data) == Set(all.dropFirst(5)))
    for bad in ["1.2", "a.b.c.d", "-1.0.0.0", "1.2.3.4.5"] {
      let refused = try await client.request(.GET, "/v1/events?after=\(bad)")
      #expect(refused.status == 400, "\(bad)")
      #expect(refused.body.contains("after must be a Fence-Cursor of this store (4 seqs joined by dots) or 0"))
    }

    // Zone changes wait for every partition: counts, or the engine's refusal.
    let absent = try await client.request(.DELETE, "/v1/zones/no-such-zone")
    #expect(absent.status == 404)
    #expect(absent.body == "{\"error\":\"no zone \\\"no-such-zone\\\"\"}\n")
    let removed = try await client.request(.DELETE, "/v1/zones/narrows")
    #expect(removed.body == "{\"zones\":5,\"fences\":4,\"geolines\":1}\n")
    #expect(try await client.request(.PUT, "/v1/zones", body: Array("{}".utf8)).status == 400)
    let zones = try await client.request(.GET, "/v1/zones")
    #expect(zones.status == 200)
    #expect(!zones.body.contains("narrows-line"))

    // One process owns every partition: every device's state is here.
    let device = first[0].device
    let status = try await client.request(.GET, "/v1/devices/\(device)")
    #expect(status.status == 200)
    #expect(status.body.contains("\"device\":\"\(device)\""))
    let explained = try await client.request(.GET, "/v1/devices/\(device)/explain?limit=2")
    #expect(explained.status == 200)
    #expect(explained.body.split(separator: "\n").count == 2)
    // The owners' commands count in the metrics of the process that executed them.
    let metrics = try await client.request(.GET, "/metrics")
    #expect(metrics.body.contains("fenced_partitions_owned 4"))
    #expect(metrics.body.contains("fenced_fixes_accepted_total 2000"))
  }

  @Test func webhooksDeliverEveryEventAtLeastOnceAcrossAFailover() async throws {
    let receiver = try WebhookTests.Receiver(failures: 2)
    let database = try TestPostgres.createDatabase("cluster_webhook")
    defer { TestPostgres.dropDatabase(database.name) }
    let arguments =
      ClusterDrillTests.arguments() + ["--webhook", "http://127.0.0.1:\(receiver.port)/events"]
    let cluster = try ClusterDrillTests.Cluster(url: database.url, count: 2, arguments: arguments)
    defer { cluster.stopAll() }
    let fixes = try TestFixes.harborHour()
    let batches = TestFixes.batches(fixes, size: 400)
    for (index, batch) in batches.enumerated() {
      if index == batches.count / 2 { cluster.kill(0) }
      _ = try await ClusterDrillTests.send(
        cluster, startingAt: index, path: "/v1/fixes", body: batch, key: "b-\(index)")
    }
    let events = try await ClusterDrillTests.finish(cluster, end: fixes.last!.time, reader: 1)
    #expect(events.count == 57)
    let delivered = try await eventually { Set(receiver.received).isSuperset(of: events) }
    #expect(delivered, "delivered \(Set(receiver.received).intersection(events).count) of \(events.count)")
    #expect(Set(receiver.received).isSubset(of: events))
  }
}
