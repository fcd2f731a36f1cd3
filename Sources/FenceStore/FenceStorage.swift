import Foundation

/// Where a ``FenceStore`` keeps its command log, events, snapshots, idempotency keys and
/// delivery cursors: the one seam between the store and a database.
///
/// The store calls ``append(_:)`` from one thread at a time, in command order;
/// ``writeSnapshot(_:)`` may come from another thread at the same time (snapshots are written in
/// the background, one at a time, each of a command already appended, possibly older than the
/// latest); reads may come from any thread at any time and must see only committed
/// transactions. Each method is
/// one transaction: ``append(_:)`` in particular commits the command, its events and its
/// idempotency key together or not at all, and returns only once they are durable.
/// ``SQLiteStorage`` is the embedded implementation.
public protocol FenceStorage: Sendable {
  /// Reads the store's settings (engine configuration, format version), `nil` when new.
  func metadata(_ key: String) throws -> String?
  /// Writes one setting.
  func setMetadata(_ key: String, _ value: String) throws

  /// Commits a command with its events and idempotency key, durably.
  func append(_ commit: CommandCommit) throws

  /// Commits several commands in order, each as ``append(_:)`` does; a storage that can puts
  /// them in one transaction (all or none). The default appends them one by one.
  func append(contentsOf commits: [CommandCommit]) throws

  /// The first answer given under an idempotency key, and its command, if one was committed.
  func answer(forIdempotencyKey key: String) throws -> (commandSeq: Int64, answer: String)?

  /// Commands with seq greater than `seq`, at most `limit`, in seq order.
  func commands(after seq: Int64, limit: Int) throws -> [StoredCommandRecord]
  /// The last command's seq and the last event seq it reached (0, 0 for an empty log).
  func head() throws -> (commandSeq: Int64, eventSeq: Int64)

  /// Events with seq greater than `seq`, at most `limit`, in seq order.
  func events(after seq: Int64, limit: Int) throws -> [StoredEvent]

  /// Writes a snapshot. `zoneSet` is stored only when the same bytes are not stored yet (zone
  /// sets are large and change rarely).
  func writeSnapshot(_ snapshot: SnapshotRecord) throws
  /// The snapshot with the highest command seq, with its zone set.
  func latestSnapshot() throws -> SnapshotRecord?

  /// Reads a named delivery cursor (for example a webhook's).
  func cursor(_ name: String) throws -> Int64?
  /// Writes a named delivery cursor.
  func setCursor(_ name: String, to seq: Int64) throws
  /// Every cursor, by name.
  func cursors() throws -> [String: Int64]

  /// Drops what no answer needs any more (see ``FenceStore/compact(eventRetention:now:)``).
  func compact(_ plan: CompactionPlan) throws -> CompactionReport

  /// Closes the storage; later calls fail.
  func close() throws
}

extension FenceStorage {
  public func append(contentsOf commits: [CommandCommit]) throws {
    for commit in commits { try append(commit) }
  }
}

/// A command and everything committed with it.
public struct CommandCommit: Sendable {
  public var seq: Int64
  public var kindCode: Int
  public var payload: [UInt8]
  /// The seq of the first event (the previous last seq + 1 when there are none).
  public var firstEventSeq: Int64
  /// The events' NDJSON lines, seq included, in seq order from ``firstEventSeq``.
  public var eventLines: [String]
  /// The answer given to the client (JSON).
  public var answer: String
  public var idempotencyKey: String?
  /// Wall-clock time of the commit (for retention).
  public var recordedAt: Date
  /// The partition inbox seq the command consumed, when an owner of the scaled-out store
  /// executes its inbox: a storage that supports partitions commits it in the same transaction,
  /// so that the next owner resumes right after the last committed command. Others ignore it.
  public var inboxSeq: Int64?

  public init(
    seq: Int64, kindCode: Int, payload: [UInt8], firstEventSeq: Int64, eventLines: [String],
    answer: String, idempotencyKey: String?, recordedAt: Date, inboxSeq: Int64? = nil
  ) {
    self.inboxSeq = inboxSeq
    self.seq = seq
    self.kindCode = kindCode
    self.payload = payload
    self.firstEventSeq = firstEventSeq
    self.eventLines = eventLines
    self.answer = answer
    self.idempotencyKey = idempotencyKey
    self.recordedAt = recordedAt
  }
}

/// A command as read back from the log.
public struct StoredCommandRecord: Sendable {
  public var seq: Int64
  public var kindCode: Int
  public var payload: [UInt8]
  public var firstEventSeq: Int64
  public var eventCount: Int

  public init(seq: Int64, kindCode: Int, payload: [UInt8], firstEventSeq: Int64, eventCount: Int) {
    self.seq = seq
    self.kindCode = kindCode
    self.payload = payload
    self.firstEventSeq = firstEventSeq
    self.eventCount = eventCount
  }
}

/// One event of the log: its seq and its NDJSON line (which carries `"seq"` too).
public struct StoredEvent: Hashable, Sendable {
  public var seq: Int64
  public var line: String
  public init(seq: Int64, line: String) {
    self.seq = seq
    self.line = line
  }
}

/// An evaluator snapshot with what recovery needs beside it.
public struct SnapshotRecord: Sendable {
  /// The last command the snapshot includes.
  public var commandSeq: Int64
  /// The last event seq at that command.
  public var lastEventSeq: Int64
  /// ``FenceEngine/ZoneEvaluator/zoneFingerprint`` of the zones.
  public var zoneFingerprint: UInt64
  /// The zones as GeoJSON (``FenceFormats/ZoneSetWriter``).
  public var zoneSet: [UInt8]
  /// ``SQLiteStorage/hash(_:)`` of ``zoneSet`` when the caller already knows it (the store
  /// computes it once per zone change, not once per snapshot of a 57 MB zone set).
  public var zoneSetHash: UInt64? = nil
  /// ``FenceEngine/EvaluatorSnapshot/encoded()``.
  public var evaluator: [UInt8]
  public var takenAt: Date

  public init(
    commandSeq: Int64, lastEventSeq: Int64, zoneFingerprint: UInt64, zoneSet: [UInt8],
    zoneSetHash: UInt64? = nil, evaluator: [UInt8], takenAt: Date
  ) {
    self.commandSeq = commandSeq
    self.lastEventSeq = lastEventSeq
    self.zoneFingerprint = zoneFingerprint
    self.zoneSet = zoneSet
    self.zoneSetHash = zoneSetHash
    self.evaluator = evaluator
    self.takenAt = takenAt
  }
}

/// What ``FenceStorage/compact(_:)`` may drop.
public struct CompactionPlan: Sendable {
  /// Commands with seq up to this one (the latest snapshot's) and older snapshots.
  public var commandsThrough: Int64
  /// Events with seq up to this one, when also recorded before ``recordedBefore``.
  public var eventsThrough: Int64
  /// Idempotency keys recorded before this time, when their command is also dropped.
  public var recordedBefore: Date
}

/// What a compaction dropped.
public struct CompactionReport: Hashable, Sendable {
  public var commands = 0
  public var events = 0
  public var snapshots = 0
  public var zoneSets = 0
  public var idempotencyKeys = 0
  public init() {}
}
