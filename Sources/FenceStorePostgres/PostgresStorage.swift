import FenceStore
import FenceEngine
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// A ``FenceStorage`` in PostgreSQL, through postgres-nio: the same tables as
/// ``SQLiteStorage`` (prefixed `fk_`), created and migrated by ``PostgresSchema`` when the
/// storage opens.
///
/// Every row carries the `partition` it belongs to (this storage's ``partition``; 0 for one
/// process owning every device): the partitioned scale-out of `fenced` keeps one command log,
/// event log and snapshot series per partition in the same tables, each written under a lease
/// (``PartitionLeases``, ``fencingToken``).
///
/// Commits are PostgreSQL transactions: ``append(_:)`` returns once the server reports the
/// commit, which with PostgreSQL's default `synchronous_commit = on` means it is in the
/// server's write-ahead log on disk. The writing methods use one connection, one at a time
/// (appends in command order; a snapshot, written in the background, between two of them);
/// reads use others (opened on demand, kept for reuse), so that they never wait for a commit.
///
/// The protocol is synchronous: each call blocks its thread until the server answers (on
/// postgres-nio's event loop threads, never on the caller's), which is what ``FenceStore``'s
/// command and read queues expect.
public final class PostgresStorage: FenceStorage {
  /// The server and database, from a `postgres://user:password@host:port/database` URL.
  public let settings: PostgresSettings
  /// The partition whose rows this storage reads and writes.
  public let partition: Int32
  /// The fencing token of the lease this storage writes under (``PartitionLeases``), or `nil`
  /// for a store that one process owns without leases.
  public let fencingToken: Int64?

  let logger: Logger
  let connections: PostgresConnections
  /// Whether ``close()`` closes ``connections`` (they are this storage's own).
  private let ownsConnections: Bool
  private let isClosed = LockedValue(false)

  /// Connects to the database, creates or migrates the schema (``PostgresSchema``), and
  /// returns the storage of `partition`.
  ///
  /// - Throws: ``StoreError/storageFailed(_:)`` when the server cannot be reached or refuses the
  ///   login; ``StoreError/damaged(_:)`` when the schema is newer than this version reads.
  ///
  /// With `fencingToken`, every write first checks, in its own transaction, that the lease of
  /// `partition` still holds that token, and fails with ``StoreError/leaseLost(partition:)``
  /// when it does not.
  public convenience init(
    settings: PostgresSettings, partition: Int32 = 0, fencingToken: Int64? = nil,
    logger: Logger? = nil
  ) throws {
    let connections = try PostgresConnections(settings: settings, logger: logger)
    self.init(
      connections: connections, owned: true, partition: partition, fencingToken: fencingToken,
      logger: logger)
  }

  /// The storage of `partition` on connections shared with other partitions' storages (the
  /// owners' loop of the scaled-out store): closing it leaves them open.
  public convenience init(
    connections: PostgresConnections, partition: Int32, fencingToken: Int64? = nil,
    logger: Logger? = nil
  ) {
    self.init(
      connections: connections, owned: false, partition: partition, fencingToken: fencingToken,
      logger: logger)
  }

  private init(
    connections: PostgresConnections, owned: Bool, partition: Int32, fencingToken: Int64?,
    logger: Logger?
  ) {
    self.settings = connections.settings
    self.partition = partition
    self.fencingToken = fencingToken
    self.logger = logger ?? connections.logger
    self.connections = connections
    ownsConnections = owned
  }

  /// Closes the connections of a storage that was not closed (postgres-nio requires it).
  deinit {
    try? close()
  }

  /// Opens a connection (blocking until the server answered the login).
  static func connect(_ settings: PostgresSettings, logger: Logger) throws -> PostgresConnection {
    do {
      return try PostgresConnection.connect(
        on: MultiThreadedEventLoopGroup.singleton.next(),
        configuration: settings.connectionConfiguration, id: 0, logger: logger
      ).wait()
    } catch {
      throw StoreError.storageFailed("cannot connect to PostgreSQL at \(settings.redacted): \(describe(error))")
    }
  }

  // MARK: - Connections

  /// Runs `body` on the writing connection (one caller at a time).
  func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    guard !isClosed.withLock({ $0 }) else { throw StoreError.closed }
    return try connections.write(body)
  }

  /// Runs `body` on a reading connection.
  func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    guard !isClosed.withLock({ $0 }) else { throw StoreError.closed }
    return try connections.read(body)
  }

  /// Runs `query` and returns its rows, mapping postgres-nio's errors to ``StoreError``.
  func rows(_ query: PostgresQuery, on connection: PostgresConnection) throws -> PostgresQueryResult {
    try connections.rows(query, on: connection)
  }

  /// Runs `body` between `BEGIN` and `COMMIT` on the writing connection; a throw rolls back.
  /// Under a lease, the lease row is locked first and its token checked: a takeover waits for
  /// this transaction, and a transaction after a takeover writes nothing.
  func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    try write { connection in
      _ = try rows("BEGIN", on: connection)
      do {
        if let fencingToken {
          let current = try rows(
            "SELECT token FROM fk_leases WHERE partition = \(partition) FOR SHARE", on: connection
          ).first.map { try $0.decode(Int64.self) }
          guard current == fencingToken else { throw StoreError.leaseLost(partition: partition) }
        }
        let result = try body(connection)
        _ = try rows("COMMIT", on: connection)
        return result
      } catch {
        _ = try? rows("ROLLBACK", on: connection)
        throw error
      }
    }
  }

  // MARK: - Earlier writers

  /// The tables a single store's commands, snapshots and metadata write.
  static let writtenTables =
    "fk_meta, fk_commands, fk_events, fk_idempotency, fk_zone_sets, fk_zone_set_chunks, fk_zone_set_parts, fk_snapshots"

  /// Waits until no transaction that writes this database's store tables is in flight: those
  /// of an earlier process on the same store included, which the server may still commit after
  /// that process died (a `COMMIT` sent just before a SIGKILL). Recovery must read after them:
  /// a command it did not see would otherwise be given its number again, and the resent request
  /// fail on the duplicate (`fk_commands_pkey`).
  ///
  /// Takes the tables in `SHARE ROW EXCLUSIVE` mode, which waits for every writing transaction
  /// and lets readers through, and lets go at once. A single store (no partitions, no lease)
  /// calls it before recovery; a partitioned store's owners have their leases' fencing tokens.
  ///
  /// - Throws: ``StoreError/storageFailed(_:)`` when a writer is still in its transaction after
  ///   `timeout` seconds (another process writing this store, or one frozen mid-transaction),
  ///   or the server fails.
  public func waitForEarlierWriters(timeout: Double = 30) throws {
    let milliseconds = max(1, Int((timeout * 1000).rounded()))
    do {
      try write { connection in
        _ = try rows("BEGIN", on: connection)
        do {
          _ = try rows(
            PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(milliseconds)"), on: connection)
          _ = try rows(
            PostgresQuery(
              unsafeSQL: "LOCK TABLE \(Self.writtenTables) IN SHARE ROW EXCLUSIVE MODE"),
            on: connection)
          _ = try rows("COMMIT", on: connection)
        } catch {
          _ = try? rows("ROLLBACK", on: connection)
          throw error
        }
      }
    } catch let error as StoreError {
      throw StoreError.storageFailed(
        "waiting up to \(timeout) s for earlier writers of the store at \(settings.redacted) (another process still in a transaction?) failed: \(error)")
    }
  }

  // MARK: - Metadata

  public func metadata(_ key: String) throws -> String? {
    try read { connection in
      try rows(
        "SELECT value FROM fk_meta WHERE partition = \(partition) AND key = \(key)",
        on: connection
      ).first.map { try $0.decode(String.self) }
    }
  }

  public func setMetadata(_ key: String, _ value: String) throws {
    try transaction { connection in
      _ = try rows(
        """
        INSERT INTO fk_meta(partition, key, value) VALUES (\(partition), \(key), \(value))
        ON CONFLICT (partition, key) DO UPDATE SET value = EXCLUDED.value
        """, on: connection)
    }
  }

  // MARK: - Commands and events

  public func append(_ commit: CommandCommit) throws {
    try append(contentsOf: [commit])
  }

  /// Commands in one transaction, each table written by one statement whatever their number
  /// (a command's events, or a run of an owner's inbox: one round trip each).
  public func append(contentsOf commits: [CommandCommit]) throws {
    guard !commits.isEmpty else { return }
    try transaction { connection in
      let seqs = commits.map(\.seq)
      let kinds = commits.map { Int64($0.kindCode) }
      let payloads = commits.map { ByteBuffer(bytes: $0.payload) }
      let firstEvents = commits.map(\.firstEventSeq)
      let eventCounts = commits.map { Int64($0.eventLines.count) }
      let answers = commits.map(\.answer)
      let recorded = commits.map(\.recordedAt)
      _ = try rows(
        """
        INSERT INTO fk_commands(partition, seq, kind, payload, first_event_seq, event_count, answer, recorded_at)
        SELECT \(partition), s, k, p, f, c, a, r
        FROM unnest(\(seqs)::bigint[], \(kinds)::bigint[], \(payloads)::bytea[], \(firstEvents)::bigint[],
                    \(eventCounts)::bigint[], \(answers)::text[], \(recorded)::timestamptz[]) AS t(s, k, p, f, c, a, r)
        """, on: connection)
      var eventSeqs: [Int64] = []
      var commandSeqs: [Int64] = []
      var lines: [String] = []
      var times: [Date] = []
      for commit in commits {
        for (offset, line) in commit.eventLines.enumerated() {
          eventSeqs.append(commit.firstEventSeq + Int64(offset))
          commandSeqs.append(commit.seq)
          lines.append(line)
          times.append(commit.recordedAt)
        }
      }
      if !lines.isEmpty {
        _ = try rows(
          """
          INSERT INTO fk_events(partition, seq, command_seq, body, recorded_at)
          SELECT \(partition), s, c, b, r
          FROM unnest(\(eventSeqs)::bigint[], \(commandSeqs)::bigint[], \(lines)::text[], \(times)::timestamptz[]) AS t(s, c, b, r)
          """, on: connection)
      }
      let done = commits.filter { $0.inboxSeq != nil }
      if !done.isEmpty {
        _ = try rows(
          """
          INSERT INTO fk_inbox_done(partition, seq, answer, done_at)
          SELECT \(partition), s, a, r
          FROM unnest(\(done.map { $0.inboxSeq! })::bigint[], \(done.map(\.answer))::text[],
                      \(done.map(\.recordedAt))::timestamptz[]) AS t(s, a, r)
          """, on: connection)
      }
      for commit in commits {
        guard let key = commit.idempotencyKey else { continue }
        _ = try rows(
          """
          INSERT INTO fk_idempotency(partition, key, command_seq, answer, recorded_at)
          VALUES (\(partition), \(key), \(commit.seq), \(commit.answer), \(commit.recordedAt))
          """, on: connection)
      }
    }
  }

  public func answer(forIdempotencyKey key: String) throws -> (commandSeq: Int64, answer: String)? {
    try read { connection in
      try rows(
        "SELECT command_seq, answer FROM fk_idempotency WHERE partition = \(partition) AND key = \(key)",
        on: connection
      ).first.map { try $0.decode((Int64, String).self) }
    }
  }

  public func commands(after seq: Int64, limit: Int) throws -> [StoredCommandRecord] {
    try read { connection in
      try rows(
        """
        SELECT seq, kind, payload, first_event_seq, event_count FROM fk_commands
        WHERE partition = \(partition) AND seq > \(seq) ORDER BY seq LIMIT \(Int64(limit))
        """, on: connection
      ).map { row in
        let (seq, kind, payload, first, count) = try row.decode(
          (Int64, Int64, ByteBuffer, Int64, Int64).self)
        return StoredCommandRecord(
          seq: seq, kindCode: Int(kind), payload: Array(payload.readableBytesView),
          firstEventSeq: first, eventCount: Int(count))
      }
    }
  }

  public func head() throws -> (commandSeq: Int64, eventSeq: Int64) {
    try read { connection in
      if let row = try rows(
        """
        SELECT seq, first_event_seq + event_count - 1 FROM fk_commands
        WHERE partition = \(partition) ORDER BY seq DESC LIMIT 1
        """, on: connection
      ).first {
        return try row.decode((Int64, Int64).self)
      }
      // Every command compacted away: the latest snapshot knows where the log stood.
      if let row = try rows(
        """
        SELECT command_seq, last_event_seq FROM fk_snapshots
        WHERE partition = \(partition) ORDER BY command_seq DESC LIMIT 1
        """, on: connection
      ).first {
        return try row.decode((Int64, Int64).self)
      }
      return (0, 0)
    }
  }

  public func events(after seq: Int64, limit: Int) throws -> [StoredEvent] {
    try read { connection in
      try rows(
        """
        SELECT seq, body FROM fk_events WHERE partition = \(partition) AND seq > \(seq)
        ORDER BY seq LIMIT \(Int64(limit))
        """, on: connection
      ).map { row in
        let (seq, line) = try row.decode((Int64, String).self)
        return StoredEvent(seq: seq, line: line)
      }
    }
  }

  // MARK: - Inbox progress (the scaled-out store)

  /// The partition count of a scaled-out store in this database (``PartitionInbox``), `nil`
  /// when the database holds none: one process must not open a partitioned store as its own,
  /// nor the reverse.
  public func partitionCount() throws -> Int32? {
    try read { connection in
      try rows("SELECT partitions FROM fk_partitioning", on: connection).first.map {
        try $0.decode(Int32.self)
      }
    }
  }

  /// The last inbox seq of this partition that an owner executed (0 before the first): where
  /// the next owner resumes.
  public func inboxProgress() throws -> Int64 {
    try read { connection in
      try rows(
        "SELECT coalesce(max(seq), 0) FROM fk_inbox_done WHERE partition = \(partition)",
        on: connection
      ).first.map { try $0.decode(Int64.self) } ?? 0
    }
  }

  /// Records that inbox command `seq` was executed without committing a command (the engine
  /// refused it, or it changed nothing), with `answer`: under the lease like every write.
  public func recordInboxOutcome(seq: Int64, answer: String) throws {
    try transaction { connection in
      _ = try rows(
        """
        INSERT INTO fk_inbox_done(partition, seq, answer, done_at)
        VALUES (\(partition), \(seq), \(answer), now())
        """, on: connection)
    }
  }

  // MARK: - Snapshots

  public func writeSnapshot(_ snapshot: SnapshotRecord) throws {
    let hash = Int64(bitPattern: snapshot.zoneSetHash ?? ContentHash.of(snapshot.zoneSet))
    let fingerprint = Int64(bitPattern: snapshot.zoneFingerprint)
    // A zone set the server holds is neither cut nor sent again (most snapshots). A new one is
    // cut here, and its new chunks are sent in transactions of their own of about 8 MB each,
    // so commands wait on the writing connection for one batch at most.
    let isStored = try read { connection in try holdsZoneSet(hash, connection) }
    var chunks: ZoneSetChunks?
    if !isStored {
      let cut = try ZoneSetChunks(cutting: snapshot.zoneSet, toStoreAs: UInt64(bitPattern: hash))
      let held = try read { connection in try heldChunks(of: cut, connection) }
      try sendChunks(cut.chunks, of: snapshot.zoneSet, skipping: held)
      chunks = cut
    }
    try transaction { connection in
      // No compaction (of any partition) drops a set or chunk from here until this commits;
      // any chunk one dropped before is sent again.
      _ = try rows(
        "SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.zoneSetLockKey))", on: connection)
      if !(try holdsZoneSet(hash, connection)) {
        let cut = try chunks
          ?? ZoneSetChunks(cutting: snapshot.zoneSet, toStoreAs: UInt64(bitPattern: hash))
        let held = try heldChunks(of: cut, connection)
        try sendChunks(cut.chunks, of: snapshot.zoneSet, skipping: held, on: connection)
        try insertZoneSet(hash: hash, chunks: cut, on: connection)
      }
      _ = try rows(
        """
        INSERT INTO fk_snapshots(partition, command_seq, last_event_seq, zone_fingerprint, zone_set, evaluator, taken_at)
        VALUES (\(partition), \(snapshot.commandSeq), \(snapshot.lastEventSeq), \(fingerprint), \(hash),
                \(ByteBuffer(bytes: snapshot.evaluator)), \(snapshot.takenAt))
        ON CONFLICT (partition, command_seq) DO UPDATE SET
          last_event_seq = EXCLUDED.last_event_seq, zone_fingerprint = EXCLUDED.zone_fingerprint,
          zone_set = EXCLUDED.zone_set, evaluator = EXCLUDED.evaluator, taken_at = EXCLUDED.taken_at
        """, on: connection)
    }
  }

  private func holdsZoneSet(_ hash: Int64, _ connection: PostgresConnection) throws -> Bool {
    try rows("SELECT 1 FROM fk_zone_sets WHERE hash = \(hash)", on: connection).first != nil
  }

  /// Which of the chunks of `chunks` the server holds.
  private func heldChunks(
    of chunks: ZoneSetChunks, _ connection: PostgresConnection
  ) throws -> Set<Int64> {
    let keys = chunks.chunks.map { Int64(bitPattern: $0.hash) }
    var held = Set<Int64>()
    for row in try rows(
      "SELECT hash FROM fk_zone_set_chunks WHERE hash = ANY(\(keys))", on: connection)
    {
      held.insert(try row.decode(Int64.self))
    }
    return held
  }

  /// The most chunk bytes one `INSERT` sends.
  static let chunkBytesPerInsert = 8 << 20

  /// Sends the chunks of `bytes` not in `held`, about 8 MB an `INSERT`: each in a transaction
  /// of its own without `connection`, or all on `connection`, in the caller's transaction. Chunks
  /// sent but not yet listed by a zone set (a kill before the snapshot's own transaction) are
  /// dropped by the next compaction, or listed by the next snapshot.
  private func sendChunks(
    _ chunks: [ZoneSetChunks.Chunk], of bytes: [UInt8], skipping held: Set<Int64>,
    on connection: PostgresConnection? = nil
  ) throws {
    var held = held
    var keys: [Int64] = []
    var bodies: [ByteBuffer] = []
    var batchBytes = 0
    func send() throws {
      guard !keys.isEmpty else { return }
      let query: PostgresQuery = """
        INSERT INTO fk_zone_set_chunks(hash, body)
        SELECT * FROM unnest(\(keys)::bigint[], \(bodies)::bytea[])
        ON CONFLICT (hash) DO NOTHING
        """
      if let connection {
        _ = try rows(query, on: connection)
      } else {
        try transaction { connection in _ = try rows(query, on: connection) }
      }
      keys.removeAll(keepingCapacity: true)
      bodies.removeAll(keepingCapacity: true)
      batchBytes = 0
    }
    for chunk in chunks where held.insert(Int64(bitPattern: chunk.hash)).inserted {
      keys.append(Int64(bitPattern: chunk.hash))
      bodies.append(ByteBuffer(bytes: bytes[chunk.range]))
      batchBytes += chunk.range.count
      if batchBytes >= Self.chunkBytesPerInsert { try send() }
    }
    try send()
  }

  /// Stores a zone set whose chunks the server holds: its row (an empty body: "in chunks") and
  /// the list of its chunks. Several partitions may store the same set at once: each insert
  /// gives way to a row already there. Called under the shared `zoneSetLockKey`.
  private func insertZoneSet(
    hash: Int64, chunks: ZoneSetChunks, on connection: PostgresConnection
  ) throws {
    let keys = chunks.chunks.map { Int64(bitPattern: $0.hash) }
    _ = try rows(
      "INSERT INTO fk_zone_sets(hash, body) VALUES (\(hash), ''::bytea) ON CONFLICT (hash) DO NOTHING",
      on: connection)
    _ = try rows(
      """
      INSERT INTO fk_zone_set_parts(zone_set, position, chunk)
      SELECT \(hash), (u.ordinality - 1)::integer, u.chunk
      FROM unnest(\(keys)::bigint[]) WITH ORDINALITY AS u(chunk, ordinality)
      ON CONFLICT (zone_set, position) DO NOTHING
      """, on: connection)
  }

  public func latestSnapshot() throws -> SnapshotRecord? {
    try read { connection in
      // One statement, so one view of the tables: the snapshot, and its zone set's chunks in
      // order when it is stored in chunks (NULL for a set stored whole before schema v5).
      guard
        let row = try rows(
          """
          SELECT s.command_seq, s.last_event_seq, s.zone_fingerprint, z.body, s.evaluator, s.taken_at,
            s.zone_set,
            (SELECT array_agg(c.body ORDER BY p.position)
             FROM fk_zone_set_parts p JOIN fk_zone_set_chunks c ON c.hash = p.chunk
             WHERE p.zone_set = s.zone_set)
          FROM fk_snapshots s JOIN fk_zone_sets z ON z.hash = s.zone_set
          WHERE s.partition = \(partition)
          ORDER BY s.command_seq DESC LIMIT 1
          """, on: connection
        ).first
      else { return nil }
      let (commandSeq, lastEventSeq, fingerprint, body, evaluator, takenAt, zoneSetHash, chunks) =
        try row.decode(
          (Int64, Int64, Int64, ByteBuffer, ByteBuffer, Date, Int64, [ByteBuffer]?).self)
      let zoneSet: [UInt8]
      if body.readableBytes > 0 {
        zoneSet = Array(body.readableBytesView)
      } else {
        zoneSet = try ZoneSetChunks.assemble(
          (chunks ?? []).map(\.readableBytesView), zoneSet: UInt64(bitPattern: zoneSetHash))
      }
      return SnapshotRecord(
        commandSeq: commandSeq, lastEventSeq: lastEventSeq,
        zoneFingerprint: UInt64(bitPattern: fingerprint),
        zoneSet: zoneSet, zoneSetHash: UInt64(bitPattern: zoneSetHash),
        evaluator: Array(evaluator.readableBytesView), takenAt: takenAt)
    }
  }

  // MARK: - Cursors

  public func cursor(_ name: String) throws -> Int64? {
    try read { connection in
      try rows(
        "SELECT seq FROM fk_cursors WHERE partition = \(partition) AND name = \(name)",
        on: connection
      ).first.map { try $0.decode(Int64.self) }
    }
  }

  public func setCursor(_ name: String, to seq: Int64) throws {
    try transaction { connection in
      _ = try rows(
        """
        INSERT INTO fk_cursors(partition, name, seq) VALUES (\(partition), \(name), \(seq))
        ON CONFLICT (partition, name) DO UPDATE SET seq = EXCLUDED.seq
        """, on: connection)
    }
  }

  public func cursors() throws -> [String: Int64] {
    try read { connection in
      var result: [String: Int64] = [:]
      for row in try rows(
        "SELECT name, seq FROM fk_cursors WHERE partition = \(partition)", on: connection)
      {
        let (name, seq) = try row.decode((String, Int64).self)
        result[name] = seq
      }
      return result
    }
  }

  // MARK: - Compaction

  public func compact(_ plan: CompactionPlan) throws -> CompactionReport {
    try transaction { connection in
      var report = CompactionReport()
      func delete(_ query: PostgresQuery) throws -> Int {
        let result = try rows(query, on: connection)
        return Int(result.metadata.rows ?? 0)
      }
      report.commands = try delete(
        "DELETE FROM fk_commands WHERE partition = \(partition) AND seq <= \(plan.commandsThrough)")
      report.snapshots = try delete(
        "DELETE FROM fk_snapshots WHERE partition = \(partition) AND command_seq < \(plan.commandsThrough)")
      // Zone sets are shared by the partitions: one goes when no snapshot of any refers to it,
      // with its list of chunks; a chunk goes when no list names it. Not while a snapshot's
      // transaction (of any partition) is between finding its chunks and committing its list.
      _ = try rows(
        "SELECT pg_advisory_xact_lock(\(PostgresSchema.zoneSetLockKey))", on: connection)
      report.zoneSets = try delete(
        "DELETE FROM fk_zone_sets WHERE hash NOT IN (SELECT zone_set FROM fk_snapshots)")
      _ = try delete(
        "DELETE FROM fk_zone_set_parts WHERE zone_set NOT IN (SELECT hash FROM fk_zone_sets)")
      _ = try delete(
        """
        DELETE FROM fk_zone_set_chunks c
        WHERE NOT EXISTS (SELECT 1 FROM fk_zone_set_parts p WHERE p.chunk = c.hash)
        """)
      report.events = try delete(
        """
        DELETE FROM fk_events WHERE partition = \(partition) AND seq <= \(plan.eventsThrough)
        AND recorded_at < \(plan.recordedBefore)
        """)
      report.idempotencyKeys = try delete(
        """
        DELETE FROM fk_idempotency WHERE partition = \(partition)
        AND command_seq <= \(plan.commandsThrough) AND recorded_at < \(plan.recordedBefore)
        """)
      return report
    }
  }

  public func close() throws {
    let wasClosed = isClosed.withLock { closed in
      defer { closed = true }
      return closed
    }
    guard !wasClosed, ownsConnections else { return }
    connections.close()
  }
}

/// A short description of a postgres-nio error: the server's message when it sent one.
func describe(_ error: any Error) -> String {
  if let error = error as? PSQLError {
    if let message = error.serverInfo?[.message] {
      let code = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
      return message + code
    }
    return "\(error.code)"
  }
  return "\(error)"
}
