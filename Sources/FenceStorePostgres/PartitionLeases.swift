import FenceStore
import FenceEngine
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Leases on partitions of a PostgreSQL store, with fencing tokens: which process may write a
/// partition's commands and events (decision 0010).
///
/// A lease is a row of `fk_leases`: the partition, its owner, a token that grows by one at
/// every change of owner, and an expiry in the database server's clock (so that the processes'
/// clocks do not matter). A process takes a partition whose lease is free or expired, renews it
/// well inside its time to live, and writes through a ``PostgresStorage`` made with the token
/// it got. Every write transaction of that storage first locks the lease row and checks that it
/// still holds the token; a process paused past its lease (a long GC pause, SIGSTOP, a network
/// cut) whose partition was taken over therefore fails with ``StoreError/leaseLost(partition:)``
/// instead of writing, whatever it believes about time.
public final class PartitionLeases: Sendable {
  /// One held lease.
  public struct Lease: Hashable, Sendable {
    public var partition: Int32
    public var owner: String
    /// The fencing token: larger than every earlier owner's.
    public var token: Int64

    public init(partition: Int32, owner: String, token: Int64) {
      self.partition = partition
      self.owner = owner
      self.token = token
    }
  }

  public let settings: PostgresSettings
  let session: PostgresSession

  /// Connects to the store's database (migrating its schema, as ``PostgresStorage`` does).
  ///
  /// - Parameter lockTimeout: when set, a lease statement that waits this long for a row lock
  ///   (an old owner frozen inside a transaction on the lease row) fails instead of waiting on.
  public init(settings: PostgresSettings, logger: Logger? = nil, lockTimeout: Double? = nil) throws {
    self.settings = settings
    session = try PostgresSession(
      settings: settings, purpose: "leases",
      logger: logger ?? Logger(label: "FenceStore.PartitionLeases"),
      setup: lockTimeout.map { ["SET lock_timeout = \(max(1, Int(($0 * 1000).rounded())))"] } ?? [])
  }

  /// Takes the lease of `partition` for `owner` for `seconds` when it is free, expired, or
  /// already `owner`'s (then with a new token: a restarted owner must not share its old
  /// incarnation's). `nil` when another owner holds it.
  public func acquire(_ partition: Int32, owner: String, seconds: Double) throws -> Lease? {
    let milliseconds = Int64((seconds * 1000).rounded())
    let rows = try run(
      """
      INSERT INTO fk_leases(partition, owner, token, expires_at)
      VALUES (\(partition), \(owner), 1, clock_timestamp() + \(milliseconds) * interval '1 millisecond')
      ON CONFLICT (partition) DO UPDATE SET
        owner = EXCLUDED.owner, token = fk_leases.token + 1, expires_at = EXCLUDED.expires_at
      WHERE fk_leases.expires_at < clock_timestamp() OR fk_leases.owner = EXCLUDED.owner
      RETURNING token
      """)
    return try rows.first.map { Lease(partition: partition, owner: owner, token: try $0.decode(Int64.self)) }
  }

  /// Extends a held lease by `seconds` from now; `false` when it was lost (another owner's
  /// token is there now).
  public func renew(_ lease: Lease, seconds: Double) throws -> Bool {
    let milliseconds = Int64((seconds * 1000).rounded())
    let rows = try run(
      """
      UPDATE fk_leases SET expires_at = clock_timestamp() + \(milliseconds) * interval '1 millisecond'
      WHERE partition = \(lease.partition) AND token = \(lease.token)
      RETURNING token
      """)
    return rows.first != nil
  }

  /// Gives a held lease up at once (another process may take it without waiting for expiry).
  public func release(_ lease: Lease) throws {
    _ = try run(
      """
      UPDATE fk_leases SET expires_at = clock_timestamp() - interval '1 millisecond'
      WHERE partition = \(lease.partition) AND token = \(lease.token)
      """)
  }

  /// Every lease, by partition: owner, token, and whether it is live now.
  public func leases() throws -> [Int32: (owner: String, token: Int64, isLive: Bool)] {
    var result: [Int32: (owner: String, token: Int64, isLive: Bool)] = [:]
    for row in try run(
      "SELECT partition, owner, token, expires_at > clock_timestamp() FROM fk_leases")
    {
      let (partition, owner, token, isLive) = try row.decode((Int32, String, Int64, Bool).self)
      result[partition] = (owner, token, isLive)
    }
    return result
  }

  /// Notes `owner` as a live process for `seconds` (``liveOwners()``), and forgets processes
  /// whose note expired long ago.
  public func heartbeat(owner: String, seconds: Double) throws {
    let milliseconds = Int64((seconds * 1000).rounded())
    _ = try run(
      """
      INSERT INTO fk_owners(owner, expires_at)
      VALUES (\(owner), clock_timestamp() + \(milliseconds) * interval '1 millisecond')
      ON CONFLICT (owner) DO UPDATE SET expires_at = EXCLUDED.expires_at
      """)
    _ = try run("DELETE FROM fk_owners WHERE expires_at < clock_timestamp() - interval '1 hour'")
  }

  /// The processes whose ``heartbeat(owner:seconds:)`` is live, by name.
  public func liveOwners() throws -> [String] {
    try run("SELECT owner FROM fk_owners WHERE expires_at > clock_timestamp() ORDER BY owner")
      .map { try $0.decode(String.self) }
  }

  /// Forgets `owner` at once (it stops): the others take its share without waiting.
  public func leave(owner: String) throws {
    _ = try run("DELETE FROM fk_owners WHERE owner = \(owner)")
  }

  /// Closes the connection; later calls fail.
  public func close() { session.close() }

  private func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
    try session.run(query)
  }
}
