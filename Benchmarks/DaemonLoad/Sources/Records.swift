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
