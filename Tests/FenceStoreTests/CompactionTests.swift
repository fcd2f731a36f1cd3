import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// `compact(eventRetention:now:)`: drops commands up to the latest snapshot, older snapshots and
/// zone sets, events older than the retention that every cursor confirmed, and idempotency keys
/// older than the retention whose command is gone, without changing anything the store answers
/// or will answer.
@Suite struct CompactionTests {
  /// The story's first six commands (the zones, two batches, an advance, a zone added, a
  /// batch) with keys k0…k5; the first three recorded before `cut`, the others after it.
  struct Compacted {
    var reference: Reference
    var cut: Date
    /// The webhook cursor: the last event of the second command.
    var cursor: Int64
  }

  static func runFirstSix(_ store: FenceStore) throws -> Compacted {
    let commands = Story.commands
    let reference = try Reference.run(Array(commands.prefix(6)))
    for (index, command) in commands.prefix(3).enumerated() {
      expectAnswer(try store.execute(command, idempotencyKey: "k\(index)"), reference.answers[index])
    }
    Thread.sleep(forTimeInterval: 0.02)
    let cut = Date()
    Thread.sleep(forTimeInterval: 0.02)
    for (index, command) in commands.prefix(6).enumerated().dropFirst(3) {
      expectAnswer(try store.execute(command, idempotencyKey: "k\(index)"), reference.answers[index])
    }
    let cursor = try #require(reference.answers[1].lastSeq)
    return Compacted(reference: reference, cut: cut, cursor: cursor)
  }

  @Test func compactionKeepsWhatIsNeededAndRecoveryGivesTheSameState() async throws {
    try await offThePool {
      let commands = Story.commands
      let full = try Reference.run(commands)
      try withTemporaryDirectory("compaction") { directory in
        // The same commands in a store never compacted.
        let uncompacted = try openStore(directory.sub("uncompacted"), snapshotEvery: 2)
        for command in commands { try uncompacted.execute(command) }
        let uncompactedLines = try allLines(uncompacted)
        #expect(uncompactedLines == full.lines)

        let store = try openStore(directory.sub("store"), snapshotEvery: 2)
        let run = try Self.runFirstSix(store)
        let reference = run.reference
        let cursor = run.cursor
        let head = reference.eventSeq
        #expect(cursor > 0)
        #expect(reference.answers[2].events > 0)  // events after the cursor, recorded before the cut
        try store.setCursor(named: "webhook", to: cursor)
        #expect(try store.cursor(named: "webhook") == cursor)

        let report = try store.compact(eventRetention: 0, now: run.cut)
        // Snapshots at commands 2, 4 and 6: the latter kept, the others and the zone set only
        // they used (before the pier was added) dropped.
        var expected = CompactionReport()
        expected.commands = 6
        expected.snapshots = 2
        expected.zoneSets = 1
        expected.events = Int(cursor)
        expected.idempotencyKeys = 3
        #expect(report == expected)

        // Events after the cursor are kept, and so is everything recorded after the cut.
        let kept = try store.events(after: 0, limit: 100_000)
        expectGapless(kept, from: cursor + 1)
        #expect(kept.map(\.line) == Array(reference.lines[Int(cursor)...]))
        #expect(try store.events(after: cursor + 2, limit: 3).map(\.line)
          == Array(reference.lines[Int(cursor + 2)..<Int(cursor + 5)]))
        #expect(try store.events(after: cursor - 1, limit: 1).map(\.seq) == [cursor + 1])
        #expect(store.lastEventSeq == head)
        #expect(store.statistics.commandSeq == 6)

        // Keys of the commands after the cut are kept.
        for index in 3..<6 {
          expectAnswer(
            try store.execute(commands[index], idempotencyKey: "k\(index)"),
            reference.answers[index], replay: true)
        }

        // Killed now, then recovered from the compaction's snapshot alone.
        try crashCopy(from: directory.sub("store"), to: directory.sub("recovered"))
        try store.close()
        let recovered = try openStore(directory.sub("recovered"), snapshotEvery: 2)
        #expect(recovered.recovery.snapshotCommandSeq == 6)
        #expect(recovered.recovery.commandsReplayed == 0)
        #expect(recovered.recovery.commandSeq == 6)
        #expect(recovered.recovery.eventSeq == head)
        #expect(recovered.lastEventSeq == head)
        #expect(try recovered.cursor(named: "webhook") == cursor)
        for (index, command) in commands.enumerated().dropFirst(6) {
          expectAnswer(try recovered.execute(command), full.answers[index])
        }
        let after = try recovered.events(after: 0, limit: 100_000)
        expectGapless(after, from: cursor + 1)
        #expect(after.map(\.line) == Array(uncompactedLines[Int(cursor)...]))
        #expect(recovered.zones == uncompacted.zones)
        #expect(recovered.nextDwellDeadline == uncompacted.nextDwellDeadline)
        let a = recovered.statistics
        let b = uncompacted.statistics
        #expect(a.commandSeq == b.commandSeq)
        #expect(a.eventSeq == b.eventSeq)
        #expect(a.devices == b.devices)
        #expect(a.acceptedFixes == b.acceptedFixes)
        #expect(a.rejections == b.rejections)
        #expect(a.engineTime == b.engineTime)
        for device in ["a", "b", "c", "d", "e"] {
          #expect(recovered.deviceStatus(named: device) == uncompacted.deviceStatus(named: device))
        }

        // A second compaction within the retention: the commands since the first one go, no
        // event and no key does.
        let second = try recovered.compact(eventRetention: 3600)
        #expect(second.commands == commands.count - 6)
        #expect(second.events == 0)
        #expect(second.idempotencyKeys == 0)
        #expect(try recovered.events(after: 0, limit: 100_000).map(\.line) == after.map(\.line))
        try recovered.close()
        let reopened = try openStore(directory.sub("recovered"), snapshotEvery: 2)
        #expect(reopened.recovery.snapshotCommandSeq == Int64(commands.count))
        #expect(reopened.recovery.commandsReplayed == 0)
        #expect(reopened.recovery.eventSeq == full.eventSeq)
        try reopened.close()
        try uncompacted.close()
      }
    }
  }

  @Test func aCompactedKeyIsForgottenAndAKeptOneIsNot() async throws {
    try await offThePool {
      try withTemporaryDirectory("compaction-keys") { directory in
        let store = try openStore(directory.path)
        let run = try Self.runFirstSix(store)
        let report = try store.compact(eventRetention: 0, now: run.cut)
        #expect(report.idempotencyKeys == 3)
        #expect(report.commands == 6)
        // k1 is gone: the batch is applied again (its fixes are now duplicates or out of order).
        let again = try #require(try store.execute(Story.commands[1], idempotencyKey: "k1"))
        #expect(!again.isReplay)
        #expect(again.commandSeq == 7)
        #expect(again.accepted == 0)
        // k4 is kept: its first answer.
        expectAnswer(
          try store.execute(Story.commands[4], idempotencyKey: "k4"), run.reference.answers[4],
          replay: true)
        #expect(store.statistics.commandSeq == 7)
        try store.close()
      }
    }
  }

  @Test func aLogCompactedToNothingRecoversFromItsSnapshotAndGoesOn() async throws {
    try await offThePool {
      let commands = Story.commands
      let full = try Reference.run(commands)
      try withTemporaryDirectory("compaction-empty") { directory in
        let store = try openStore(directory.path)
        for command in commands.prefix(6) { try store.execute(command) }
        let head = full.eventSeq(afterCommands: 6)
        // No cursor, everything older than the retention: every command and every event goes.
        let report = try store.compact(eventRetention: 0, now: Date().addingTimeInterval(1))
        #expect(report.commands == 6)
        #expect(report.events == Int(head))
        #expect(report.snapshots == 0)
        #expect(try store.events(after: 0).isEmpty)
        #expect(store.lastEventSeq == head)
        try store.close()

        let reopened = try openStore(directory.path)
        #expect(reopened.recovery.snapshotCommandSeq == 6)
        #expect(reopened.recovery.commandSeq == 6)
        #expect(reopened.recovery.eventSeq == head)
        #expect(reopened.recovery.commandsReplayed == 0)
        #expect(try reopened.events(after: 0).isEmpty)
        for (index, command) in commands.enumerated().dropFirst(6) {
          expectAnswer(try reopened.execute(command), full.answers[index])
        }
        let stored = try reopened.events(after: 0, limit: 100_000)
        expectGapless(stored, from: head + 1)
        #expect(stored.map(\.line) == Array(full.lines[Int(head)...]))
        try reopened.close()
      }
    }
  }

  @Test func aCursorThatConfirmedNothingKeepsEveryEvent() async throws {
    try await offThePool {
      try withTemporaryDirectory("compaction-cursor") { directory in
        let store = try openStore(directory.path)
        let run = try Self.runFirstSix(store)
        try store.setCursor(named: "slow", to: 0)
        try store.setCursor(named: "fast", to: run.reference.eventSeq)
        let report = try store.compact(eventRetention: 0, now: Date().addingTimeInterval(1))
        #expect(report.events == 0)
        #expect(report.commands == 6)
        #expect(try allLines(store) == run.reference.lines)
        #expect(try store.cursor(named: "slow") == 0)
        #expect(try store.cursor(named: "missing") == nil)
        try store.close()
      }
    }
  }
}
