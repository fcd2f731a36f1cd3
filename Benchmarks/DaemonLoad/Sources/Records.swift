import Foundation

/// One line of the results file.
struct Record: Codable {
  var kind: String
  var label: String
  var date: String
  var loadBefore: [Double]
  var loadAfter: [Double]
  var zones: String
  var tracks: String
  var ingest: IngestFigures?
  var recovery: RecoveryFigures?
  var lag: LagFigures?
  var cluster: ClusterFigures?
}

/// What one ingest run measured.
struct IngestFigures: Codable {
  var storage: String
  var durability: String
  /// A variant of the storage (such as the WAL synced at every commit by a preloaded shim).
  var variant: String?
  var batchSize: Int
  var clients: Int
  var requests: Int
  /// Fixes in batches answered 200, and what the engine made of them.
  var fixesAcknowledged: Int
  var accepted: Int
  var rejected: Int
  var events: Int
  var bodyMiB: Double
  var wallSeconds: Double
  var fixesPerSecond: Double
  /// Per-batch answer time, request sent to answer read, milliseconds.
  var latencyP50: Double
  var latencyP90: Double
  var latencyP99: Double
  var latencyMax: Double
  var latencyMean: Double
  /// `fenced`: spawn to `/healthz` 200 on the new store (zones loaded, first command written).
  var startSeconds: Double
  var peakRSSMiB: Double
  /// CPU seconds `fenced` and this client used during the timed part.
  var fencedUserSeconds: Double
  var fencedSystemSeconds: Double
  var clientCPUSeconds: Double
  var storeMiB: Double
}

/// Kill -9 and restart.
struct RecoveryFigures: Codable {
  /// "none since start" (no snapshot during ingest) or "just taken".
  var snapshot: String
  var snapshotEvery: Int
  var fixes: Int
  var batches: Int
  var ingestFixesPerSecond: Double
  /// The last batch's answer time (in a "just taken" run it includes writing the snapshot),
  /// and the median of the others, milliseconds.
  var lastBatchMilliseconds: Double?
  var otherBatchesP50Milliseconds: Double?
  var commandsSinceSnapshotAtKill: Double?
  var eventHeadAtKill: Double?
  var storeMiB: Double
  var walMiB: Double
  /// From fenced's `store recovered` log line.
  var recoverySeconds: Double?
  var commandsReplayed: Int?
  var fixesReplayed: Int?
  var eventsVerified: Int?
  /// Spawn to the listening line, and to `/healthz` 200.
  var listeningSeconds: Double
  var healthySeconds: Double
  var eventHeadAfter: Double?
  var peakRSSMiBBefore: Double
  var peakRSSMiBAfter: Double
  /// The same binary and options started on an empty data directory: spawn to `/healthz` 200
  /// (loading the zone files and writing the first zone command, no recovery work).
  var freshStartSeconds: Double
}

/// Event delivery lag with one long-poller beside one ingest client.
struct LagFigures: Codable {
  var storage: String
  var durability: String
  var variant: String?
  var batchSize: Int
  var batches: Int
  var fixes: Int
  var events: Int
  var eventsSeen: Int
  var fixesPerSecond: Double
  /// Batch sent to event returned by `/v1/events?wait=`, milliseconds.
  var lagP50: Double
  var lagP99: Double
  var lagMax: Double
  /// Batch answer received to event returned (negative: the event came first).
  var afterAnswerP50: Double
  var afterAnswerP99: Double
  /// Per-batch answer time in the same run, for comparison.
  var batchLatencyP50: Double
  var batchLatencyP99: Double
  var polls: Int
}

/// Several scaled-out `fenced` processes on one PostgreSQL database (`DaemonLoad cluster`).
struct ClusterFigures: Codable {
  /// Processes, partitions, their lease time; fixes per batch, fixes in all; clients (one per
  /// process); how devices were split between the clients: "devices" (each device to one
  /// client, dealt by fix count) or "partitions" (each partition's devices to one client).
  var processes: Int
  var partitions: Int
  var leaseSeconds: Double
  var batchSize: Int
  var fixes: Int
  var clients: Int
  var split: String
  /// From spawning the processes: every one listening; the leases balanced (every partition
  /// leased, every process holding some, none more than its share); a first
  /// `POST /v1/advance?wait=events` answered (the zone files executed in every partition).
  var listeningSeconds: Double
  var balancedSeconds: Double
  var readySeconds: Double
  /// Plain acknowledgements (`POST /v1/fixes`, answered once durable in the inboxes): wall clock
  /// from the first request sent to the last answer read, and per-request times in ms.
  var requests: Int
  var fixesAcknowledged: Int
  var ackSeconds: Double
  var ackFixesPerSecond: Double
  var ackP50: Double
  var ackP90: Double
  var ackP99: Double
  var ackMax: Double
  /// Inbox parts of the fix batches (one per partition a batch touched).
  var parts: Int
  /// The last ack to `POST /v1/advance?wait=events` (to the last fix's time) answered 200:
  /// every partition executed everything. Total: first request to that answer.
  var drainSeconds: Double
  var totalSeconds: Double
  var totalFixesPerSecond: Double
  /// 202 answers of that advance (each waited 30 s; it was sent again with its key).
  var drainTimeouts: Int
  /// Inbox commands executed after the last ack (`fk_inbox_done.done_at`): fix parts and the
  /// drain's advance (one per partition); and their rate over the drain.
  var executedAfterLastAck: Int?
  var drainPartsPerSecond: Double?
  /// Submit (received_at, the transaction's start) to execution (done_at) of the fix parts, ms.
  var inboxDelayP50: Double?
  var inboxDelayP99: Double?
  /// CPU seconds (user + system) of every fenced together, of the PostgreSQL server (all its
  /// processes), and of this client, during the acks and during the drain.
  var fencedCPUAck: Double
  var fencedCPUDrain: Double
  var serverCPUAck: Double?
  var serverCPUDrain: Double?
  var clientCPU: Double
  var peakRSSMiB: [Double]
  /// The database from before the first batch to the end of the drain: write-ahead log bytes,
  /// transactions that wrote (transaction ids taken); then the stored bytes of the fix parts'
  /// payloads in `fk_inbox` and `fk_commands`, the events' bodies in `fk_events`, and the
  /// database's size.
  var walBytes: Int64?
  var writeTransactions: Int64?
  var inboxPayloadBytes: Int64?
  var commandPayloadBytes: Int64?
  var eventBodyBytes: Int64?
  var databaseMiB: Double?
  /// What the owners made of the fixes (summed from `fk_commands` answers) and the events.
  var accepted: Int?
  var rejected: Int?
  var events: Int?
  /// The idle phase after the drain, one request at a time, round robin over the processes.
  var latency: [ClusterLatency]
  /// SIGTERM to every process to the last one gone; exit statuses.
  var stopSeconds: Double
  var exitStatuses: [Int32]
  /// The processes' standard error: lines at level error or critical, at warning; the first
  /// error lines; partitions taken or dropped after the leases were balanced; where the logs are.
  var logErrorLines: Int
  var logWarningLines: Int
  var logErrorSamples: [String]
  var movesAfterBalance: Int
  var logDirectory: String
}

/// Per-request times of the idle phase for one batch size: a plain submit (one inbox
/// transaction; sent when everything before it was executed) and a `?wait=events` submit
/// (inbox transaction, execution of every part by its owner, and the answer's polling).
struct ClusterLatency: Codable {
  var batchSize: Int
  var samples: Int
  var partsMean: Double
  var plainP50: Double
  var plainP90: Double
  var plainP99: Double
  var waitP50: Double
  var waitP90: Double
  var waitP99: Double
  var waitMax: Double
  /// `?wait=events` answers that were 202 (not executed within 30 s).
  var waitIncomplete: Int
}

/// Nearest-rank percentiles of a sample.
struct Percentiles {
  let sorted: [Double]

  init(_ values: [Double]) { sorted = values.sorted() }

  func callAsFunction(_ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
  }

  var max: Double { sorted.last ?? .nan }
  var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }
}

func isoNow() -> String {
  let formatter = ISO8601DateFormatter()
  return formatter.string(from: Date())
}
