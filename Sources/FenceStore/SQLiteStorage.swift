import Foundation
import GRDB

/// The embedded ``FenceStorage``: one SQLite database in write-ahead-log mode, through GRDB.
///
/// Layout (created and migrated on open, versioned by GRDB's migrator):
/// - `commands(seq, kind, payload, first_event_seq, event_count, answer, recorded_at)`: the
///   command log;
/// - `events(seq, command_seq, body, recorded_at)`: the event log, `body` the NDJSON line;
/// - `idempotency(key, command_seq, answer, recorded_at)`: first answers by key;
/// - `zone_sets(hash, body)` and `snapshots(command_seq, last_event_seq, zone_fingerprint,
///   zone_set, evaluator, taken_at)`: recovery points; a zone set is stored once, keyed by the
///   64-bit FNV-1a hash of its bytes (not by the engine's zone fingerprint, which leaves out
///   names and descriptions);
/// - `zone_set_chunks(hash, body)` and `zone_set_parts(zone_set, position, chunk)`: since
///   schema v2, a zone set's bytes are stored in content-defined chunks (``ZoneSetChunks``),
///   each chunk once however many zone sets hold it, and its `zone_sets` row has an empty
///   body; rows written before v2 keep the whole zone set in their body and read as before;
/// - `cursors(name, seq)`, `meta(key, value)`.
///
/// Readers never block the writer and see only committed transactions (WAL). With
/// ``Durability/full`` (the default) every commit is synced to disk before ``append(_:)``
/// returns, so an acknowledged command survives a power cut, not only a killed process.
public final class SQLiteStorage: FenceStorage {
  /// How hard a commit is pushed to disk.
  public enum Durability: String, Sendable, CaseIterable {
    /// `synchronous = FULL`: synced at every commit; survives power loss.
    case full
    /// `synchronous = NORMAL`: synced at checkpoints; survives a killed process, and may lose
    /// the last commits on power loss. Faster on slow disks.
    case normal
  }

  /// The database file.
  public let path: String
  private let pool: DatabasePool
  /// The most chunk bytes one transaction of ``storeChunks(_:of:)`` writes: about 4 MB.
  let chunkBytesPerTransaction: Int

  /// Opens (creating when missing) the database at `path`, and migrates its schema.
  ///
  /// - Throws: ``StoreError/damaged(_:)`` when the file is not a database this version reads.
  public convenience init(path: String, durability: Durability = .full) throws {
    try self.init(path: path, durability: durability, chunkBytesPerTransaction: 4 << 20)
  }

  /// `chunkBytesPerTransaction`: the most bytes of a new zone set's chunks one transaction
  /// stores (tests make it small to store a small set in several).
  init(path: String, durability: Durability, chunkBytesPerTransaction: Int) throws {
    self.path = path
    self.chunkBytesPerTransaction = chunkBytesPerTransaction
    var configuration = Configuration()
    configuration.label = "FenceStore"
    configuration.busyMode = .timeout(10)
    let synchronous = durability == .full ? "FULL" : "NORMAL"
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
    }
    do {
      pool = try DatabasePool(path: path, configuration: configuration)
      // GRDB sets `synchronous = NORMAL` on the writer when it turns WAL on, after
      // `prepareDatabase` ran: set it again on the writer, where commits happen.
      try pool.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
      }
      try Self.migrator.migrate(pool)
    } catch let error as DatabaseError {
      throw StoreError.damaged("\(path): \(error.message ?? error.description)")
    }
  }

  /// The schema's versions, oldest first. A released version is never edited: add one.
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
          CREATE TABLE commands(
            seq INTEGER PRIMARY KEY, kind INTEGER NOT NULL, payload BLOB NOT NULL,
            first_event_seq INTEGER NOT NULL, event_count INTEGER NOT NULL,
            answer TEXT NOT NULL, recorded_at REAL NOT NULL);
          CREATE TABLE events(
            seq INTEGER PRIMARY KEY, command_seq INTEGER NOT NULL, body TEXT NOT NULL,
            recorded_at REAL NOT NULL);
          CREATE TABLE idempotency(
            key TEXT PRIMARY KEY, command_seq INTEGER NOT NULL, answer TEXT NOT NULL,
            recorded_at REAL NOT NULL);
          CREATE TABLE zone_sets(hash INTEGER PRIMARY KEY, body BLOB NOT NULL);
          CREATE TABLE snapshots(
            command_seq INTEGER PRIMARY KEY, last_event_seq INTEGER NOT NULL,
            zone_fingerprint INTEGER NOT NULL, zone_set INTEGER NOT NULL,
            evaluator BLOB NOT NULL, taken_at REAL NOT NULL);
          CREATE TABLE cursors(name TEXT PRIMARY KEY, seq INTEGER NOT NULL);
          """)
    }
    // Zone sets in chunks: a snapshot after a few zone changes writes the chunks around them,
    // not the whole set (74 MB at a million circles) in the writer's one transaction.
    migrator.registerMigration("v2") { db in
      try db.execute(
        sql: """
          CREATE TABLE zone_set_chunks(hash INTEGER PRIMARY KEY, body BLOB NOT NULL);
          CREATE TABLE zone_set_parts(
            zone_set INTEGER NOT NULL REFERENCES zone_sets(hash) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            chunk INTEGER NOT NULL REFERENCES zone_set_chunks(hash),
            PRIMARY KEY (zone_set, position)) WITHOUT ROWID;
          CREATE INDEX zone_set_parts_by_chunk ON zone_set_parts(chunk);
          """)
    }
    return migrator
  }

  /// The journal and sync settings in force on the writer connection, where commits happen
  /// (for tests and `fenced`'s start-up log).
  public func pragmas() throws -> (journalMode: String, synchronous: Int) {
    try pool.writeWithoutTransaction { db in
      (
        try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
        try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
      )
    }
  }

  // MARK: - Metadata

  public func metadata(_ key: String) throws -> String? {
    try pool.read { db in
      try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }
  }

  public func setMetadata(_ key: String, _ value: String) throws {
    try pool.write { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
    }
  }

  // MARK: - Commands and events

  /// Calls `body` with `bytes` as `Data` that shares their storage, for binding to a
  /// statement run inside `body` (SQLite copies a bound blob).
  ///
  /// `Data(bytes)` copied them first: the `replaceAllZones` command of a million circles is a
  /// 308 MB payload, and with SQLite's own copy the first start held it three times.
  static func borrowing<T>(_ bytes: [UInt8], _ body: (Data) throws -> T) rethrows -> T {
    try bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress, raw.count > 0 else { return try body(Data()) }
      return try body(
        Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none))
    }
  }

  public func append(_ commit: CommandCommit) throws {
    let recordedAt = commit.recordedAt.timeIntervalSince1970
    try pool.write { db in
      try Self.borrowing(commit.payload) { payload in
        try db.cachedStatement(
          sql: """
            INSERT INTO commands(seq, kind, payload, first_event_seq, event_count, answer, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        ).execute(arguments: [
          commit.seq, commit.kindCode, payload, commit.firstEventSeq,
          commit.eventLines.count, commit.answer, recordedAt,
        ])
      }
      if !commit.eventLines.isEmpty {
        let insert = try db.cachedStatement(
          sql: "INSERT INTO events(seq, command_seq, body, recorded_at) VALUES (?, ?, ?, ?)")
        for (offset, line) in commit.eventLines.enumerated() {
          try insert.execute(arguments: [
            commit.firstEventSeq + Int64(offset), commit.seq, line, recordedAt,
          ])
        }
      }
      if let key = commit.idempotencyKey {
        try db.cachedStatement(
          sql: "INSERT INTO idempotency(key, command_seq, answer, recorded_at) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [key, commit.seq, commit.answer, recordedAt])
      }
    }
  }

  public func answer(forIdempotencyKey key: String) throws -> (commandSeq: Int64, answer: String)? {
    try pool.read { db in
      try Row.fetchOne(
        db, sql: "SELECT command_seq, answer FROM idempotency WHERE key = ?", arguments: [key]
      ).map { ($0[0], $0[1]) }
    }
  }

  public func commands(after seq: Int64, limit: Int) throws -> [StoredCommandRecord] {
    try pool.read { db in
      let rows = try Row.fetchCursor(
        db,
        sql: """
          SELECT seq, kind, payload, first_event_seq, event_count FROM commands
          WHERE seq > ? ORDER BY seq LIMIT ?
          """,
        arguments: [seq, limit])
      var records: [StoredCommandRecord] = []
      while let row = try rows.next() {
        // Read in place: a `Data` of the column, then an array of it, held a large payload twice.
        let payload = try row.withUnsafeData(atIndex: 2) { [UInt8]($0 ?? Data()) }
        records.append(
          StoredCommandRecord(
            seq: row[0], kindCode: row[1], payload: payload, firstEventSeq: row[3],
            eventCount: row[4]))
      }
      return records
    }
  }

  public func head() throws -> (commandSeq: Int64, eventSeq: Int64) {
    try pool.read { db in
      if let row = try Row.fetchOne(
        db, sql: "SELECT seq, first_event_seq + event_count - 1 FROM commands ORDER BY seq DESC LIMIT 1")
      {
        return (row[0], row[1])
      }
      // Every command compacted away: the latest snapshot knows where the log stood.
      if let row = try Row.fetchOne(
        db, sql: "SELECT command_seq, last_event_seq FROM snapshots ORDER BY command_seq DESC LIMIT 1")
      {
        return (row[0], row[1])
      }
      return (0, 0)
    }
  }

  public func events(after seq: Int64, limit: Int) throws -> [StoredEvent] {
    try pool.read { db in
      let rows = try Row.fetchCursor(
        db, sql: "SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
        arguments: [seq, limit])
      var events: [StoredEvent] = []
      while let row = try rows.next() { events.append(StoredEvent(seq: row[0], line: row[1])) }
      return events
    }
  }

  // MARK: - Snapshots

  public func writeSnapshot(_ snapshot: SnapshotRecord) throws {
    let hash = Int64(bitPattern: snapshot.zoneSetHash ?? Self.hash(snapshot.zoneSet))
    // A zone set already stored is neither cut nor bound again (most snapshots). A new one is
    // cut here, before the writer is taken, and its new chunks are stored in transactions of
    // their own of about 4 MB each, so commands wait for one batch at most, not for the whole
    // set (74 MB at a million circles the first time).
    let isStored = try pool.read { db in try Self.holdsZoneSet(hash, db) }
    var chunks: ZoneSetChunks?
    if !isStored {
      let cut = try ZoneSetChunks(cutting: snapshot.zoneSet, toStoreAs: UInt64(bitPattern: hash))
      try storeChunks(cut, of: snapshot.zoneSet)
      chunks = cut
    }
    try pool.write { db in
      // Checked again under the writer, with the chunks: a compaction meanwhile (of another
      // handle on the file) may have dropped the set, or chunks no set listed yet.
      if !(try Self.holdsZoneSet(hash, db)) {
        let cut = try chunks
          ?? ZoneSetChunks(cutting: snapshot.zoneSet, toStoreAs: UInt64(bitPattern: hash))
        let held = try Self.heldChunks(db)
        try Self.insertChunks(
          cut.chunks.lazy.filter { !held.contains(Int64(bitPattern: $0.hash)) },
          of: snapshot.zoneSet, db)
        try Self.insertZoneSet(hash: hash, chunks: cut, db)
      }
      try Self.borrowing(snapshot.evaluator) { evaluator in
        try db.execute(
          sql: """
            INSERT OR REPLACE INTO snapshots(command_seq, last_event_seq, zone_fingerprint, zone_set, evaluator, taken_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
          arguments: [
            snapshot.commandSeq, snapshot.lastEventSeq, Int64(bitPattern: snapshot.zoneFingerprint),
            hash, evaluator, snapshot.takenAt.timeIntervalSince1970,
          ])
      }
    }
  }

  /// Stores the chunks of `bytes` that no zone set holds yet, in transactions of about
  /// ``chunkBytesPerTransaction`` bytes.
  /// Chunks stored but not yet listed by a zone set (a kill before the snapshot's own
  /// transaction) are dropped by the next compaction, or listed by the next snapshot.
  private func storeChunks(_ chunks: ZoneSetChunks, of bytes: [UInt8]) throws {
    var held = try pool.read { db in try Self.heldChunks(db) }
    var batch: [ZoneSetChunks.Chunk] = []
    var batchBytes = 0
    func write() throws {
      guard !batch.isEmpty else { return }
      try pool.write { db in try Self.insertChunks(batch, of: bytes, db) }
      batch.removeAll(keepingCapacity: true)
      batchBytes = 0
    }
    for chunk in chunks.chunks where held.insert(Int64(bitPattern: chunk.hash)).inserted {
      batch.append(chunk)
      batchBytes += chunk.range.count
      if batchBytes >= chunkBytesPerTransaction { try write() }
    }
    try write()
  }

  private static func holdsZoneSet(_ hash: Int64, _ db: Database) throws -> Bool {
    try Bool.fetchOne(db, sql: "SELECT 1 FROM zone_sets WHERE hash = ?", arguments: [hash]) ?? false
  }

  /// The keys of every chunk stored (a few thousand at a million zones).
  private static func heldChunks(_ db: Database) throws -> Set<Int64> {
    var held = Set<Int64>()
    let keys = try Int64.fetchCursor(db, sql: "SELECT hash FROM zone_set_chunks")
    while let key = try keys.next() { held.insert(key) }
    return held
  }

  /// Inserts `chunks` of `bytes`; one already stored (a repeat) is left as it is.
  private static func insertChunks(
    _ chunks: some Sequence<ZoneSetChunks.Chunk>, of bytes: [UInt8], _ db: Database
  ) throws {
    let insert = try db.cachedStatement(
      sql: "INSERT OR IGNORE INTO zone_set_chunks(hash, body) VALUES (?, ?)")
    for chunk in chunks {
      try insert.execute(arguments: [Int64(bitPattern: chunk.hash), Data(bytes[chunk.range])])
    }
  }

  /// Stores a zone set whose chunks are all stored: its row (an empty body: "in chunks") and
  /// the list of its chunks.
  private static func insertZoneSet(hash: Int64, chunks: ZoneSetChunks, _ db: Database) throws {
    try db.execute(
      sql: "INSERT INTO zone_sets(hash, body) VALUES (?, zeroblob(0))", arguments: [hash])
    let insertPart = try db.cachedStatement(
      sql: "INSERT INTO zone_set_parts(zone_set, position, chunk) VALUES (?, ?, ?)")
    for (position, chunk) in chunks.chunks.enumerated() {
      try insertPart.execute(arguments: [hash, position, Int64(bitPattern: chunk.hash)])
    }
  }

  /// The bytes of the zone set `hash` whose row holds `body`: the body itself (a row written
  /// before schema v2), or its chunks joined and checked against the hash.
  private static func zoneSetBytes(_ hash: Int64, body: Data, _ db: Database) throws -> [UInt8] {
    guard body.isEmpty else { return [UInt8](body) }
    let parts = try Data.fetchAll(
      db,
      sql: """
        SELECT c.body FROM zone_set_parts p JOIN zone_set_chunks c ON c.hash = p.chunk
        WHERE p.zone_set = ? ORDER BY p.position
        """, arguments: [hash])
    return try ZoneSetChunks.assemble(parts, zoneSet: UInt64(bitPattern: hash))
  }

  public func latestSnapshot() throws -> SnapshotRecord? {
    try pool.read { db in
      guard
        let row = try Row.fetchOne(
          db,
          sql: """
            SELECT s.command_seq, s.last_event_seq, s.zone_fingerprint, z.body, s.evaluator, s.taken_at,
              s.zone_set
            FROM snapshots s JOIN zone_sets z ON z.hash = s.zone_set
            ORDER BY s.command_seq DESC LIMIT 1
            """)
      else { return nil }
      let fingerprint: Int64 = row[2]
      let body: Data = row[3]
      let evaluator: Data = row[4]
      let takenAt: Double = row[5]
      let zoneSetHash: Int64 = row[6]
      return SnapshotRecord(
        commandSeq: row[0], lastEventSeq: row[1], zoneFingerprint: UInt64(bitPattern: fingerprint),
        zoneSet: try Self.zoneSetBytes(zoneSetHash, body: body, db),
        zoneSetHash: UInt64(bitPattern: zoneSetHash),
        evaluator: [UInt8](evaluator), takenAt: Date(timeIntervalSince1970: takenAt))
    }
  }

  // MARK: - Cursors

  public func cursor(_ name: String) throws -> Int64? {
    try pool.read { db in
      try Int64.fetchOne(db, sql: "SELECT seq FROM cursors WHERE name = ?", arguments: [name])
    }
  }

  public func setCursor(_ name: String, to seq: Int64) throws {
    try pool.write { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO cursors(name, seq) VALUES (?, ?)", arguments: [name, seq])
    }
  }

  public func cursors() throws -> [String: Int64] {
    try pool.read { db in
      var result: [String: Int64] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT name, seq FROM cursors") {
        result[row[0]] = row[1]
      }
      return result
    }
  }

  // MARK: - Compaction

  public func compact(_ plan: CompactionPlan) throws -> CompactionReport {
    try pool.write { db in
      var report = CompactionReport()
      try db.execute(sql: "DELETE FROM commands WHERE seq <= ?", arguments: [plan.commandsThrough])
      report.commands = db.changesCount
      try db.execute(
        sql: "DELETE FROM snapshots WHERE command_seq < ?", arguments: [plan.commandsThrough])
      report.snapshots = db.changesCount
      try db.execute(
        sql: "DELETE FROM zone_sets WHERE hash NOT IN (SELECT zone_set FROM snapshots)")
      report.zoneSets = db.changesCount
      // The dropped sets' lists of chunks went with them (ON DELETE CASCADE); a chunk goes
      // when no list names it.
      try db.execute(
        sql: "DELETE FROM zone_set_chunks WHERE hash NOT IN (SELECT chunk FROM zone_set_parts)")
      let before = plan.recordedBefore.timeIntervalSince1970
      try db.execute(
        sql: "DELETE FROM events WHERE seq <= ? AND recorded_at < ?",
        arguments: [plan.eventsThrough, before])
      report.events = db.changesCount
      try db.execute(
        sql: "DELETE FROM idempotency WHERE command_seq <= ? AND recorded_at < ?",
        arguments: [plan.commandsThrough, before])
      report.idempotencyKeys = db.changesCount
      return report
    }
  }

  public func close() throws {
    try pool.close()
  }

  /// The database file of a store directory: `DIR/fence.sqlite`.
  public static func databasePath(in directory: String) -> String {
    (directory as NSString).appendingPathComponent("fence.sqlite")
  }

  /// 64-bit FNV-1a (``ContentHash``) of a zone set's bytes: its key in `zone_sets`.
  public static func hash(_ bytes: [UInt8]) -> UInt64 { ContentHash.of(bytes) }
}
