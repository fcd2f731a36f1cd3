import FenceStore
@testable import FenceStorePostgres
import FenceTestSupport
import Foundation
import Testing

/// A single store on PostgreSQL waits, before recovery, for the transactions of an earlier
/// writer: one that a killed process sent its `COMMIT` for may still land, and a recovery that
/// read before it would give its command's number again.
@Suite(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct PostgresEarlierWritersTests {
  @Test func recoveryWaitsForAWriterStillInItsTransaction() throws {
    try withPostgresDatabase("writers") { settings in
      let earlier = try PostgresStorage(settings: settings)
      let later = try PostgresStorage(settings: settings)
      defer {
        try? earlier.close()
        try? later.close()
      }
      // With no writer in flight, the wait returns at once.
      try later.waitForEarlierWriters(timeout: 5)
      // While the earlier writer's transaction has written and not committed, the wait runs out.
      var waited: (any Error)?
      try earlier.transaction { connection in
        _ = try earlier.rows(
          "INSERT INTO fk_meta(partition, key, value) VALUES (0, 'k', 'v')", on: connection)
        do {
          try later.waitForEarlierWriters(timeout: 0.3)
        } catch {
          waited = error
        }
        // Readers are not held up meanwhile.
        #expect(try later.metadata("k") == nil)
      }
      #expect("\(waited.map { "\($0)" } ?? "")".contains("earlier writers"))
      // Once it committed, the wait returns, and what it wrote is there to recover.
      try later.waitForEarlierWriters(timeout: 5)
      #expect(try later.metadata("k") == "v")
    }
  }
}
