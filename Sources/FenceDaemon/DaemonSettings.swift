import FenceEngine
import FenceFormats
import FenceStore
import FenceStorePostgres
import Foundation

/// Everything `fenced serve` was started with, checked.
public struct DaemonSettings: Sendable {
  /// Where the embedded store lives (created when missing).
  public var dataDirectory: String
  /// Zone files that make the zone set at start, in order; empty keeps the stored zones.
  public var zoneFiles: [String] = []
  /// How zone files and zone request bodies load (repair, point radius, rule defaults).
  public var zoneLoadOptions = ZoneLoadOptions()
  public var host = "127.0.0.1"
  public var port = 7070
  public var engine = ZoneEvaluator.Configuration.default
  public var clock: Clock = .fixes
  public var webhooks: [String] = []
  /// Every `/v1` request needs `Authorization: Bearer <token>` when set.
  public var token: String?
  /// The largest request body accepted, in bytes after decompression.
  public var maximumBodyBytes = 64 << 20
  /// A request body must arrive within this many seconds (slow clients get 408).
  public var bodyTimeoutSeconds = 60.0
  public var store = FenceStore.Options()
  public var durability = SQLiteStorage.Durability.full
  /// Where the store keeps its log: SQLite in ``dataDirectory`` (durable), or memory only (for
  /// measuring what durability costs; nothing survives the process).
  public var storage: Storage = .sqlite

  public enum Storage: String, Sendable, CaseIterable {
    case sqlite, memory
  }
  /// When set, the store keeps everything in this PostgreSQL database instead
  /// (``FenceStore/PostgresStorage``, partition 0), and ``dataDirectory`` is not used.
  public var postgres: PostgresSettings?

  /// With ``postgres``: scale out over this many device partitions (fixed when the database is
  /// first used), several processes sharing them (``ClusterDaemon``). `nil`: one process owns
  /// the whole store (partition 0).
  public var partitions: Int32?
  /// How long a partition's lease lasts without renewal: a dead process's partitions move to
  /// the others after this.
  public var leaseSeconds = 5.0

  /// Where the store is, for logs and messages: the data directory, or the PostgreSQL URL
  /// without its password.
  public var storeLocation: String { postgres?.redacted ?? dataDirectory }
  /// How often compaction runs and what it keeps (see ``FenceStore/compact(eventRetention:now:)``).
  public var eventRetentionSeconds: TimeInterval = 7 * 24 * 3600
  public var compactionIntervalSeconds: TimeInterval = 3600

  /// Where the engine's time comes from.
  public enum Clock: String, Sendable, CaseIterable {
    /// Only fixes and `POST /v1/advance` move it.
    case fixes
    /// Also the wall clock: due dwells fire within a second of their deadline.
    case wall
  }

  public init(dataDirectory: String) {
    self.dataDirectory = dataDirectory
  }
}
