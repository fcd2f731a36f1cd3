import FenceStore
import FenceEngine
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The commands a scaled-out store accepted, per partition, before their owners execute them
/// (decision 0010): what any process does with a request.
///
/// ``submit(_:idempotencyKey:)`` splits a command by partition and appends each part to its
/// partition's inbox in one transaction: a fix batch's fixes go to their devices' partitions
/// (in batch order within each), a device's tags to its partition, and an advance or a zone
/// change to every partition. Each partition's inbox is numbered 1, 2, 3, … without gaps, in
/// commit order: the head row of every partition touched is locked (in partition order, so
/// that concurrent submits cannot deadlock) and incremented in the transaction. A zone change
/// therefore sits at one place in every partition's order relative to that partition's fixes.
///
/// With an idempotency key, a command submitted again (by any process) gets its first receipt
/// back and appends nothing.
public final class PartitionInbox: Sendable {
  /// Where a submitted command went.
  public struct Receipt: Hashable, Sendable {
    /// The parts, by partition ascending: each part's inbox seq.
    public var parts: [Part]
    /// Whether the command had been submitted before under the same key (nothing appended).
    public var isReplay = false

    public struct Part: Hashable, Sendable {
      public var partition: Int32
      public var seq: Int64
    }
  }

  public let settings: PostgresSettings
  /// The store's partitioning (its count as the store was created with).
  public let partitioning: DevicePartitioning
  let session: PostgresSession

  /// Connects, migrates the schema, and creates the partitioning with `partitions` when the
  /// store has none yet.
  ///
  /// - Throws: ``StoreError/invalidCommand(_:)`` when the store was created with another
  ///   partition count (it is fixed for the store's life: devices would change partitions).
  public init(settings: PostgresSettings, partitions: Int32, logger: Logger? = nil) throws {
    guard (1...65_536).contains(partitions) else {
      throw StoreError.invalidCommand("a partition count is from 1 to 65536, got \(partitions)")
    }
    self.settings = settings
    let session = try PostgresSession(
      settings: settings, purpose: "inbox",
      logger: logger ?? Logger(label: "FenceStore.PartitionInbox"))
    self.session = session
    let stored = try session.withConnection { connection in
      try session.run("BEGIN", on: connection)
      do {
        try session.run(
          "INSERT INTO fk_partitioning(id, partitions) VALUES (0, \(partitions)) ON CONFLICT (id) DO NOTHING",
          on: connection)
        let stored =
          try session.run("SELECT partitions FROM fk_partitioning", on: connection)
          .first.map { try $0.decode(Int32.self) } ?? partitions
        try session.run(
          """
          INSERT INTO fk_inbox_heads(partition, seq)
          SELECT p, 0 FROM generate_series(0, \(stored - 1)) AS p ON CONFLICT (partition) DO NOTHING
          """, on: connection)
        try session.run("COMMIT", on: connection)
        return stored
      } catch {
        _ = try? session.run("ROLLBACK", on: connection)
        throw error
      }
    }
    partitioning = DevicePartitioning(count: stored)
    guard stored == partitions else {
      close()
      throw StoreError.invalidCommand(
        "the store was created with \(stored) partitions; it cannot be started with \(partitions)")
    }
  }

  deinit { close() }

  /// The parts of `command`, by partition ascending (see the type's description).
  public func parts(of command: StoreCommand) -> [(partition: Int32, command: StoreCommand)] {
    switch command {
    case .fixes(let fixes):
      var byPartition: [Int32: [LocationFix]] = [:]
      for fix in fixes { byPartition[partitioning.partition(of: fix.device), default: []].append(fix) }
      return byPartition.keys.sorted().map { ($0, .fixes(byPartition[$0]!)) }
    case .setDeviceTags(let device, _):
      return [(partitioning.partition(of: device), command)]
    case .advance, .addZones, .replaceAllZones, .removeZone:
      return (0..<partitioning.count).map { ($0, command) }
    }
  }

  /// Appends `command`'s parts to their partitions' inboxes in one transaction (see the type's
  /// description) and returns where they went; with a key already used, the first receipt.
  public func submit(_ command: StoreCommand, idempotencyKey: String? = nil) throws -> Receipt {
    if let idempotencyKey, idempotencyKey.utf8.count > FenceStore.Options.maximumIdempotencyKeyLength {
      throw StoreError.invalidCommand("idempotency key longer than 200 bytes")
    }
    let parts = parts(of: command)
    // A zone change's payload is the same for every partition: encoded once.
    var payloads: [[UInt8]] = []
    var shared: [UInt8]?
    for part in parts {
      if case .fixes = part.command {
        payloads.append(try part.command.encodedPayload())
      } else {
        if shared == nil { shared = try part.command.encodedPayload() }
        payloads.append(shared!)
      }
    }
    let kind = Int64(command.kindCode)
    return try session.withConnection { connection in
      func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try session.run(query, on: connection)
      }
      _ = try run("BEGIN")
      do {
        if let idempotencyKey, let stored = try storedReceipt(idempotencyKey, run: run) {
          _ = try run("COMMIT")
          return stored
        }
        let partitions = parts.map(\.partition)
        // Heads locked in partition order, then advanced in one statement.
        _ = try run(
          "SELECT partition FROM fk_inbox_heads WHERE partition = ANY(\(partitions)) ORDER BY partition FOR UPDATE")
        var seqs: [Int32: Int64] = [:]
        for row in try run(
          "UPDATE fk_inbox_heads SET seq = seq + 1 WHERE partition = ANY(\(partitions)) RETURNING partition, seq")
        {
          let (partition, seq) = try row.decode((Int32, Int64).self)
          seqs[partition] = seq
        }
        guard seqs.count == partitions.count else {
          throw StoreError.damaged("the inbox heads of some partitions are missing")
        }
        let orderedSeqs = partitions.map { seqs[$0]! }
        let buffers = payloads.map { ByteBuffer(bytes: $0) }
        _ = try run(
          """
          INSERT INTO fk_inbox(partition, seq, kind, payload, received_at)
          SELECT p, s, \(kind), b, now()
          FROM unnest(\(partitions)::integer[], \(orderedSeqs)::bigint[], \(buffers)::bytea[]) AS t(p, s, b)
          """)
        let receipt = Receipt(
          parts: zip(partitions, orderedSeqs).map { Receipt.Part(partition: $0, seq: $1) })
        if let idempotencyKey {
          let inserted = try run(
            """
            INSERT INTO fk_inbox_batches(key, receipt, received_at)
            VALUES (\(idempotencyKey), \(Self.encode(receipt)), now())
            ON CONFLICT (key) DO NOTHING RETURNING key
            """)
          if inserted.first == nil {
            // Another process committed the same key meanwhile: its receipt stands.
            _ = try run("ROLLBACK")
            _ = try run("BEGIN")
            let stored = try storedReceipt(idempotencyKey, run: run)
            _ = try run("COMMIT")
            guard let stored else { throw StoreError.damaged("idempotency key \(idempotencyKey) vanished") }
            return stored
          }
        }
        // Wakes the owners at the commit (they also poll: a lost notification only delays).
        _ = try run("NOTIFY fk_inbox")
        _ = try run("COMMIT")
        return receipt
      } catch {
        _ = try? run("ROLLBACK")
        throw error
      }
    }
  }

  /// The commands of `partition`'s inbox after `seq`, at most `limit`, in order.
  public func commands(partition: Int32, after seq: Int64, limit: Int) throws
    -> [(seq: Int64, command: StoreCommand)]
  {
    try session.withConnection { connection in
      try session.run(
        """
        SELECT seq, kind, payload FROM fk_inbox WHERE partition = \(partition) AND seq > \(seq)
        ORDER BY seq LIMIT \(Int64(limit))
        """, on: connection
      ).map { row in
        let (seq, kind, payload) = try row.decode((Int64, Int64, ByteBuffer).self)
        return (
          seq,
          try StoreCommand(
            kindCode: Int(kind), payload: Array(payload.readableBytesView), commandSeq: seq)
        )
      }
    }
  }

  /// The last inbox seq of each of `partitions` (0 for an empty inbox).
  public func heads(of partitions: [Int32]) throws -> [Int32: Int64] {
    var heads: [Int32: Int64] = [:]
    for row in try session.run(
      "SELECT partition, seq FROM fk_inbox_heads WHERE partition = ANY(\(partitions))")
    {
      let (partition, seq) = try row.decode((Int32, Int64).self)
      heads[partition] = seq
    }
    return heads
  }

  /// The answers of the parts of `receipt` that their owners executed so far, by partition:
  /// each the JSON of a ``FenceStore/CommandAnswer``, or `{"error":…,"status":…}` for a command
  /// the engine refused.
  public func outcomes(of receipt: Receipt) throws -> [Int32: String] {
    let partitions = receipt.parts.map(\.partition)
    let seqs = receipt.parts.map(\.seq)
    var answers: [Int32: String] = [:]
    for row in try session.run(
      """
      SELECT d.partition, d.answer FROM fk_inbox_done d
      JOIN unnest(\(partitions)::integer[], \(seqs)::bigint[]) AS r(p, s)
        ON d.partition = r.p AND d.seq = r.s
      """)
    {
      let (partition, answer) = try row.decode((Int32, String).self)
      answers[partition] = answer
    }
    return answers
  }

  /// Drops the commands of `partition` up to `seq` (executed: the owner's progress) received
  /// before `cutoff`, and their recorded outcomes but the last one (where the next owner
  /// resumes); returns the commands dropped.
  public func prune(partition: Int32, through seq: Int64, before cutoff: Date) throws -> Int {
    let dropped = try session.run(
      """
      DELETE FROM fk_inbox WHERE partition = \(partition) AND seq <= \(seq) AND received_at < \(cutoff)
      """)
    try session.run(
      """
      DELETE FROM fk_inbox_done WHERE partition = \(partition) AND seq < \(seq) AND done_at < \(cutoff)
      """)
    return Int(dropped.metadata.rows ?? 0)
  }

  /// Drops the idempotency keys of commands submitted before `cutoff`; returns how many.
  public func pruneKeys(before cutoff: Date) throws -> Int {
    Int(try session.run("DELETE FROM fk_inbox_batches WHERE received_at < \(cutoff)").metadata.rows ?? 0)
  }

  /// Closes the connection; later calls fail.
  public func close() { session.close() }

  private func storedReceipt(
    _ key: String, run: (PostgresQuery) throws -> PostgresQueryResult
  ) throws -> Receipt? {
    guard let text = try run("SELECT receipt FROM fk_inbox_batches WHERE key = \(key)").first
    else { return nil }
    guard var receipt = Self.decode(try text.decode(String.self)) else {
      throw StoreError.damaged("the receipt of idempotency key \(key) does not read")
    }
    receipt.isReplay = true
    return receipt
  }

  /// `partition:seq` pairs separated by commas.
  static func encode(_ receipt: Receipt) -> String {
    receipt.parts.map { "\($0.partition):\($0.seq)" }.joined(separator: ",")
  }

  static func decode(_ text: String) -> Receipt? {
    var parts: [Receipt.Part] = []
    for item in text.split(separator: ",") {
      let pair = item.split(separator: ":")
      guard pair.count == 2, let partition = Int32(pair[0]), let seq = Int64(pair[1]) else { return nil }
      parts.append(Receipt.Part(partition: partition, seq: seq))
    }
    return Receipt(parts: parts)
  }
}
