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
  /// Connections whose query got no answer in time: replaced before the next use.
  private let stalled = LockedValue<Set<ObjectIdentifier>>([])
  /// The longest a query waits for the server's answer (see ``run(_:on:)``).
  let queryTimeout: TimeAmount

  /// Connects, runs `setup` (statements such as `SET lock_timeout = 1000`, run again on every
  /// reconnection) and migrates the schema (``PostgresSchema``).
  init(
    settings: PostgresSettings, purpose: String, logger: Logger, setup: [String] = [],
    queryTimeout: TimeAmount = .seconds(60)
  ) throws {
    self.queryTimeout = queryTimeout
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
      let isStalled = stalled.withLock { $0.remove(ObjectIdentifier(current)) != nil }
      if current.isClosed || isStalled {
        let opened = try PostgresStorage.connect(settings, logger: logger)
        do {
          try Self.runSetup(setup, on: opened, purpose: purpose, logger: logger)
        } catch {
          Self.discard(opened)
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
  ///
  /// A query that gets no answer within ``queryTimeout`` fails, and its connection is closed
  /// and replaced before the next use: the network never makes a caller wait forever. (Seen in
  /// the SIGSTOP drill: a connection whose session the server ended while the process was
  /// frozen took a query after the process resumed and never answered it.)
  @discardableResult
  func run(_ query: PostgresQuery, on connection: PostgresConnection) throws -> PostgresQueryResult {
    do {
      return try Self.wait(connection.query(query, logger: logger), timeout: queryTimeout)
    } catch let timeout as QueryTimeout {
      stalled.withLock { _ = $0.insert(ObjectIdentifier(connection)) }
      Self.discard(connection)
      throw StoreError.storageFailed("PostgreSQL \(purpose): \(timeout)")
    } catch {
      throw StoreError.storageFailed("PostgreSQL \(purpose): \(describe(error))")
    }
  }

  /// No answer within the time.
  struct QueryTimeout: Error, CustomStringConvertible {
    var timeout: TimeAmount
    var description: String {
      let seconds = Double(timeout.nanoseconds) / 1e9
      let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
      return "no answer from the server within \(shown) s"
    }
  }

  /// Waits for `future`, at most `timeout`.
  static func wait<T: Sendable>(_ future: EventLoopFuture<T>, timeout: TimeAmount) throws -> T {
    let promise = future.eventLoop.makePromise(of: T.self)
    future.cascade(to: promise)
    let timer = future.eventLoop.scheduleTask(in: timeout) {
      promise.fail(QueryTimeout(timeout: timeout))
    }
    defer { timer.cancel() }
    return try promise.futureResult.wait()
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
    if let closing { Self.closeWaiting(closing) }
  }

  /// Closes `connection` without waiting for it, and keeps the connection alive until it has
  /// closed.
  ///
  /// postgres-nio asserts that a connection is closed before it is deinitialized: a connection
  /// dropped while its close is still under way stops a debug build with SIGILL. That is how
  /// `fenced` died in the PostgreSQL crash drill, when a read failed on a connection the
  /// restarted server had ended (decision 0010).
  @discardableResult
  static func discard(_ connection: PostgresConnection) -> EventLoopFuture<Void> {
    let closing: EventLoopFuture<Void> = connection.close()
    closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    return closing
  }

  /// ``discard(_:)``, then waits for the close, at most 10 s (a silent server does not hold a
  /// caller that is shutting down).
  static func closeWaiting(_ connection: PostgresConnection) {
    _ = try? wait(discard(connection), timeout: .seconds(10))
  }
}
