import FenceStore
import FenceEngine
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One connection to a store's database, used by one caller at a time, with the schema
/// migrated on opening: the writing connection of a ``PostgresStorage``, and the one
/// connection of ``PartitionLeases`` and of ``PartitionInbox``.
final class PostgresSession: Sendable {
  let logger: Logger
  let settings: PostgresSettings
  /// Statements run on every new connection (session settings such as timeouts).
  let setup: [String]
  /// What the session serves, for error messages ("PostgreSQL leases: …").
  let purpose: String
  private let connection: LockedValue<PostgresConnection?>

  /// Connects, runs `setup` (statements such as `SET lock_timeout = 1000`, run again on every
  /// reconnection) and migrates the schema (``PostgresSchema``).
  init(settings: PostgresSettings, purpose: String, logger: Logger, setup: [String] = []) throws {
    self.logger = logger
    self.purpose = purpose
    self.settings = settings
    self.setup = setup
    let opened = try PostgresStorage.connect(settings, logger: logger)
    connection = LockedValue(opened)
    do {
      try Self.runSetup(setup, on: opened, purpose: purpose, logger: logger)
      try PostgresSchema.migrate(opened, logger: logger)
    } catch {
      close()
      throw error
    }
  }

  deinit { close() }

  /// Runs `body` with the connection, no other caller using it meanwhile. A connection the
  /// server or the network closed (a restarted PostgreSQL) is replaced by a new one first; the
  /// call that saw it break failed with ``StoreError/storageFailed(_:)``.
  func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    try connection.withLock { connection in
      guard let current = connection else { throw StoreError.closed }
      if current.isClosed {
        let opened = try PostgresStorage.connect(settings, logger: logger)
        do {
          try Self.runSetup(setup, on: opened, purpose: purpose, logger: logger)
        } catch {
          let closing: EventLoopFuture<Void> = opened.close()
          closing.whenComplete { _ in }
          throw error
        }
        connection = opened
        logger.notice("reconnected to PostgreSQL", metadata: ["purpose": "\(purpose)"])
      }
      return try body(connection!)
    }
  }

  static func runSetup(_ setup: [String], on connection: PostgresConnection, purpose: String, logger: Logger)
    throws
  {
    for statement in setup {
      do {
        _ = try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait()
      } catch {
        throw StoreError.storageFailed("PostgreSQL \(purpose): \(statement): \(describe(error))")
      }
    }
  }

  /// Runs `query` on `connection`, mapping postgres-nio's errors to ``StoreError``.
  @discardableResult
  func run(_ query: PostgresQuery, on connection: PostgresConnection) throws -> PostgresQueryResult {
    do {
      return try connection.query(query, logger: logger).wait()
    } catch {
      throw StoreError.storageFailed("PostgreSQL \(purpose): \(describe(error))")
    }
  }

  /// Runs one query on its own.
  @discardableResult
  func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
    try withConnection { try run(query, on: $0) }
  }

  /// Closes the connection; later calls fail with ``StoreError/closed``.
  func close() {
    let closing = connection.withLock { connection in
      defer { connection = nil }
      return connection
    }
    if let closing {
      let future: EventLoopFuture<Void> = closing.close()
      try? future.wait()
    }
  }
}
