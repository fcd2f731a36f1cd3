import FenceStore
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The tables of ``PostgresStorage``, created and migrated when a storage opens.
///
/// Versions are applied in order, each in one transaction with its row in
/// `fk_schema_versions`, under a transaction-scoped advisory lock: several `fenced` processes
/// starting together migrate once. A released version is never edited: add one. A database
/// with a version this code does not know refuses to open (a newer `fenced` migrated it).
enum PostgresSchema {
  /// The advisory lock key of migrations (an arbitrary constant: "FKschema").
  static let lockKey: Int64 = 0x464B_7363_6865_6D61

  /// The advisory lock key of zone sets ("FKchunks"): a snapshot's transaction takes it shared
  /// before it looks for its zone set and chunks and lists them, a compaction exclusive before
  /// it drops sets and chunks; so no compaction drops a chunk between a writer's finding it
  /// and its list committing.
  static let zoneSetLockKey: Int64 = 0x464B_6368_756E_6B73

  /// The schema's versions, oldest first.
  static let versions: [(version: Int64, sql: [String])] = [
    (
      1,
      [
        """
        CREATE TABLE fk_meta(
          partition integer NOT NULL, key text NOT NULL, value text NOT NULL,
          PRIMARY KEY (partition, key))
        """,
        """
        CREATE TABLE fk_commands(
          partition integer NOT NULL, seq bigint NOT NULL, kind bigint NOT NULL,
          payload bytea NOT NULL, first_event_seq bigint NOT NULL, event_count bigint NOT NULL,
          answer text NOT NULL, recorded_at timestamptz NOT NULL,
          PRIMARY KEY (partition, seq))
        """,
        """
        CREATE TABLE fk_events(
          partition integer NOT NULL, seq bigint NOT NULL, command_seq bigint NOT NULL,
          body text NOT NULL, recorded_at timestamptz NOT NULL,
          PRIMARY KEY (partition, seq))
        """,
        """
        CREATE TABLE fk_idempotency(
          partition integer NOT NULL, key text NOT NULL, command_seq bigint NOT NULL,
          answer text NOT NULL, recorded_at timestamptz NOT NULL,
          PRIMARY KEY (partition, key))
        """,
        "CREATE TABLE fk_zone_sets(hash bigint PRIMARY KEY, body bytea NOT NULL)",
        """
        CREATE TABLE fk_snapshots(
          partition integer NOT NULL, command_seq bigint NOT NULL, last_event_seq bigint NOT NULL,
          zone_fingerprint bigint NOT NULL, zone_set bigint NOT NULL REFERENCES fk_zone_sets(hash),
          evaluator bytea NOT NULL, taken_at timestamptz NOT NULL,
          PRIMARY KEY (partition, command_seq))
        """,
        """
        CREATE TABLE fk_cursors(
          partition integer NOT NULL, name text NOT NULL, seq bigint NOT NULL,
          PRIMARY KEY (partition, name))
        """,
      ]
    ),
    (
      2,
      [
        """
        CREATE TABLE fk_leases(
          partition integer PRIMARY KEY, owner text NOT NULL, token bigint NOT NULL,
          expires_at timestamptz NOT NULL)
        """
      ]
    ),
    (
      3,
      [
        "CREATE TABLE fk_partitioning(id integer PRIMARY KEY CHECK (id = 0), partitions integer NOT NULL)",
        "CREATE TABLE fk_inbox_heads(partition integer PRIMARY KEY, seq bigint NOT NULL)",
        """
        CREATE TABLE fk_inbox(
          partition integer NOT NULL, seq bigint NOT NULL, kind bigint NOT NULL,
          payload bytea NOT NULL, received_at timestamptz NOT NULL,
          PRIMARY KEY (partition, seq))
        """,
        """
        CREATE TABLE fk_inbox_batches(
          key text PRIMARY KEY, receipt text NOT NULL, received_at timestamptz NOT NULL)
        """,
      ]
    ),
    (
      4,
      [
        // One row per inbox command an owner executed, committed with it: where the next owner
        // resumes, and the answer a waiting ingest reads.
        """
        CREATE TABLE fk_inbox_done(
          partition integer NOT NULL, seq bigint NOT NULL, answer text NOT NULL,
          done_at timestamptz NOT NULL, PRIMARY KEY (partition, seq))
        """,
        // The live processes, so that each takes its fair share of the partitions.
        "CREATE TABLE fk_owners(owner text PRIMARY KEY, expires_at timestamptz NOT NULL)",
      ]
    ),
    (
      5,
      [
        // Zone sets in content-defined chunks (`ZoneSetChunks`), each chunk stored once: a
        // snapshot after a few zone changes sends the chunks around them, not the whole set. A
        // zone set stored this way has an empty body; one stored before keeps its bytes there.
        // No foreign keys on the list: their checks ran once per listed chunk (thousands for a
        // large set) in the snapshot's transaction. Writers and compaction exclude each other
        // by the advisory lock `zoneSetLockKey` instead.
        "CREATE TABLE fk_zone_set_chunks(hash bigint PRIMARY KEY, body bytea NOT NULL)",
        """
        CREATE TABLE fk_zone_set_parts(
          zone_set bigint NOT NULL, position integer NOT NULL, chunk bigint NOT NULL,
          PRIMARY KEY (zone_set, position))
        """,
        "CREATE INDEX fk_zone_set_parts_by_chunk ON fk_zone_set_parts(chunk)",
        // A snapshot's large values compressed with LZ4 where the server has it, else stored
        // uncompressed: the default, pglz, compressed them at about 30 MB/s inside the
        // snapshot's transaction, which commands wait behind.
        """
        DO $$
        BEGIN
          IF 'lz4' = ANY(coalesce(
            (SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'), '{}'))
          THEN
            ALTER TABLE fk_zone_set_chunks ALTER COLUMN body SET COMPRESSION lz4;
            ALTER TABLE fk_snapshots ALTER COLUMN evaluator SET COMPRESSION lz4;
          ELSE
            ALTER TABLE fk_zone_set_chunks ALTER COLUMN body SET STORAGE EXTERNAL;
            ALTER TABLE fk_snapshots ALTER COLUMN evaluator SET STORAGE EXTERNAL;
          END IF;
        END
        $$
        """,
      ]
    ),
  ]

  /// The newest version this code knows.
  static var latest: Int64 { versions.last?.version ?? 0 }

  /// Brings the database to ``latest``.
  static func migrate(_ connection: PostgresConnection, logger: Logger) throws {
    func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
      do {
        return try connection.query(query, logger: logger).wait()
      } catch {
        throw StoreError.storageFailed("PostgreSQL schema migration: \(describe(error))")
      }
    }
    _ = try run("BEGIN")
    do {
      _ = try run("SELECT pg_advisory_xact_lock(\(lockKey))")
      _ = try run(
        """
        CREATE TABLE IF NOT EXISTS fk_schema_versions(
          version bigint PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
        """)
      let applied = try run("SELECT version FROM fk_schema_versions ORDER BY version").map {
        try $0.decode(Int64.self)
      }
      if let newest = applied.last, newest > latest {
        throw StoreError.damaged(
          "the PostgreSQL schema is at version \(newest); this version of FenceStore reads up to \(latest)")
      }
      for (version, statements) in versions where !applied.contains(version) {
        for statement in statements { _ = try run(PostgresQuery(unsafeSQL: statement)) }
        _ = try run("INSERT INTO fk_schema_versions(version) VALUES (\(version))")
        logger.info("migrated the PostgreSQL schema", metadata: ["version": "\(version)"])
      }
      _ = try run("COMMIT")
    } catch {
      _ = try? run("ROLLBACK")
      throw error
    }
  }
}
