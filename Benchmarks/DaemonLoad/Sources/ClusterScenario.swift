import ArgumentParser
import AsyncHTTPClient
import FenceEngine
import FenceFormats
import Foundation
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// `DaemonLoad cluster`: K `fenced serve --postgres URL --partitions P` processes on one empty
/// database, each fed by one client of its own.
///
/// 1. Start: every process spawned at once; wait until each listens, until the leases are
///    balanced (every partition leased, none held beyond a fair share), and until a first
///    `POST /v1/advance?wait=events` (before the first fix) is answered 200: the zone files'
///    replacement was executed in every partition.
/// 2. Acks: client `c` sends its devices' batches to process `c`, one request at a time, in
///    time order (each device belongs to one client, so its fixes stay in order); plain
///    `POST /v1/fixes`, answered once the batch's parts are durable in the inboxes.
/// 3. Drain: right after the last ack, `POST /v1/advance?wait=events` to the last fix's time:
///    answered once every partition executed everything before it.
/// 4. Idle latency: per batch size, requests one at a time, round robin over the processes: a
///    plain submit (timed), the same batch again with its key and `?wait=events` (untimed:
///    it returns once that batch was executed, so the next request finds the cluster idle),
///    then a new batch with `?wait=events` (timed).
/// 5. SIGTERM to every process; their standard error is kept and searched for errors.
struct ClusterCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cluster",
    abstract: "Several scaled-out fenced processes on one empty PostgreSQL database: acks, drain, idle latency.")

  @OptionGroup var common: CommonOptions

  @Option(help: ArgumentHelp("An empty PostgreSQL database for this run (no fk_ tables).", valueName: "url"))
  var postgresURL: String

  @Option(help: ArgumentHelp("fenced processes (and clients, one per process).", valueName: "K"))
  var processes: Int = 2

  @Option(help: ArgumentHelp("fenced --partitions.", valueName: "P"))
  var partitions: Int = 64

  @Option(help: ArgumentHelp("fenced --lease-seconds.", valueName: "seconds"))
  var leaseSeconds: Double = 5

  @Option(help: ArgumentHelp("Fixes per request in the timed part.", valueName: "N"))
  var batch: Int = 1000

  @Option(help: ArgumentHelp("Fixes to send in the timed part (the track file repeats in later laps).", valueName: "N"))
  var fixes: Int = 300_000

  @Option(help: "How devices are split between the clients: devices (dealt one by one by fix count: every batch touches most partitions) or partitions (whole partitions dealt: a client's batches touch only its partitions).")
  var split: Split = .devices

  @Option(help: ArgumentHelp("Batch sizes of the idle latency phase, comma-separated; empty for none.", valueName: "list"))
  var latencySizes: String = "1,100,1000"

  @Option(help: ArgumentHelp("Requests of each kind and size in the idle latency phase.", valueName: "N"))
  var latencySamples: Int = 50

  @Option(help: ArgumentHelp("The psql client (queries of the database between the timed parts).", valueName: "path"))
  var psql: String = "psql"

  @Option(help: ArgumentHelp("Keep the processes' standard output and error here (default: --work-directory).", valueName: "dir"))
  var logDirectory: String?

  enum Split: String, ExpressibleByArgument, CaseIterable {
    case devices, partitions
  }

  var sizes: [Int] { latencySizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

  func validate() throws {
    guard processes >= 1, processes <= 32 else { throw ValidationError("--processes is from 1 to 32") }
    guard (1...65_536).contains(partitions) else { throw ValidationError("--partitions is from 1 to 65536") }
    guard batch >= 1, fixes >= batch else { throw ValidationError("--batch must be at least 1 and --fixes at least --batch") }
    guard latencySamples >= 0 else { throw ValidationError("--latency-samples must be 0 or more") }
    guard sizes.allSatisfy({ $0 >= 1 }),
      sizes.count == latencySizes.split(separator: ",").count
    else { throw ValidationError("--latency-sizes is a comma-separated list of positive sizes") }
  }

  func run() async throws {
    let data = try TrackData(path: common.trackPath)
    note("read \(data.fixes.count) fixes of \(data.deviceCount) devices from \(common.trackPath) in \(String(format: "%.2f", data.readSeconds)) s")
    let partitionCount = partitions
    let group: ((String) -> String)? =
      split == .partitions
      ? { String(ShardedEvaluator.shard(forDevice: $0, shardCount: partitionCount)) } : nil
    let plan = LoadPlan(data: data, fixCount: fixes, batchSize: batch, clients: processes, group: group)
    note("encoded \(plan.fixCount) fixes as \(plan.batchCount) NDJSON batches (\(plan.bodyBytes / 1_048_576) MiB) for \(processes) client(s), split by \(split.rawValue), in \(String(format: "%.2f", plan.encodeSeconds)) s")

    let probe = PostgresProbe(url: postgresURL, psql: psql)
    let tables = try probe.integers("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'fk\\_%'")
    guard tables.first == 0 else { throw LoadFailure("\(postgresURL) is not empty (fk_ tables): give a new database") }
    let postmaster = probe.postmasterPID()
    if postmaster == nil { note("cannot read the server's postmaster.pid: no server CPU figures") }
    let logs = logDirectory ?? common.workDirectory
    try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
    let runName = "cluster-k\(processes)-p\(partitions)-b\(batch)-\(split.rawValue)-\(UUID().uuidString.prefix(8).lowercased())"
    let zones = common.zoneArguments
    let arguments =
      zones.arguments + [
        "--postgres", postgresURL, "--partitions", String(partitions), "--lease-seconds", String(leaseSeconds),
      ] + common.fencedArgument
    let loadBefore = loadAverage()
    let client = makeHTTPClient()
    var daemons: [FencedProcess] = []
    do {
      // 1. Start.
      let spawned = ContinuousClock.now
      for index in 0..<processes {
        daemons.append(
          try FencedProcess(
            binary: common.fenced, dataDirectory: (logs as NSString).appendingPathComponent("\(runName)-p\(index)"),
            arguments: arguments, environment: common.environment))
      }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for daemon in daemons { group.addTask { try await daemon.waitUntilHealthy(client: client, timeout: 120) } }
        try await group.waitForAll()
      }
      let listeningSeconds = (ContinuousClock.now - spawned).seconds
      let share = (partitions + processes - 1) / processes
      let balanceDeadline = ContinuousClock.now + .seconds(120)
      while true {
        let balance = try probe.leaseBalance()
        if balance.owners == processes, balance.held == partitions, balance.most <= share { break }
        if let gone = daemons.first(where: { !$0.process.isRunning }) {
          throw LoadFailure("fenced \(gone.pid) exited (\(gone.process.terminationStatus)) before the leases were balanced")
        }
        guard ContinuousClock.now < balanceDeadline else {
          throw LoadFailure("the leases were not balanced within 120 s (last: \(balance))")
        }
        try await Task.sleep(for: .milliseconds(100))
      }
      let balancedSeconds = (ContinuousClock.now - spawned).seconds
      let balancedOffsets = daemons.map { fileSize($0.errorPath) }
      let firstTime = data.fix(at: 0).time.microsecondsSinceEpoch
      _ = try await advance(
        client: client, baseURL: daemons[0].baseURL,
        to: Timestamp(microsecondsSinceEpoch: firstTime - 1_000_000), key: "\(runName)-ready")
      let readySeconds = (ContinuousClock.now - spawned).seconds
      for daemon in daemons { try await warmConnections(1, client: client, baseURL: daemon.baseURL) }
      note("\(processes) fenced listening after \(seconds(listeningSeconds)) s, leases balanced after \(seconds(balancedSeconds)) s, zones executed everywhere after \(seconds(readySeconds)) s")

      // 2. Acks.
      let databaseBefore = try probe.walAndTransactions()
      let serverBefore = postmaster.map(serverCPUSeconds)
      let fencedBefore = fencedCPU(daemons)
      let ownBefore = ownCPUSeconds()
      let start = ContinuousClock.now
      let outcomes = try await withThrowingTaskGroup(of: [Submitted].self) { group in
        for (index, batches) in plan.batchesPerClient.enumerated() {
          let baseURL = daemons[index].baseURL
          group.addTask {
            var list: [Submitted] = []
            list.reserveCapacity(batches.count)
            for (number, batch) in batches.enumerated() {
              let answer = try await post(
                client: client, url: baseURL + "/v1/fixes", body: batch.body, contentType: "application/x-ndjson",
                key: "\(runName)-c\(index)-b\(number)")
              guard answer.status == 200 else {
                throw LoadFailure("batch \(number) of client \(index): \(answer.status) \(answer.text.prefix(500))")
              }
              list.append(Submitted(answer: answer, fixCount: batch.fixCount, parts: answer.partCount))
            }
            return list
          }
        }
        var all: [Submitted] = []
        for try await list in group { all += list }
        return all
      }
      let lastAck = outcomes.map(\.answer.answered).max() ?? start
      let lastAckDate = outcomes.map(\.answer.answeredDate).max() ?? Date()
      let fencedAtAck = fencedCPU(daemons)
      let serverAtAck = postmaster.map(serverCPUSeconds)
      let ackSeconds = (lastAck - start).seconds
      let acknowledged = outcomes.reduce(0) { $0 + $1.fixCount }
      let parts = outcomes.reduce(0) { $0 + $1.parts }

      // 3. Drain.
      let lastTime = data.fix(at: fixes - 1).time
      let drainTimeouts = try await advance(client: client, baseURL: daemons[0].baseURL, to: lastTime, key: "\(runName)-drain")
      let drained = ContinuousClock.now
      let fencedAfter = fencedCPU(daemons)
      let serverAfter = postmaster.map(serverCPUSeconds)
      let ownAfter = ownCPUSeconds()
      let drainSeconds = (drained - lastAck).seconds
      let totalSeconds = (drained - start).seconds
      let ackLatency = Percentiles(outcomes.map(\.answer.milliseconds))
      note(
        "acks: \(acknowledged) fixes in \(outcomes.count) requests (\(parts) parts), \(Int(Double(acknowledged) / ackSeconds)) fixes/s, p50 \(ms(ackLatency(50))) ms, p99 \(ms(ackLatency(99))) ms; drain \(seconds(drainSeconds)) s; with execution \(Int(Double(acknowledged) / totalSeconds)) fixes/s"
      )
      let databaseAfter = try? probe.walAndTransactions()
      let stored = try? probe.numbers(
        """
        SELECT
          (SELECT count(*) FROM fk_inbox_done WHERE done_at > to_timestamp(\(lastAckDate.timeIntervalSince1970))),
          (SELECT coalesce(sum(octet_length(payload)), 0) FROM fk_inbox WHERE kind = 1),
          (SELECT coalesce(sum(octet_length(payload)), 0) FROM fk_commands WHERE kind = 1),
          (SELECT count(*) FROM fk_events),
          (SELECT coalesce(sum(octet_length(body)), 0) FROM fk_events),
          (SELECT coalesce(sum((answer::json->>'accepted')::bigint), 0) FROM fk_commands WHERE kind = 1),
          (SELECT coalesce(sum(j.value::bigint), 0) FROM fk_commands c, json_each_text(c.answer::json->'rejected') AS j
            WHERE c.kind = 1),
          pg_database_size(current_database()),
          (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.done_at - i.received_at)) * 1000
            FROM fk_inbox i JOIN fk_inbox_done d USING (partition, seq) WHERE i.kind = 1),
          (SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.done_at - i.received_at)) * 1000
            FROM fk_inbox i JOIN fk_inbox_done d USING (partition, seq) WHERE i.kind = 1)
        """)
      if stored == nil { note("the database query after the drain failed: no stored-byte figures") }
      func value(_ index: Int) -> Double? {
        guard let stored, index < stored.count else { return nil }
        return stored[index]
      }
      let executedAfterLastAck = value(0).map { Int($0) }

      // 4. Idle latency.
      var latency: [ClusterLatency] = []
      var cursor = fixes
      for size in sizes where latencySamples > 0 {
        var plain: [Double] = []
        var waited: [Double] = []
        var partTotal = 0
        var incomplete = 0
        for sample in 0..<latencySamples {
          let baseURL = daemons[sample % processes].baseURL
          let first = fixBatch(data, from: cursor, count: size)
          cursor += size
          let key = "\(runName)-l\(size)-\(sample)"
          let answer = try await post(
            client: client, url: baseURL + "/v1/fixes", body: first, contentType: "application/x-ndjson", key: key + "a")
          guard answer.status == 200 else { throw LoadFailure("latency batch: \(answer.status) \(answer.text.prefix(300))") }
          plain.append(answer.milliseconds)
          partTotal += answer.partCount
          try await settle(client: client, url: baseURL + "/v1/fixes?wait=events", body: first, key: key + "a")
          let second = fixBatch(data, from: cursor, count: size)
          cursor += size
          let waitedAnswer = try await post(
            client: client, url: baseURL + "/v1/fixes?wait=events", body: second, contentType: "application/x-ndjson",
            key: key + "b")
          if waitedAnswer.status == 202 {
            incomplete += 1
            try await settle(client: client, url: baseURL + "/v1/fixes?wait=events", body: second, key: key + "b")
          } else if waitedAnswer.status != 200 {
            throw LoadFailure("latency batch with ?wait=events: \(waitedAnswer.status) \(waitedAnswer.text.prefix(300))")
          }
          waited.append(waitedAnswer.milliseconds)
        }
        let p = Percentiles(plain)
        let w = Percentiles(waited)
        latency.append(
          ClusterLatency(
            batchSize: size, samples: latencySamples, partsMean: Double(partTotal) / Double(latencySamples),
            plainP50: p(50), plainP90: p(90), plainP99: p(99), waitP50: w(50), waitP90: w(90), waitP99: w(99),
            waitMax: w.max, waitIncomplete: incomplete))
        note("idle, \(size)-fix batches: plain p50 \(ms(p(50))) ms, p99 \(ms(p(99))) ms; ?wait=events p50 \(ms(w(50))) ms, p99 \(ms(w(99))) ms\(incomplete > 0 ? ", \(incomplete) answered 202" : "")")
      }

      // 5. Stop.
      let peaks = daemons.map { $0.memory().peakMiB }
      let stopOffsets = daemons.map { fileSize($0.errorPath) }
      let stopping = ContinuousClock.now
      for daemon in daemons where daemon.process.isRunning { kill(daemon.pid, SIGTERM) }
      let stopDeadline = ContinuousClock.now + .seconds(120)
      while daemons.contains(where: { $0.process.isRunning }), ContinuousClock.now < stopDeadline {
        try await Task.sleep(for: .milliseconds(5))
      }
      let stopSeconds = (ContinuousClock.now - stopping).seconds
      for daemon in daemons where daemon.process.isRunning {
        note("fenced \(daemon.pid) still running 120 s after SIGTERM: SIGKILL")
        daemon.kill9()
      }
      for daemon in daemons { daemon.process.waitUntilExit() }
      let statuses = daemons.map { $0.process.terminationStatus }
      let scan = scanLogs(daemons, from: balancedOffsets, to: stopOffsets)
      note("stopped in \(seconds(stopSeconds)) s, exit statuses \(statuses); logs: \(scan.errors) error lines, \(scan.warnings) warning lines, \(scan.moves) partition moves after balancing (\(logs)/\(runName)-p*.stderr.log)")
      for line in scan.samples { note("  \(line)") }
      try await client.shutdown()

      let figures = ClusterFigures(
        processes: processes, partitions: partitions, leaseSeconds: leaseSeconds, batchSize: batch,
        fixes: fixes, clients: processes, split: split.rawValue, listeningSeconds: listeningSeconds,
        balancedSeconds: balancedSeconds, readySeconds: readySeconds, requests: outcomes.count,
        fixesAcknowledged: acknowledged, ackSeconds: ackSeconds, ackFixesPerSecond: Double(acknowledged) / ackSeconds,
        ackP50: ackLatency(50), ackP90: ackLatency(90), ackP99: ackLatency(99), ackMax: ackLatency.max,
        parts: parts, drainSeconds: drainSeconds, totalSeconds: totalSeconds,
        totalFixesPerSecond: Double(acknowledged) / totalSeconds, drainTimeouts: drainTimeouts,
        executedAfterLastAck: executedAfterLastAck,
        drainPartsPerSecond: executedAfterLastAck.map { Double($0) / drainSeconds },
        inboxDelayP50: value(8), inboxDelayP99: value(9),
        fencedCPUAck: fencedAtAck - fencedBefore, fencedCPUDrain: fencedAfter - fencedAtAck,
        serverCPUAck: serverBefore.flatMap { before in serverAtAck.map { $0 - before } },
        serverCPUDrain: serverAtAck.flatMap { atAck in serverAfter.map { $0 - atAck } },
        clientCPU: (ownAfter.user + ownAfter.system) - (ownBefore.user + ownBefore.system), peakRSSMiB: peaks,
        walBytes: databaseAfter.map { $0.walBytes - databaseBefore.walBytes },
        writeTransactions: databaseAfter.map { $0.nextTransaction - databaseBefore.nextTransaction },
        inboxPayloadBytes: value(1).map { Int64($0) }, commandPayloadBytes: value(2).map { Int64($0) },
        eventBodyBytes: value(4).map { Int64($0) }, databaseMiB: value(7).map { $0 / 1_048_576 },
        accepted: value(5).map { Int($0) }, rejected: value(6).map { Int($0) }, events: value(3).map { Int($0) },
        latency: latency, stopSeconds: stopSeconds, exitStatuses: statuses, logErrorLines: scan.errors,
        logWarningLines: scan.warnings, logErrorSamples: scan.samples, movesAfterBalance: scan.moves,
        logDirectory: logs)
      try common.write(
        Record(
          kind: "cluster",
          label: common.label ?? "cluster k\(processes) p\(partitions) b\(batch)\(split == .devices ? "" : " split \(split.rawValue)")",
          date: isoNow(), loadBefore: loadBefore, loadAfter: loadAverage(), zones: zones.name,
          tracks: common.trackPath, cluster: figures))
    } catch {
      for daemon in daemons { daemon.kill9() }
      for (index, daemon) in daemons.enumerated() {
        note("fenced \(index) (\(daemon.errorPath)):\n\(daemon.standardError.suffix(2000))")
      }
      try? await client.shutdown()
      throw error
    }
  }
}

// MARK: - Requests

/// One answered request.
struct ClusterAnswer: Sendable {
  var status: UInt
  var body: ByteBuffer
  var sent: ContinuousClock.Instant
  var answered: ContinuousClock.Instant
  var answeredDate: Date

  var milliseconds: Double { (answered - sent).seconds * 1000 }
  var text: String { String(buffer: body) }

  /// The `parts` of a scaled-out answer (0 when there are none).
  var partCount: Int {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
      let parts = object["parts"] as? [Any]
    else { return 0 }
    return parts.count
  }
}

/// A fix batch of the timed part, answered.
struct Submitted: Sendable {
  var answer: ClusterAnswer
  var fixCount: Int
  var parts: Int
}

/// `POST url` with an `Idempotency-Key`, timed from the request's start to the whole answer read.
func post(client: HTTPClient, url: String, body: ByteBuffer, contentType: String, key: String) async throws
  -> ClusterAnswer
{
  var request = HTTPClientRequest(url: url)
  request.method = .POST
  request.headers.add(name: "Content-Type", value: contentType)
  request.headers.add(name: "Idempotency-Key", value: key)
  request.body = .bytes(body)
  let sent = ContinuousClock.now
  let response = try await client.execute(request, timeout: .seconds(300))
  let answer = try await response.body.collect(upTo: 16 << 20)
  return ClusterAnswer(
    status: response.status.code, body: answer, sent: sent, answered: ContinuousClock.now, answeredDate: Date())
}

/// `POST /v1/advance?wait=events` to `time`, sent again with its key while answered 202; returns
/// how many 202 answers came.
func advance(client: HTTPClient, baseURL: String, to time: Timestamp, key: String) async throws -> Int {
  let body = ByteBuffer(string: "{\"time\":\"\(RFC3339.format(time))\"}")
  var timeouts = 0
  while true {
    let answer = try await post(
      client: client, url: baseURL + "/v1/advance?wait=events", body: body, contentType: "application/json", key: key)
    if answer.status == 200 { return timeouts }
    guard answer.status == 202, timeouts < 40 else {
      throw LoadFailure("POST /v1/advance?wait=events: \(answer.status) \(answer.text.prefix(500))")
    }
    timeouts += 1
    note("advance still executing after \(timeouts * 30) s")
  }
}

/// Sends a batch already submitted again, with its key and `?wait=events`: the answer comes
/// once its parts were executed.
func settle(client: HTTPClient, url: String, body: ByteBuffer, key: String) async throws {
  for _ in 0..<40 {
    let answer = try await post(client: client, url: url, body: body, contentType: "application/x-ndjson", key: key)
    if answer.status == 200 { return }
    guard answer.status == 202 else { throw LoadFailure("settling a batch: \(answer.status) \(answer.text.prefix(300))") }
  }
  throw LoadFailure("a batch was not executed within 20 minutes")
}

/// The NDJSON of `count` fixes of the stream from `start`.
func fixBatch(_ data: TrackData, from start: Int, count: Int) -> ByteBuffer {
  var text = ""
  for index in start..<(start + count) { TrackData.appendNDJSON(data.fix(at: index), to: &text) }
  return ByteBuffer(string: text)
}

// MARK: - Processes and logs

/// CPU seconds (user + system) of every process so far.
func fencedCPU(_ daemons: [FencedProcess]) -> Double {
  daemons.reduce(0) { total, daemon in
    let cpu = daemon.cpuSeconds()
    return total + cpu.user + cpu.system
  }
}

func fileSize(_ path: String) -> Int {
  ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// The processes' standard error: lines at level error or critical (or a runtime's fatal
/// error) and at warning, in the whole log; the first error lines; and the partitions taken or
/// dropped between two offsets of each log (after the leases were balanced, before the stop).
func scanLogs(_ daemons: [FencedProcess], from: [Int], to: [Int]) -> (
  errors: Int, warnings: Int, samples: [String], moves: Int
) {
  var errors = 0
  var warnings = 0
  var samples: [String] = []
  var moves = 0
  for (index, daemon) in daemons.enumerated() {
    let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: daemon.errorPath))) ?? Data())
    // swift-log's stream handler: "<time> <level> <label> :<metadata> [<source>] <message>".
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      let words = line.split(separator: " ", maxSplits: 2)
      let level = words.count > 1 ? words[1] : ""
      if level == "error" || level == "critical" || line.lowercased().contains("fatal error") {
        errors += 1
        if samples.count < 8 { samples.append("p\(index): " + String(line.prefix(400))) }
      } else if level == "warning" {
        warnings += 1
      }
    }
    let window = bytes[min(from[index], bytes.count)..<min(to[index], bytes.count)]
    for line in String(decoding: window, as: UTF8.self).split(separator: "\n")
    where line.hasSuffix("partition taken") || line.hasSuffix("partition dropped") {
      moves += 1
    }
  }
  return (errors, warnings, samples, moves)
}

func seconds(_ value: Double) -> String { String(format: "%.2f", value) }
func ms(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.1f", value) }
