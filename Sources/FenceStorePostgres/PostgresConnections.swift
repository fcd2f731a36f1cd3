import FenceStore
import FenceEngine
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The connections a ``PostgresStorage`` works through: one that writes (one caller at a time,
/// in command order) and a pool of idle ones that read, so that a read never waits for a
/// commit.
///
/// A storage opened on its own has a set of its own. The owners of the scaled-out store share
/// one set among all the partitions a process owns (``PostgresStorage/init(connections:partition:fencingToken:logger:)``):
/// sixty-four partitions with a writing connection each, in three processes, would pass
/// PostgreSQL's default `max_connections` of 100. Their commands then commit one at a time,
/// which is how the owner's loop executes them anyway.
public final class PostgresConnections: Sendable {
  public let settings: PostgresSettings
  let logger: Logger
  /// The writing connection (it also maps postgres-nio's errors for the reading ones).
  let writer: PostgresSession
  private let idleReaders = LockedValue<[PostgresConnection]>([])
  private let isClosed = LockedValue(false)

  /// Connects the writing connection and migrates the schema (``PostgresSchema``).
  ///
  /// - Parameter idleInTransactionTimeout: when set, the server ends the writing connection's
  ///   session when it stays that long inside a transaction: an owner frozen mid-transaction
  ///   (SIGSTOP, a long pause) would otherwise hold its lease row locked, and no other process
  ///   could take its partitions over.
  /// - Throws: ``StoreError/storageFailed(_:)`` when the server cannot be reached or refuses the
  ///   login; ``StoreError/damaged(_:)`` when the schema is newer than this version reads.
  public init(
    settings: PostgresSettings, logger: Logger? = nil, idleInTransactionTimeout: Double? = nil
  ) throws {
    self.settings = settings
    let logger = logger ?? Logger(label: "FenceStore.PostgresStorage")
    self.logger = logger
    let setup = idleInTransactionTimeout.map {
      ["SET idle_in_transaction_session_timeout = \(max(1, Int(($0 * 1000).rounded())))"]
    } ?? []
    // An owner's writer (it has a lease time) gives up on a silent server within a few lease
    // times (30 s at the default 5 s lease; a snapshot of a large zone set takes seconds).
    let timeout = idleInTransactionTimeout.map { TimeAmount.seconds(Int64(max(10, $0 * 6))) } ?? .seconds(60)
    writer = try PostgresSession(
      settings: settings, purpose: "storage", logger: logger, setup: setup, queryTimeout: timeout)
  }

  deinit { close() }

  /// Runs `body` on the writing connection (one caller at a time).
  func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    guard !isClosed.withLock({ $0 }) else { throw StoreError.closed }
    return try writer.withConnection(body)
  }

  /// Runs `body` on a reading connection: an idle one, or a new one.
  func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    guard !isClosed.withLock({ $0 }) else { throw StoreError.closed }
    // An idle connection the server closed meanwhile (a restart) is dropped, not used.
    let idle = idleReaders.withLock { readers -> PostgresConnection? in
      while let last = readers.popLast() {
        if !last.isClosed { return last }
      }
      return nil
    }
    let connection = try idle ?? PostgresStorage.connect(settings, logger: logger)
    do {
      let result = try body(connection)
      idleReaders.withLock { $0.append(connection) }
      return result
    } catch {
      // A connection that failed may be broken: it is not kept.
      PostgresSession.discard(connection)
      throw error
    }
  }

  /// Runs `query` and returns its rows, mapping postgres-nio's errors to ``StoreError``.
  func rows(_ query: PostgresQuery, on connection: PostgresConnection) throws -> PostgresQueryResult {
    try writer.run(query, on: connection)
  }

  /// Closes every connection; later calls fail with ``StoreError/closed``.
  public func close() {
    let wasClosed = isClosed.withLock { closed in
      defer { closed = true }
      return closed
    }
    guard !wasClosed else { return }
    writer.close()
    let readers = idleReaders.withLock { readers in
      defer { readers = [] }
      return readers
    }
    for connection in readers {
      PostgresSession.closeWaiting(connection)
    }
  }
}
