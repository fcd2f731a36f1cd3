import FenceEngine
import FenceStore
import FenceStorePostgres
import FenceTestSupport
import Foundation
import Testing

/// `FenceStore.execute(inboxCommands:)`: runs of an owner's inbox committed together give the
/// answers, events and log of the same commands executed one at a time, recover the same, and
/// leave nothing half-done when the write fails.
@Suite struct InboxExecutionTests {
  /// The harbor hour: the zones one at a time, then the fix batches and the advance in runs of
  /// `run`, each command with inbox seq = its position + 1.
  static func runInRuns(_ store: FenceStore, _ commands: [StoreCommand], run: Int) throws -> [CommandAnswer?] {
    var answers: [CommandAnswer?] = [try store.execute(commands[0], inboxSeq: 1)]
    var index = 1
    while index < commands.count {
      let end = min(index + run, commands.count)
      let items = (index..<end).map { (seq: Int64($0 + 1), command: commands[$0]) }
      answers += try store.execute(inboxCommands: items).map { Optional($0) }
      index = end
    }
    return answers
  }

  @Test func runsCommittedTogetherGiveTheLibrarysAnswersAndEventsAndRecoverTheSame() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 400)
      let reference = try Reference.run(commands)
      let storage = MemoryStorage()
      let store = try FenceStore(storage: storage, options: FenceStore.Options(snapshotEvery: 5))
      let answers = try Self.runInRuns(store, commands, run: 7)
      #expect(answers.count == commands.count)
      for (index, answer) in answers.enumerated() { expectAnswer(answer, reference.answers[index]) }
      #expect(try allLines(store) == reference.lines)
      // A zone change is not part of a run.
      #expect(throws: StoreError.invalidCommand("zone changes are executed one at a time")) {
        try store.execute(inboxCommands: [(seq: 100, command: .removeZone("narrows"))])
      }
      // Reopened without the close snapshot: the same log, replayed and checked.
      let reopened = try FenceStore(storage: storage)
      #expect(reopened.recovery.eventSeq == Int64(reference.lines.count))
      #expect(try allLines(reopened) == reference.lines)
    }
  }

  @Test(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server"))
  func onPostgreSQLARunIsOneTransactionWithItsInboxProgress() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 400)
      let reference = try Reference.run(commands)
      try withPostgresDatabase("inbox-runs") { settings in
        let storage = try PostgresStorage(settings: settings, partition: 3)
        let store = try FenceStore(storage: storage, options: FenceStore.Options(eventPartition: 3))
        _ = try Self.runInRuns(store, commands, run: 6)
        #expect(try storage.inboxProgress() == Int64(commands.count))
        #expect(try storage.head() == (Int64(commands.count), Int64(reference.lines.count)))
        let lines = try store.events(after: 0, limit: 1000).map(\.line)
        #expect(lines.count == reference.lines.count)
        #expect(lines.allSatisfy { $0.contains("\"partition\":3,") })
        try store.close()
        let reopened = try FenceStore(
          storage: try PostgresStorage(settings: settings, partition: 3),
          options: FenceStore.Options(eventPartition: 3))
        #expect(try reopened.events(after: 0, limit: 1000).map(\.line) == lines)
        try reopened.close()
      }
    }
  }
}
