import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// `Idempotency-Key`: a command sent again under a key already committed gets the first answer
/// again (marked as a replay) and changes nothing, also after a restart or a crash; keys are
/// limited to 200 UTF-8 bytes.
@Suite struct IdempotencyTests {
  /// The zones and the first two batches of the story.
  static let commands = Array(Story.commands.prefix(3))

  @Test func aResentKeyGetsTheFirstAnswerAndNothingIsAppliedTwice() async throws {
    try await offThePool {
      let reference = try Reference.run(Self.commands)
      try withTemporaryDirectory("idempotent") { directory in
        let store = try openStore(directory.path)
        for (index, command) in Self.commands.enumerated() {
          expectAnswer(try store.execute(command, idempotencyKey: "k\(index)"), reference.answers[index])
        }
        let before = store.statistics
        let lines = try allLines(store)
        #expect(lines == reference.lines)

        // The same commands again, under the same keys: the first answers, nothing applied.
        for (index, command) in Self.commands.enumerated() {
          expectAnswer(
            try store.execute(command, idempotencyKey: "k\(index)"), reference.answers[index],
            replay: true)
        }
        // Under a used key, another command is not applied either: the key names the request.
        expectAnswer(
          try store.execute(Story.fixes(300, 350), idempotencyKey: "k2"), reference.answers[2],
          replay: true)
        expectAnswer(
          try store.execute(.removeZone("depot"), idempotencyKey: "k0"), reference.answers[0],
          replay: true)
        #expect(store.statistics == before)
        #expect(try allLines(store) == lines)
        #expect(store.zones.map(\.id) == ["depot", "gate", "yard"])

        // A new key applies the next command.
        var next = reference
        let expected = try next.apply(Story.fixes(300, 350))
        expectAnswer(try store.execute(Story.fixes(300, 350), idempotencyKey: "k3"), expected)
        #expect(try allLines(store) == next.lines)
        try store.close()
      }
    }
  }

  @Test func keysSurviveACloseAndACrash() async throws {
    try await offThePool {
      let reference = try Reference.run(Self.commands)
      try withTemporaryDirectory("idempotent-restart") { directory in
        let first = try openStore(directory.sub("first"))
        for (index, command) in Self.commands.enumerated() {
          expectAnswer(try first.execute(command, idempotencyKey: "k\(index)"), reference.answers[index])
        }
        try crashCopy(from: directory.sub("first"), to: directory.sub("crashed"))
        try first.close()

        for path in [directory.sub("first"), directory.sub("crashed")] {
          let store = try openStore(path)
          #expect(store.recovery.commandSeq == 3)
          for (index, command) in Self.commands.enumerated().reversed() {
            expectAnswer(
              try store.execute(command, idempotencyKey: "k\(index)"), reference.answers[index],
              replay: true)
          }
          #expect(store.statistics.commandSeq == 3)
          #expect(store.statistics.eventSeq == reference.eventSeq)
          #expect(try allLines(store) == reference.lines)
          try store.close()
          // And once more after that close.
          let again = try openStore(path)
          expectAnswer(
            try again.execute(Self.commands[1], idempotencyKey: "k1"), reference.answers[1],
            replay: true)
          #expect(again.statistics.commandSeq == 3)
          try again.close()
        }
      }
    }
  }

  @Test func aZoneChangeAnswerIsReplayedWithItsCounts() async throws {
    try await offThePool {
      try withTemporaryDirectory("idempotent-zones") { directory in
        let store = try openStore(directory.path)
        let first = try #require(
          try store.execute(.replaceAllZones([Story.depot, Story.gate]), idempotencyKey: "zones"))
        #expect(first.json == "{\"zones\":2,\"fences\":1,\"geolines\":1}")
        #expect(!first.isReplay)
        try store.close()
        let reopened = try openStore(directory.path)
        let again = try #require(
          try reopened.execute(.replaceAllZones([Story.yard]), idempotencyKey: "zones"))
        #expect(again.isReplay)
        #expect(again.commandSeq == 1)
        #expect(again.json == first.json)
        #expect(again.zoneCounts == first.zoneCounts)
        #expect(reopened.zones.map(\.id) == ["depot", "gate"])
        #expect(reopened.statistics.commandSeq == 1)
        try reopened.close()
      }
    }
  }

  @Test func keysUpTo200BytesAreAcceptedAndLongerOnesRefused() async throws {
    try await offThePool {
      try withTemporaryDirectory("idempotent-long") { directory in
        let store = try openStore(directory.path)
        try store.execute(.replaceAllZones([Story.depot]))
        let longest = String(repeating: "k", count: 200)
        let tooLong = String(repeating: "k", count: 201)
        // 100 two-byte characters are 200 bytes; 101 are 202 bytes though only 101 characters.
        let accented = String(repeating: "é", count: 100)
        let accentedTooLong = String(repeating: "é", count: 101)
        #expect(accentedTooLong.count == 101)

        let a = try #require(try store.execute(.fixes([fix("x", 0, base)]), idempotencyKey: longest))
        #expect(a.commandSeq == 2)
        #expect(a.accepted == 1)
        let b = try #require(try store.execute(.fixes([fix("x", 10, base)]), idempotencyKey: accented))
        #expect(b.commandSeq == 3)
        #expect(try store.execute(.fixes([fix("x", 99, base)]), idempotencyKey: longest)?.isReplay == true)
        #expect(try store.execute(.fixes([fix("x", 99, base)]), idempotencyKey: accented)?.isReplay == true)

        for key in [tooLong, accentedTooLong] {
          #expect(throws: StoreError.self) {
            try store.execute(.fixes([fix("x", 20, base)]), idempotencyKey: key)
          }
        }
        // Nothing of the refused commands was applied.
        #expect(store.statistics.commandSeq == 3)
        #expect(store.statistics.acceptedFixes == 2)
        #expect(store.deviceStatus(named: "x")?.lastFix?.time == at(10))
        // The events so far: the check-in of the first fix.
        #expect(try allEvents(store).map(describe) == ["0 checkIn x depot/depot"])
        try store.close()
      }
    }
  }
}
