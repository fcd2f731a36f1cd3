import ArgumentParser
import AsyncHTTPClient
import Foundation

/// Storage and sync options shared by the scenarios that run one daemon.
struct StoreOptions: ParsableArguments {
  @Option(help: "fenced --storage: sqlite (durable), memory (same HTTP path, nothing kept), or postgres (fenced --postgres with --postgres-url).")
  var storage: String = "sqlite"

  @Option(help: ArgumentHelp("The PostgreSQL database of --storage postgres (an empty one per run).", valueName: "url"))
  var postgresURL: String?

  @Option(help: "fenced --durability: full (sync every commit) or normal.")
  var durability: String = "full"

  @Option(help: ArgumentHelp("Fixes per request.", valueName: "N"))
  var batch: Int = 5000

  @Option(help: ArgumentHelp("Fixes to send in all (the track file repeats in later laps).", valueName: "N"))
  var fixes: Int = 500_000

  func validate() throws {
    guard ["sqlite", "memory", "postgres"].contains(storage) else {
      throw ValidationError("--storage is sqlite, memory or postgres")
    }
    guard (storage == "postgres") == (postgresURL != nil) else {
      throw ValidationError("--postgres-url goes with --storage postgres, and only with it")
    }
    guard ["full", "normal"].contains(durability) else { throw ValidationError("--durability is full or normal") }
    guard batch >= 1, fixes >= 1 else { throw ValidationError("--batch and --fixes must be at least 1") }
  }

  var fencedArguments: [String] {
    if storage == "postgres", let postgresURL { return ["--postgres", postgresURL] }
    return ["--storage", storage] + (storage == "sqlite" ? ["--durability", durability] : [])
  }

  var name: String {
    switch storage {
    case "memory": return "memory"
    case "postgres": return "postgres"
    default: return "sqlite \(durability)"
    }
  }
}

/// Reads the track file and encodes the batches, printing what it did.
func preparePlan(_ common: CommonOptions, fixes: Int, batch: Int, clients: Int) throws -> (TrackData, LoadPlan) {
  let data = try TrackData(path: common.trackPath)
  note("read \(data.fixes.count) fixes of \(data.deviceCount) devices from \(common.trackPath) in \(String(format: "%.2f", data.readSeconds)) s (sorted by time, lap shift \(data.lapShift / 86_400_000_000) days)")
  let plan = LoadPlan(data: data, fixCount: fixes, batchSize: batch, clients: clients)
  note("encoded \(plan.fixCount) fixes as \(plan.batchCount) NDJSON batches (\(plan.bodyBytes / 1_048_576) MiB) for \(clients) client(s) in \(String(format: "%.2f", plan.encodeSeconds)) s")
  return (data, plan)
}

// MARK: - ingest

struct IngestCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ingest", abstract: "Fixes/s acknowledged and per-batch answer times for one configuration.")

  @OptionGroup var common: CommonOptions
  @OptionGroup var store: StoreOptions

  @Option(help: ArgumentHelp("Concurrent senders (devices are split between them).", valueName: "N"))
  var clients: Int = 1

  @Option(help: ArgumentHelp("Write every batch's timing here (CSV: client, batch, fixes, sent ms, answer ms, events).", valueName: "file"))
  var latencies: String?

  func run() async throws {
    let (_, plan) = try preparePlan(common, fixes: store.fixes, batch: store.batch, clients: clients)
    let zones = common.zoneArguments
    let loadBefore = loadAverage()
    let client = makeHTTPClient()
    let daemon = try FencedProcess(
      binary: common.fenced, dataDirectory: common.newDataDirectory("ingest"),
      arguments: zones.arguments + store.fencedArguments + common.fencedArgument, environment: common.environment)
    do {
      try await daemon.waitUntilHealthy(client: client)
      note("fenced \(daemon.pid) healthy after \(String(format: "%.2f", daemon.healthySeconds)) s on port \(daemon.port)")
      try await warmConnections(clients, client: client, baseURL: daemon.baseURL)
      let cpuBefore = daemon.cpuSeconds()
      let ownBefore = ownCPUSeconds()
      let result = try await sendAll(plan, client: client, baseURL: daemon.baseURL, runID: UUID().uuidString)
      let cpuAfter = daemon.cpuSeconds()
      let ownAfter = ownCPUSeconds()
      let memory = daemon.memory()
      let bytes = daemon.storeBytes()
      if let path = latencies {
        var csv = "client,batch,fixes,sent_ms,answer_ms,events\n"
        for outcome in result.outcomes.sorted(by: { $0.sent < $1.sent }) {
          csv += "\(outcome.client),\(outcome.index),\(outcome.fixCount),"
          csv += String(format: "%.3f,%.3f,", (outcome.sent - result.start).seconds * 1000, outcome.latencyMilliseconds)
          csv += "\(outcome.events)\n"
        }
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
      }
      let latencies = result.latencies
      let figures = IngestFigures(
        storage: store.storage, durability: store.storage == "sqlite" ? store.durability : "-",
        variant: common.variant, batchSize: store.batch, clients: clients, requests: result.outcomes.count,
        fixesAcknowledged: result.fixesAcknowledged,
        accepted: result.outcomes.reduce(0) { $0 + $1.accepted },
        rejected: result.outcomes.reduce(0) { $0 + $1.rejected },
        events: result.outcomes.reduce(0) { $0 + $1.events },
        bodyMiB: Double(plan.bodyBytes) / 1_048_576, wallSeconds: result.wallSeconds,
        fixesPerSecond: result.fixesPerSecond,
        latencyP50: latencies(50), latencyP90: latencies(90), latencyP99: latencies(99),
        latencyMax: latencies.max, latencyMean: latencies.mean,
        startSeconds: daemon.healthySeconds, peakRSSMiB: memory.peakMiB,
        fencedUserSeconds: cpuAfter.user - cpuBefore.user, fencedSystemSeconds: cpuAfter.system - cpuBefore.system,
        clientCPUSeconds: (ownAfter.user + ownAfter.system) - (ownBefore.user + ownBefore.system),
        storeMiB: Double(bytes.database + bytes.wal) / 1_048_576)
      note(
        "\(store.name)\(common.variant.map { " " + $0 } ?? ""), batch \(store.batch), \(clients) client(s): \(Int(figures.fixesPerSecond)) fixes/s, p50 \(String(format: "%.1f", figures.latencyP50)) ms, p99 \(String(format: "%.1f", figures.latencyP99)) ms, max \(String(format: "%.1f", figures.latencyMax)) ms, \(figures.events) events, peak RSS \(Int(memory.peakMiB)) MiB"
      )
      // The store is thrown away: no clean stop (its snapshot of a large zone set takes seconds).
      if common.keep { daemon.terminate() } else { daemon.kill9() }
      try common.write(
        Record(
          kind: "ingest", label: common.label ?? "\(store.name)\(common.variant.map { " " + $0 } ?? "") b\(store.batch) c\(clients)", date: isoNow(),
          loadBefore: loadBefore, loadAfter: loadAverage(), zones: zones.name, tracks: common.trackPath,
          ingest: figures))
    } catch {
      daemon.kill9()
      note("fenced log:\n\(daemon.standardError.suffix(3000))")
      try? await client.shutdown()
      throw error
    }
    try await client.shutdown()
    if !common.keep { daemon.removeFiles() }
  }
}

// MARK: - recovery

struct RecoveryCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recovery",
    abstract: "Ingest, kill -9, restart on the same directory: recovery time and time to /healthz.")

  @OptionGroup var common: CommonOptions
  @OptionGroup var store: StoreOptions

  @Option(help: "none: no snapshot after the start (every command is replayed); just-taken: the last batch triggers a snapshot.")
  var snapshot: String = "none"

  func validate() throws {
    guard ["none", "just-taken"].contains(snapshot) else { throw ValidationError("--snapshot is none or just-taken") }
    guard store.storage == "sqlite" else { throw ValidationError("recovery needs --storage sqlite") }
  }

  func run() async throws {
    let (_, plan) = try preparePlan(common, fixes: store.fixes, batch: store.batch, clients: 1)
    // A new store writes one command (the zone files' zones) before any batch; with
    // batches + 1, the last batch's commit triggers the snapshot.
    let snapshotEvery = snapshot == "none" ? 100_000_000 : plan.batchCount + 1
    let zones = common.zoneArguments
    let arguments =
      zones.arguments + store.fencedArguments + common.fencedArgument + ["--snapshot-every", String(snapshotEvery)]
    let directory = common.newDataDirectory("recovery")
    let loadBefore = loadAverage()
    let client = makeHTTPClient()
    let first = try FencedProcess(
      binary: common.fenced, dataDirectory: directory, arguments: arguments, environment: common.environment)
    var second: FencedProcess?
    do {
      try await first.waitUntilHealthy(client: client)
      note("fenced \(first.pid) healthy after \(String(format: "%.2f", first.healthySeconds)) s (empty store)")
      try await warmConnections(1, client: client, baseURL: first.baseURL)
      let result = try await sendAll(plan, client: client, baseURL: first.baseURL, runID: UUID().uuidString)
      note("ingested \(result.fixesAcknowledged) fixes at \(Int(result.fixesPerSecond)) fixes/s")
      let sinceSnapshot = try await metricValue("fenced_commands_since_snapshot", client: client, baseURL: first.baseURL)
      let head = try await metricValue("fenced_event_log_head", client: client, baseURL: first.baseURL)
      let peakBefore = first.memory().peakMiB
      first.kill9()
      let bytes = first.storeBytes()
      note("killed fenced \(first.pid) (SIGKILL): \(Int(sinceSnapshot ?? -1)) commands since the last snapshot, event head \(Int(head ?? -1)), store \(bytes.database / 1_048_576) MiB + WAL \(bytes.wal / 1_048_576) MiB")
      let restarted = try FencedProcess(
        binary: common.fenced, dataDirectory: directory, arguments: arguments, environment: common.environment)
      second = restarted
      try await restarted.waitUntilHealthy(client: client)
      let recovered = restarted.logMetadata("store recovered")
      let headAfter = try await metricValue("fenced_event_log_head", client: client, baseURL: restarted.baseURL)
      let peakAfter = restarted.memory().peakMiB
      let figures = RecoveryFigures(
        snapshot: snapshot == "none" ? "none since start" : "just taken", snapshotEvery: snapshotEvery,
        fixes: result.fixesAcknowledged, batches: result.outcomes.count,
        ingestFixesPerSecond: result.fixesPerSecond,
        lastBatchMilliseconds: result.outcomes.last?.latencyMilliseconds,
        otherBatchesP50Milliseconds: Percentiles(result.outcomes.dropLast().map(\.latencyMilliseconds))(50),
        commandsSinceSnapshotAtKill: sinceSnapshot,
        eventHeadAtKill: head, storeMiB: Double(bytes.database) / 1_048_576, walMiB: Double(bytes.wal) / 1_048_576,
        recoverySeconds: recovered?["seconds"].flatMap(Double.init),
        commandsReplayed: recovered?["commandsReplayed"].flatMap(Int.init),
        fixesReplayed: recovered?["fixesReplayed"].flatMap(Int.init),
        eventsVerified: recovered?["eventsVerified"].flatMap(Int.init),
        listeningSeconds: restarted.listeningSeconds, healthySeconds: restarted.healthySeconds,
        eventHeadAfter: headAfter, peakRSSMiBBefore: peakBefore, peakRSSMiBAfter: peakAfter,
        freshStartSeconds: first.healthySeconds)
      note(
        "recovered: store says \(figures.recoverySeconds.map { String(format: "%.3f", $0) } ?? "?") s (\(figures.commandsReplayed ?? -1) commands, \(figures.fixesReplayed ?? -1) fixes replayed, \(figures.eventsVerified ?? -1) events verified); /healthz 200 after \(String(format: "%.3f", restarted.healthySeconds)) s; event head \(Int(headAfter ?? -1))"
      )
      if headAfter != head { note("WARNING: the event head changed across the restart (\(head ?? -1) -> \(headAfter ?? -1))") }
      if common.keep { restarted.terminate() } else { restarted.kill9() }
      try common.write(
        Record(
          kind: "recovery", label: common.label ?? "recovery \(snapshot)", date: isoNow(),
          loadBefore: loadBefore, loadAfter: loadAverage(), zones: zones.name, tracks: common.trackPath,
          recovery: figures))
    } catch {
      first.kill9()
      second?.kill9()
      note("fenced log:\n\(first.standardError.suffix(2000))\n\(second?.standardError.suffix(2000) ?? "")")
      try? await client.shutdown()
      throw error
    }
    try await client.shutdown()
    if !common.keep {
      first.removeFiles()
      second?.removeFiles()
    }
  }
}

// MARK: - lag

struct LagCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lag",
    abstract: "Event delivery lag: batch posted to its events returned by a long-poll on /v1/events?wait=.")

  @OptionGroup var common: CommonOptions
  @OptionGroup var store: StoreOptions

  func run() async throws {
    let (_, plan) = try preparePlan(common, fixes: store.fixes, batch: store.batch, clients: 1)
    let zones = common.zoneArguments
    let loadBefore = loadAverage()
    let client = makeHTTPClient()
    let daemon = try FencedProcess(
      binary: common.fenced, dataDirectory: common.newDataDirectory("lag"),
      arguments: zones.arguments + store.fencedArguments + common.fencedArgument, environment: common.environment)
    do {
      try await daemon.waitUntilHealthy(client: client)
      try await warmConnections(2, client: client, baseURL: daemon.baseURL)
      let poller = EventPoller()
      let baseURL = daemon.baseURL
      let polling = Task { await poller.run(client: client, baseURL: baseURL) }
      try await Task.sleep(for: .milliseconds(100))  // the long-poll is waiting before the first batch
      let result = try await sendAll(plan, client: client, baseURL: baseURL, runID: UUID().uuidString)
      let finalSeq = result.outcomes.compactMap(\.lastSeq).max() ?? 0
      let deadline = ContinuousClock.now + .seconds(60)
      while poller.cursor < finalSeq, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(1))
      }
      polling.cancel()
      _ = await polling.value
      // Event seq -> its batch: batches carry disjoint seq ranges in commit order.
      let ranges = result.outcomes.filter { $0.firstSeq != nil }.sorted { $0.firstSeq! < $1.firstSeq! }
      func batch(of seq: Int64) -> BatchOutcome? {
        var low = 0
        var high = ranges.count - 1
        while low <= high {
          let mid = (low + high) / 2
          if seq < ranges[mid].firstSeq! { high = mid - 1 } else if seq > ranges[mid].lastSeq! { low = mid + 1 } else {
            return ranges[mid]
          }
        }
        return nil
      }
      var lags: [Double] = []
      var afterAnswer: [Double] = []
      for arrival in poller.arrivals {
        for seq in arrival.first...arrival.last {
          guard let outcome = batch(of: seq) else { continue }
          lags.append((arrival.at - outcome.sent).seconds * 1000)
          afterAnswer.append(
            arrival.at >= outcome.answered
              ? (arrival.at - outcome.answered).seconds * 1000 : -(outcome.answered - arrival.at).seconds * 1000)
        }
      }
      let lag = Percentiles(lags)
      let after = Percentiles(afterAnswer)
      let latencies = result.latencies
      let figures = LagFigures(
        storage: store.storage, durability: store.storage == "sqlite" ? store.durability : "-",
        variant: common.variant, batchSize: store.batch, batches: result.outcomes.count, fixes: result.fixesAcknowledged,
        events: result.outcomes.reduce(0) { $0 + $1.events }, eventsSeen: lags.count,
        fixesPerSecond: result.fixesPerSecond, lagP50: lag(50), lagP99: lag(99), lagMax: lag.max,
        afterAnswerP50: after(50), afterAnswerP99: after(99),
        batchLatencyP50: latencies(50), batchLatencyP99: latencies(99), polls: poller.polls)
      note(
        "lag, \(store.name)\(common.variant.map { " " + $0 } ?? ""), batch \(store.batch): \(figures.eventsSeen) of \(figures.events) events seen; post to event p50 \(String(format: "%.1f", figures.lagP50)) ms, p99 \(String(format: "%.1f", figures.lagP99)) ms; answer to event p50 \(String(format: "%.2f", figures.afterAnswerP50)) ms; \(figures.polls) polls"
      )
      if common.keep { daemon.terminate() } else { daemon.kill9() }
      try common.write(
        Record(
          kind: "lag", label: common.label ?? "lag \(store.name) b\(store.batch)", date: isoNow(),
          loadBefore: loadBefore, loadAfter: loadAverage(), zones: zones.name, tracks: common.trackPath,
          lag: figures))
    } catch {
      daemon.kill9()
      note("fenced log:\n\(daemon.standardError.suffix(3000))")
      try? await client.shutdown()
      throw error
    }
    try await client.shutdown()
    if !common.keep { daemon.removeFiles() }
  }
}
