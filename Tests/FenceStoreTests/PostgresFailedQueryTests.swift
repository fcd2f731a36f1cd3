import FenceStore
@testable import FenceStorePostgres
import FenceTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// Connections that fail or go silent are closed, replaced, and kept alive until they have
/// closed. postgres-nio asserts that a connection is closed before it is deinitialized, so in
/// a debug build (the tests' build) a connection dropped mid-close stops the whole process with
/// SIGILL: that is how `fenced` died in the PostgreSQL crash drill, when a read failed on a
/// connection the restarted server had ended. Each test here would end the test run that way.
@Suite(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct PostgresFailedQueryTests {

  static func one(_ result: PostgresQueryResult) throws -> Int {
    try result.rows.first.map { try $0.decode(Int.self) } ?? -1
  }

  @Test func aReadThatFailsOnAnOpenConnectionClosesItAndReadsGoOn() throws {
    try withPostgresDatabase("failed-read") { settings in
      let connections = try PostgresConnections(settings: settings)
      defer { connections.close() }
      for round in 1...3 {
        #expect(throws: StoreError.self) {
          try connections.read { try connections.rows("SELECT 1/0", on: $0) }
        }
        let answer = try connections.read { try Self.one(connections.rows("SELECT \(round) + 1", on: $0)) }
        #expect(answer == round + 1)
      }
    }
  }

  @Test func aQueryThatTimesOutIsReplacedAndTheSessionGoesOn() throws {
    try withPostgresDatabase("timed-out-query") { settings in
      let session = try PostgresSession(
        settings: settings, purpose: "test", logger: Logger(label: "test"),
        queryTimeout: .milliseconds(300))
      defer { session.close() }
      do {
        try session.run("SELECT pg_sleep(3)")
        Issue.record("a query of 3 s answered within 0.3 s")
      } catch StoreError.storageFailed(let message) {
        #expect(message == "PostgreSQL test: no answer from the server within 0.3 s")
      }
      #expect(try Self.one(session.run("SELECT 7")) == 7)
      #expect(try Self.one(session.run("SELECT 8")) == 8)
    }
  }
}
