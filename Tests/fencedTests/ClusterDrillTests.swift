import FenceEngine
import FenceFormats
import FenceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The scale-out drills of issue 17 with real `fenced` processes on one PostgreSQL
/// (`fenced.md`, "Scale-out"): processes killed with SIGKILL at random moments and restarted,
/// one frozen with SIGSTOP past its lease, the server crashed under load, and zones replaced
/// while all ingest. In every drill the merged event log must be exactly `fencebench run`'s
/// events on the same fixes (same ids; no duplicate, none missing), each partition numbered
/// 1, 2, 3, … without gaps.
@Suite(
  .serialized, .offThePool,
  .enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct ClusterDrillTests {
  static let partitions = 8

  /// Several `fenced --partitions` processes on one database.
  final class Cluster: @unchecked Sendable {
    let url: String
    let arguments: [String]
    var processes: [DaemonProcess?]

    init(url: String, count: Int, arguments: [String]) throws {
      self.url = url
      self.arguments = arguments
      processes = Array(repeating: nil, count: count)
      for index in 0..<count { try start(index) }
    }

    func start(_ index: Int) throws {
      processes[index] = try DaemonProcess(
        dataDirectory: DaemonProcess.temporaryDirectory("cluster-\(index)"), arguments: arguments,
        postgres: url)
    }

    func kill(_ index: Int) {
      processes[index]?.kill()
      processes[index] = nil
    }

    var live: [Int] { processes.indices.filter { processes[$0] != nil } }

    func client(_ index: Int) -> DaemonClient { DaemonClient(baseURL: processes[index]!.baseURL) }

    func stopAll() {
      for index in live { processes[index]?.terminate() }
    }

    /// What each live process is doing: running or how it ended, and the end of its standard
    /// error (for a drill that failed: a process that died or hung says why there).
    var diagnostics: String {
      live.map { index -> String in
        let daemon = processes[index]!
        let state =
          daemon.process.isRunning
          ? "running"
          : "ended (\(daemon.process.terminationReason == .uncaughtSignal ? "signal" : "status") \(daemon.process.terminationStatus))"
        let lines = daemon.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        // A crash's own lines (an assertion, a fatal error, the backtrace's header) may lie
        // well before the tail when the backtrace is long.
        let crash = lines.enumerated().filter { _, line in
          ["Assertion failed", "Fatal error", "Precondition failed", "crashed:"].contains { line.contains($0) }
        }.prefix(10).map { "line \($0.offset + 1): \($0.element)" }
        return "process \(index) (pid \(daemon.pid), \(state))"
          + (crash.isEmpty ? "" : ", its crash lines:\n" + crash.joined(separator: "\n") + "\n")
          + ", its last lines:\n" + lines.suffix(40).joined(separator: "\n")
      }.joined(separator: "\n")
    }
  }

  /// Runs a drill's `body`; when it throws, the error is recorded with every process's state
  /// and log tail (and `extra`, such as the server's log), then thrown on.
  static func diagnosed<T>(
    _ cluster: Cluster, extra: () -> String = { "" }, _ body: () async throws -> T
  ) async throws -> T {
    do {
      return try await body()
    } catch {
      Issue.record("\(error)\n\(cluster.diagnostics)\n\(extra())")
      throw error
    }
  }

  static func arguments(zones: String = TestFixes.harborZones) -> [String] {
    ["--partitions", String(partitions), "--lease-seconds", "1", "--zones", zones, "--snapshot-every", "4"]
  }

  /// `fencebench run`'s events for `fixes` with the harbor zones.
  static func reference(_ fixes: [LocationFix], zones: String = TestFixes.harborZones) throws -> [String] {
    let fixFile = DaemonProcess.temporaryDirectory("fixes") + ".ndjson"
    let eventFile = DaemonProcess.temporaryDirectory("events") + ".ndjson"
    defer {
      try? FileManager.default.removeItem(atPath: fixFile)
      try? FileManager.default.removeItem(atPath: eventFile)
    }
    try TestFixes.ndjson(fixes).write(toFile: fixFile, atomically: true, encoding: .utf8)
    #expect(
      try CrashRecoveryTests.fencebench(["run", "--zones", zones, fixFile, "--events", eventFile, "--no-latency"]) == 0)
    return try String(contentsOfFile: eventFile, encoding: .utf8).split(separator: "\n").map(String.init)
  }

  /// A line of the merged log without its `"seq"` and `"partition"` (what fencebench writes).
  static func withoutNumbering(_ line: String) -> String {
    guard let id = line.range(of: "\"id\":") else { return line }
    return "{" + line[id.lowerBound...]
  }

  /// Checks the merged log: fencebench's events exactly, gapless per partition.
  static func expectReference(_ events: [String], _ reference: [String], _ context: String) {
    #expect(events.count == reference.count, "\(context)")
    #expect(Set(events).count == events.count, "\(context): duplicates")
    #expect(events.map(withoutNumbering).sorted() == reference.sorted(), "\(context)")
    var seqs: [Int: [Int]] = [:]
    for line in events {
      guard case .object(let object)? = try? JSONReader.parse(line),
        case .number(let seq)? = object["seq"], case .number(let partition)? = object["partition"]
      else {
        Issue.record("\(context): no seq or partition in \(line)")
        continue
      }
      seqs[Int(partition), default: []].append(Int(seq))
    }
    for (partition, list) in seqs {
      #expect(list.sorted() == Array(1...list.count), "\(context): partition \(partition)")
    }
  }

  /// Sends one command to the live processes in turn until one answers 200 (the same key every
  /// time); 202 (not executed within 30 s) and failures are sent again.
  static func send(
    _ cluster: Cluster, startingAt first: Int, path: String, body: String, key: String
  ) async throws -> String {
    for attempt in 0..<200 {
      let live = cluster.live
      guard !live.isEmpty else { throw DaemonFailure("no process is running") }
      let index = live[(first + attempt) % live.count]
      if let answer = try? await cluster.client(index).request(
        .POST, path, body: Array(body.utf8), headers: [("Idempotency-Key", key)])
      {
        if answer.status == 200 { return answer.body }
        #expect([202, 503].contains(answer.status), "\(key): \(answer.status) \(answer.body)")
      }
      usleep(100_000)
    }
    throw DaemonFailure("\(key) was never answered")
  }

  /// Ends a drill: the advance to the last fix's time, waited for (every partition executed
  /// it, so every earlier command too), then the merged log read from `reader`.
  static func finish(_ cluster: Cluster, end: Timestamp, reader: Int) async throws -> [String] {
    _ = try await send(
      cluster, startingAt: reader, path: "/v1/advance?wait=events",
      body: "{\"time\":\"\(RFC3339.format(end))\"}", key: "advance")
    return try await cluster.client(reader).allEvents()
  }

  @Test func threeProcessesKilledAtRandomMomentsAndRestartedGiveFencebenchsEvents() async throws {
    let fixes = try TestFixes.harborHour()
    let reference = try Self.reference(fixes)
    #expect(reference.count == 57)
    let database = try TestPostgres.createDatabase("cluster_kill")
    defer { TestPostgres.dropDatabase(database.name) }
    let cluster = try Cluster(url: database.url, count: 3, arguments: Self.arguments())
    defer { cluster.stopAll() }
    let batches = TestFixes.batches(fixes, size: 200)
    var random = SeededGenerator(seed: 17)
    var kills = 0
    var downSince: [Int: Int] = [:]
    for (index, batch) in batches.enumerated() {
      // Now and then one process is killed at a random moment of this batch's request.
      var killer: Task<Void, Never>?
      var victim: Int?
      if random.int(below: 3) == 0, cluster.live.count == 3 {
        let chosen = cluster.live[random.int(below: 3)]
        let pid = cluster.processes[chosen]!.pid
        let delay = UInt32(random.int(below: 30_000))
        victim = chosen
        killer = Task.detached {
          usleep(delay)
          Glibc.kill(pid, SIGKILL)
        }
      }
      _ = try await Self.send(cluster, startingAt: index, path: "/v1/fixes", body: batch, key: "batch-\(index)")
      if let killer, let victim {
        await killer.value
        cluster.kill(victim)
        kills += 1
        downSince[victim] = index
      }
      // A killed process comes back two batches later.
      for (process, since) in downSince where index - since >= 2 {
        try cluster.start(process)
        downSince[process] = nil
      }
    }
    #expect(kills >= 3, "killed only \(kills) times")
    for (process, _) in downSince { try cluster.start(process) }
    let events = try await Self.finish(cluster, end: fixes.last!.time, reader: 0)
    Self.expectReference(events, reference, "kill -9")
    // Every process serves the same merged log.
    for index in 1..<3 {
      #expect(try await cluster.client(index).allEvents().sorted() == events.sorted())
    }
  }

  @Test func aProcessFrozenPastItsLeaseWritesNothingWhenItResumes() async throws {
    let fixes = try TestFixes.harborHour()
    let reference = try Self.reference(fixes)
    let database = try TestPostgres.createDatabase("cluster_stop")
    defer { TestPostgres.dropDatabase(database.name) }
    let cluster = try Cluster(url: database.url, count: 2, arguments: Self.arguments())
    defer { cluster.stopAll() }
    let batches = TestFixes.batches(fixes, size: 200)
    let frozen = cluster.processes[0]!
    for (index, batch) in batches.enumerated() {
      if index == batches.count / 3 {
        Glibc.kill(frozen.pid, SIGSTOP)
      }
      // While frozen, only the other process is asked (it takes the partitions over).
      let first = index >= batches.count / 3 ? 1 : index
      _ = try await Self.send(
        cluster, startingAt: first, path: index >= batches.count / 3 ? "/v1/fixes?wait=events" : "/v1/fixes",
        body: batch, key: "batch-\(index)")
      if index == batches.count / 3 {
        // Held past its lease: the other process owns everything now.
        usleep(2_500_000)
      }
    }
    Glibc.kill(frozen.pid, SIGCONT)
    // It notices at its next pass: a lease run out by its own clock, a renewal refused, a write
    // refused on the fencing token, or (when the server had ended its session mid-transaction)
    // a query that got no answer within its writer's timeout (six lease times, at least 10 s).
    // How soon depends on the machine's load, so the drill waits for the notice, up to 60 s.
    let noticed = try await eventually(within: 60) {
      let log = frozen.standardError
      return log.contains("partition stopped") || log.contains("reason=lease expired")
        || log.contains("reason=lease taken over")
    }
    #expect(noticed, "the resumed process did not notice it lost its partitions")
    let events = try await Self.finish(cluster, end: fixes.last!.time, reader: 1)
    Self.expectReference(events, reference, "SIGSTOP")
  }

  @Test func postgresqlCrashedUnderLoadLosesNoAcknowledgedBatch() async throws {
    let fixes = try TestFixes.harborHour()
    let reference = try Self.reference(fixes)
    let server = try PrivatePostgres(repositoryRoot: DaemonProcess.repositoryRoot)
    defer { server.remove() }
    let cluster = try Cluster(url: server.url, count: 2, arguments: Self.arguments())
    defer { cluster.stopAll() }
    let batches = TestFixes.batches(fixes, size: 200)
    // Batches that took over five seconds to be acknowledged, for the diagnostics.
    var slow: [String] = []
    let events = try await Self.diagnosed(
      cluster, extra: { "slow batches: \(slow)\nthe server's last lines:\n\(server.logTail(lines: 30))" }
    ) {
      for (index, batch) in batches.enumerated() {
        if index == batches.count / 2 {
          // The crash comes while the other process still executes what was acknowledged.
          try server.crash()
          usleep(300_000)
          try server.start()
        }
        let started = ContinuousClock.now
        _ = try await Self.send(cluster, startingAt: index, path: "/v1/fixes", body: batch, key: "batch-\(index)")
        let took = ContinuousClock.now - started
        if took > .seconds(5) { slow.append("batch \(index) of \(batches.count): \(took)") }
      }
      return try await Self.finish(cluster, end: fixes.last!.time, reader: 0)
    }
    Self.expectReference(events, reference, "PostgreSQL crash")
  }

  /// The harbor zones without the anchorage (its feature and its zone's definition).
  static func zonesWithoutTheAnchorage() throws -> (text: String, zones: Int) {
    let data = try Data(contentsOf: URL(fileURLWithPath: fixturePath("zones/nyharbor-zones.geojson")))
    guard case .object(var collection) = try JSONReader.parse(String(decoding: data, as: UTF8.self)),
      case .array(let features)? = collection["features"],
      case .object(var definitions)? = collection["zones"]
    else { throw DaemonFailure("the harbor zones do not read") }
    collection["features"] = .array(Array(features.dropLast()))
    definitions["upper-bay-anchorage"] = nil
    collection["zones"] = .object(definitions)
    return (JSONWriter.string(.object(collection)), features.count - 1)
  }

  /// One process on SQLite given `batches` in order with the zone replacement before batch
  /// `position`, then the advance: the events (without seq) a scaled-out run must give when
  /// the replacement landed there.
  static func singleProcessRun(_ batches: [String], replacement: String, position: Int, end: Timestamp)
    async throws -> [String]
  {
    let single = try DaemonProcess(
      dataDirectory: DaemonProcess.temporaryDirectory("zones-single"),
      arguments: ["--zones", TestFixes.harborZones])
    defer { single.terminate() }
    let client = DaemonClient(baseURL: single.baseURL)
    for (index, batch) in batches.enumerated() {
      if index == position {
        #expect(try await client.request(.PUT, "/v1/zones", body: Array(replacement.utf8)).status == 200)
      }
      #expect(try await client.postFixes(batch).status == 200)
    }
    #expect(try await client.advance(to: end).status == 200)
    return try await client.allEvents().map(TestFixes.withoutSeq)
  }

  @Test func zonesReplacedWhileThreeProcessesIngestReachEveryPartitionAtOnePlace() async throws {
    let fixes = try TestFixes.harborHour()
    let batches = TestFixes.batches(fixes, size: 200)
    let end = fixes.last!.time
    let smaller = try Self.zonesWithoutTheAnchorage()
    let middle = batches.count / 2
    let database = try TestPostgres.createDatabase("cluster_zones")
    defer { TestPostgres.dropDatabase(database.name) }
    let cluster = try Cluster(url: database.url, count: 3, arguments: Self.arguments())
    defer { cluster.stopAll() }
    // The batches go to the three processes in turn; batch `middle` and the replacement are
    // sent at the same moment to two processes.
    for index in 0..<middle {
      _ = try await Self.send(cluster, startingAt: index, path: "/v1/fixes", body: batches[index], key: "b-\(index)")
    }
    async let batch = Self.send(
      cluster, startingAt: 0, path: "/v1/fixes?wait=events", body: batches[middle], key: "b-\(middle)")
    async let replace = cluster.client(2).request(.PUT, "/v1/zones", body: Array(smaller.text.utf8))
    let (_, replaced) = try await (batch, replace)
    #expect(replaced.status == 200, "\(replaced.body)")
    #expect(replaced.body.hasPrefix("{\"zones\":\(smaller.zones),"), "\(replaced.body)")
    for index in (middle + 1)..<batches.count {
      _ = try await Self.send(cluster, startingAt: index, path: "/v1/fixes", body: batches[index], key: "b-\(index)")
    }
    let events = try await Self.finish(cluster, end: end, reader: 1)

    // Every partition saw the replacement at the same place: before the concurrent batch, or
    // after it. The run equals one process's with the replacement at that place.
    let before = try await Self.singleProcessRun(batches, replacement: smaller.text, position: middle, end: end)
    let after = try await Self.singleProcessRun(batches, replacement: smaller.text, position: middle + 1, end: end)
    let stripped = events.map(Self.withoutNumbering).sorted()
    #expect(stripped == before.sorted() || stripped == after.sorted())
    Self.expectReference(events, stripped == before.sorted() ? before : after, "zone replace")
    // Every process that owns a partition serves the new zone set.
    for index in 0..<3 {
      let zones = try await cluster.client(index).request(.GET, "/v1/zones")
      #expect(zones.status == 200 || zones.status == 503)
      if zones.status == 200 {
        #expect(zones.body.components(separatedBy: "\"Feature\"").count - 1 == smaller.zones)
      }
    }
  }
}
