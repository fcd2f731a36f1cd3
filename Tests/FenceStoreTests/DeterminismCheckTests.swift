import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// Recovery replays the commands after the latest snapshot and checks their events against the
/// stored ones: a stored history that replay does not reproduce stops the store
/// (`replayMismatch`, naming the command), and so does another engine configuration
/// (`configurationMismatch`). The files are changed with the `sqlite3` tool, as an outsider.
@Suite struct DeterminismCheckTests {
  /// The story's first six commands in a store, with its files copied while open (no snapshot).
  static func crashedStory(_ directory: TemporaryDirectory) throws -> (String, Reference) {
    let commands = Array(Story.commands.prefix(6))
    let reference = try Reference.run(commands)
    let store = try openStore(directory.sub("first"))
    for command in commands { try store.execute(command) }
    try crashCopy(from: directory.sub("first"), to: directory.sub("crashed"))
    try store.close()
    return (directory.sub("crashed"), reference)
  }

  /// Opens the store and returns the replay mismatch it throws.
  static func mismatch(_ path: String, configuration: ZoneEvaluator.Configuration = .default)
    -> (commandSeq: Int64, detail: String)?
  {
    do {
      let store = try openStore(path, configuration: configuration)
      try? store.close()
      Issue.record("the store opened")
      return nil
    } catch StoreError.replayMismatch(let commandSeq, let detail) {
      return (commandSeq, detail)
    } catch {
      Issue.record("another error: \(error)")
      return nil
    }
  }

  @Test(arguments: [1, 2, 5])
  func aTamperedEventStopsRecoveryNamingItsCommand(command index: Int) async throws {
    try await offThePool {
      try withTemporaryDirectory("tampered") { directory in
        let (path, reference) = try Self.crashedStory(directory)
        let answer = reference.answers[index]
        let seq = try #require(answer.firstSeq) + Int64(answer.events / 2)
        let database = path + "/fence.sqlite"
        let original = try sqlite3(database, "SELECT body FROM events WHERE seq = \(seq)")
        #expect(original == reference.lines[Int(seq - 1)] + "\n")
        // One more member in the event's JSON.
        try sqlite3(
          database,
          "UPDATE events SET body = substr(body, 1, length(body) - 1) || ',\"x\":1}' WHERE seq = \(seq)")
        let line = reference.lines[Int(seq - 1)]
        let tampered = line.dropLast() + ",\"x\":1}"
        let found = try #require(Self.mismatch(path))
        #expect(found.commandSeq == Int64(index + 1))
        #expect(found.detail == "event \(seq) is \(tampered.prefix(300)); replay gave \(line.prefix(300))")
      }
    }
  }

  @Test func aTamperedCommandStopsRecoveryNamingIt() async throws {
    try await offThePool {
      try withTemporaryDirectory("tampered-command") { directory in
        let (path, reference) = try Self.crashedStory(directory)
        // Command 4 advances the clock to 360 s, firing a dwell due at 320 s; moved back to
        // 300 s, it fires nothing.
        #expect(Story.commands[3] == .advance(at(360)))
        #expect(reference.answers[3].events == 1)
        let micros = UInt64(at(300).microsecondsSinceEpoch)
        // The payload: the time in microseconds, 8 bytes little-endian.
        let hex = (0..<8).map { index in
          let byte = UInt8(truncatingIfNeeded: micros >> (8 * UInt64(index)))
          return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        try sqlite3(path + "/fence.sqlite", "UPDATE commands SET payload = X'\(hex)' WHERE seq = 4")
        let found = try #require(Self.mismatch(path))
        #expect(found.commandSeq == 4)
        #expect(found.detail == "0 events, 1 stored")
      }
    }
  }

  /// In a closed store every command is behind the snapshot written on close; with the later
  /// snapshots deleted, recovery replays from the one at command 2 and checks commands 3 on.
  @Test func aClosedStoresTamperedEventIsFoundWhenReplayedFromAnOlderSnapshot() async throws {
    try await offThePool {
      let commands = Array(Story.commands.prefix(6))
      let reference = try Reference.run(commands)
      try withTemporaryDirectory("tampered-closed") { directory in
        let store = try openStore(directory.path, snapshotEvery: 2)
        for command in commands {
          try store.execute(command)
          // Each snapshot written before the next command (one in flight delays the next due).
          store.waitForSnapshots()
        }
        try store.close()
        let database = directory.path + "/fence.sqlite"
        #expect(try sqlite3(database, "SELECT command_seq FROM snapshots ORDER BY command_seq") == "2\n4\n6\n")

        // Untouched, the store opens from snapshot 6.
        let untouched = try openStore(directory.path, snapshotEvery: 2)
        #expect(untouched.recovery.snapshotCommandSeq == 6)
        #expect(untouched.recovery.commandsReplayed == 0)
        try untouched.close()

        // The last event of command 6 tampered: behind snapshot 6, not replayed, not noticed.
        let last = try #require(reference.answers[5].lastSeq)
        try sqlite3(database, "UPDATE events SET body = replace(body, '\"kind\":', '\"kind\" :') WHERE seq = \(last)")
        let unnoticed = try openStore(directory.path, snapshotEvery: 2)
        #expect(unnoticed.recovery.snapshotCommandSeq == 6)
        try unnoticed.close()

        // Snapshots 4 and 6 gone: replay from 2 checks commands 3 to 6, and stops at 6.
        try sqlite3(database, "DELETE FROM snapshots WHERE command_seq > 2")
        let found = try #require(Self.mismatch(directory.path))
        #expect(found.commandSeq == 6)
        #expect(found.detail.contains("event \(last) is "))
      }
    }
  }

  @Test func aStoreMadeWithAnotherConfigurationIsRefused() async throws {
    try await offThePool {
      try withTemporaryDirectory("configuration") { directory in
        let store = try openStore(directory.path)
        try store.execute(Story.commands[0])
        try store.execute(Story.commands[1])
        try store.close()

        let others: [ZoneEvaluator.Configuration] = [
          .init(maximumAccuracy: 50),
          .init(reportsRejections: true),
          .init(proximity: .init()),
        ]
        for other in others {
          #expect(
            throws: StoreError.configurationMismatch(
              stored: String(describing: ZoneEvaluator.Configuration.default),
              given: String(describing: other))
          ) {
            try openStore(directory.path, configuration: other)
          }
        }
        // Nothing was changed: the store opens with its own configuration.
        let reopened = try openStore(directory.path)
        #expect(reopened.recovery.commandSeq == 2)
        #expect(reopened.configuration == .default)
        try reopened.close()
      }
    }
  }

  @Test func aFileThatIsNotADatabaseIsReportedDamaged() async throws {
    try await offThePool {
      try withTemporaryDirectory("damaged") { directory in
        try Data(repeating: 0x41, count: 8192).write(
          to: URL(fileURLWithPath: directory.path + "/fence.sqlite"))
        #expect {
          try openStore(directory.path)
        } throws: { error in
          guard case StoreError.damaged = error else { return false }
          return true
        }
      }
    }
  }
}
