import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Synchronization
import Testing

/// A commit that fails leaves no half state: the command is not applied (the engine is put back
/// as the log has it), nothing of it is stored, and sending it again gives the answer and the
/// events it would have given.
@Suite struct StorageFailureTests {
  struct InjectedFailure: Error {}

  /// The embedded storage, with an append that fails when told to: for good, or as a
  /// timed-out `COMMIT` does on PostgreSQL, where the caller gets an error but the server
  /// finishes the transaction later. A late commit is held and lands at the next `head()`
  /// call (the reload's read of the log's end, after it read the commands: the window in which
  /// one landed in a PostgreSQL crash drill).
  @available(macOS 15.0, *)  // Mutex and Atomic are macOS 15 API; the package supports macOS 13
  final class FlakyStorage: SQLiteForwardingStorage, @unchecked Sendable {
    let failsNextAppend = Mutex(false)
    let nextAppendIsLate = Mutex(false)
    let held = Mutex<CommandCommit?>(nil)

    override func append(_ commit: CommandCommit) throws {
      if failsNextAppend.withLock({ fails in defer { fails = false }; return fails }) {
        throw InjectedFailure()
      }
      if nextAppendIsLate.withLock({ late in defer { late = false }; return late }) {
        held.withLock { $0 = commit }
        throw InjectedFailure()
      }
      try base.append(commit)
    }

    override func head() throws -> (commandSeq: Int64, eventSeq: Int64) {
      if let commit = held.withLock({ held in defer { held = nil }; return held }) {
        try base.append(commit)
      }
      return try base.head()
    }
  }

  /// Runs `body` with a store on a ``FlakyStorage`` in a temporary directory that executed the
  /// first `count` commands of ``Story/commands`` (under keys `k0`, `k1`, …), with the commands,
  /// the uninterrupted run's reference and the directory.
  @available(macOS 15.0, *)  // Mutex and Atomic are macOS 15 API; the package supports macOS 13
  static func withStory(
    through count: Int, _ label: String,
    _ body: (FlakyStorage, FenceStore, [StoreCommand], Reference, TemporaryDirectory) throws -> Void
  ) async throws {
    try await offThePool {
      let commands = Story.commands
      let reference = try Reference.run(commands)
      try withTemporaryDirectory(label) { directory in
        let storage = try FlakyStorage(path: directory.sub("fence.sqlite"))
        let store = try FenceStore(
          storage: storage, options: FenceStore.Options(snapshotEvery: 3))
        for (position, command) in commands.prefix(count).enumerated() {
          try store.execute(command, idempotencyKey: "k\(position)")
        }
        try body(storage, store, commands, reference, directory)
      }
    }
  }

  /// Executes the commands after position `index`, checks each answer and the whole event log
  /// against the reference, and closes the store.
  static func finishStory(
    _ store: FenceStore, _ commands: [StoreCommand], _ reference: Reference, after index: Int
  ) throws {
    for (position, command) in commands.enumerated().dropFirst(index + 1) {
      expectAnswer(try store.execute(command), reference.answers[position])
    }
    let stored = try store.events(after: 0, limit: 100_000)
    expectGapless(stored)
    #expect(stored.map(\.line) == reference.lines)
    try store.close()
  }

  /// A commit whose answer was lost but which landed while the store reloaded the log is
  /// replayed, not taken for damage (the store stays open), and its command's resend under
  /// the same key gets the stored answer: the events are the uninterrupted run's.
  @available(macOS 15.0, *)  // Mutex and Atomic are macOS 15 API; the package supports macOS 13
  @Test(arguments: [5, 4, 3, 8])
  func aCommitThatLandsWhileTheStoreReloadsIsReplayed(late index: Int) async throws {
    try await Self.withStory(through: index, "late-commit") { storage, store, commands, reference, _ in
      let before = store.statistics

      storage.nextAppendIsLate.withLock { $0 = true }
      #expect {
        try store.execute(commands[index], idempotencyKey: "k\(index)")
      } throws: { error in
        guard case StoreError.storageFailed(let message) = error else { return false }
        return message
          == "InjectedFailure(); yet the write landed (the log holds command \(index + 1)): its idempotency key gets its answer, a resend without one applies it again"
      }
      // The reload found the late commit and replayed it.
      #expect(store.statistics.commandSeq == before.commandSeq + 1)
      #expect(store.lastEventSeq == Int64(reference.eventSeq(afterCommands: index + 1)))

      // The resend is answered from the log (the late commit's answer), not applied again.
      expectAnswer(
        try store.execute(commands[index], idempotencyKey: "k\(index)"), reference.answers[index],
        replay: true)
      try Self.finishStory(store, commands, reference, after: index)
    }
  }

  /// The positions in ``Story/commands`` whose commit fails: a batch with events, a zone
  /// addition, a clock advance that fires a dwell, the zone set replaced.
  @available(macOS 15.0, *)  // Mutex and Atomic are macOS 15 API; the package supports macOS 13
  @Test(arguments: [5, 4, 3, 8])
  func aFailedCommitAppliesNothingAndTheResendGivesTheSameAnswer(failing index: Int) async throws {
    try await Self.withStory(through: index, "flaky") { storage, store, commands, reference, directory in
      let before = store.statistics
      let devices = ["a", "b", "c", "d", "e"].map { store.deviceStatus(named: $0) }
      let zones = store.zones

      storage.failsNextAppend.withLock { $0 = true }
      #expect {
        try store.execute(commands[index], idempotencyKey: "k\(index)")
      } throws: { error in
        guard case StoreError.storageFailed = error else { return false }
        return true
      }
      // Nothing applied: the engine is as the log has it.
      #expect(store.statistics.commandSeq == before.commandSeq)
      #expect(store.statistics.eventSeq == before.eventSeq)
      #expect(store.statistics.acceptedFixes == before.acceptedFixes)
      #expect(store.statistics.rejections == before.rejections)
      #expect(store.statistics.engineTime == before.engineTime)
      #expect(store.lastEventSeq == before.eventSeq)
      #expect(["a", "b", "c", "d", "e"].map { store.deviceStatus(named: $0) } == devices)
      #expect(store.zones == zones)
      #expect(try allLines(store) == Array(reference.lines.prefix(Int(before.eventSeq))))

      // Sent again under its key: applied for the first time.
      expectAnswer(try store.execute(commands[index], idempotencyKey: "k\(index)"), reference.answers[index])
      try Self.finishStory(store, commands, reference, after: index)

      let reopened = try openStore(directory.path)
      #expect(try allLines(reopened) == reference.lines)
      #expect(reopened.recovery.commandSeq == Int64(commands.count))
      try reopened.close()
    }
  }
}
