import FenceEngine
import FenceFormats
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// Guarantee 1 of `fenced.md`: fixes sent in order, then an advance to the last fix's time, give
/// exactly the events (ids included) of the library on the same fixes, each numbered by a
/// gapless seq, with exact answers.
@Suite struct SameEventsAsLibraryTests {
  /// What `fencebench run` prints for the harbor hour (README), from one evaluator given every
  /// fix at once, then an advance to the last fix's time.
  @Test func theLibraryGivesTheREADMENumbersOnTheHarborHour() async throws {
    try await offThePool {
      let zones = try Harbor.zones()
      let fixes = try Harbor.fixes()
      #expect(zones.count == 6)
      #expect(fixes.count == 8689)
      var evaluator = try ZoneEvaluator(zones: zones)
      var events: [ZoneEvent] = []
      for fix in fixes { evaluator.process(fix, into: &events) }
      evaluator.advance(to: fixes.last!.time, into: &events)
      #expect(evaluator.acceptedFixCount == 8687)
      #expect(evaluator.rejections[.duplicate] == 2)
      #expect(evaluator.rejections.total == 2)
      #expect(evaluator.deviceCount == 295)
      #expect(events.count == 57)
      #expect(Dictionary(grouping: events, by: \.kind).mapValues(\.count) == [.checkIn: 36, .checkOut: 12, .dwell: 9])
    }
  }

  @Test func theHarborHourInBatchesOf500GivesTheLibrarysEventsWithGaplessSeqs() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 500)
      #expect(commands.count == 20)  // zones, 18 batches (17 of 500, one of 189), advance
      #expect(fixCount(commands) == 8689)

      // The library on the same fixes, unbatched: the events the store must give, in order.
      var evaluator = try ZoneEvaluator(zones: try Harbor.zones())
      var libraryEvents: [ZoneEvent] = []
      let fixes = try Harbor.fixes()
      for fix in fixes { evaluator.process(fix, into: &libraryEvents) }
      evaluator.advance(to: fixes.last!.time, into: &libraryEvents)
      let libraryLines = libraryEvents.enumerated().map { lineWithSeq($1.ndjsonLine, Int64($0 + 1)) }
      #expect(libraryLines.count == 57)

      // The reference answers command by command.
      let reference = try Reference.run(commands)
      #expect(reference.lines == libraryLines)

      try withTemporaryDirectory("harbor") { directory in
        // The defaults: full durability, a snapshot every 500 commands.
        let store = try FenceStore(directory: directory.path)
        #expect(store.recovery.isNew)
        #expect(store.recovery.commandSeq == 0)
        var answers: [CommandAnswer] = []
        for (index, command) in commands.enumerated() {
          let answer = try #require(try store.execute(command))
          expectAnswer(answer, reference.answers[index])
          answers.append(answer)
        }
        // The zone set: 6 zones, 4 fences, 2 GEOLINEs.
        #expect(answers[0].json == "{\"zones\":6,\"fences\":4,\"geolines\":2}")
        // Every batch's numbers add up to the library's.
        #expect(answers.reduce(0) { $0 + $1.accepted } == 8687)
        #expect(answers.reduce(0) { $0 + $1.rejected[.duplicate] } == 2)
        #expect(answers.reduce(0) { $0 + $1.events } == 57)
        #expect(answers.map(\.commandSeq) == Array(1...20))
        // The seq ranges of the answers tile 1...57 in command order.
        var next: Int64 = 1
        for answer in answers where answer.events > 0 {
          #expect(answer.firstSeq == next)
          #expect(answer.lastSeq == next + Int64(answer.events) - 1)
          next += Int64(answer.events)
        }
        #expect(next == 58)

        let stored = try store.events(after: 0, limit: 100_000)
        #expect(stored.count == 57)
        expectGapless(stored)
        #expect(stored.map(\.line) == libraryLines)
        // The ids, one by one, are the library's.
        #expect(try stored.map { try ZoneEvent(ndjsonLine: $0.line).id } == libraryEvents.map(\.id))
        #expect(store.lastEventSeq == 57)
        let statistics = store.statistics
        #expect(statistics.commandSeq == 20)
        #expect(statistics.eventSeq == 57)
        #expect(statistics.devices == 295)
        #expect(statistics.zones == 6)
        #expect(statistics.elements == 6)
        #expect(statistics.acceptedFixes == 8687)
        #expect(statistics.rejections == evaluator.rejections)
        #expect(statistics.engineTime == fixes.last!.time)
        try store.close()

        // Reopened: the snapshot written on close, nothing to replay, the same log.
        let reopened = try FenceStore(directory: directory.path)
        #expect(reopened.recovery.snapshotCommandSeq == 20)
        #expect(reopened.recovery.commandsReplayed == 0)
        #expect(reopened.recovery.commandSeq == 20)
        #expect(reopened.recovery.eventSeq == 57)
        #expect(!reopened.recovery.isNew)
        #expect(try allLines(reopened) == libraryLines)
        #expect(reopened.lastEventSeq == 57)
        try reopened.close()
      }
    }
  }

  @Test func theAsyncExecuteGivesTheSameEventsAndAnswers() async throws {
    let commands = try Harbor.commands(batchSize: 2000)
    let reference = try Reference.run(commands)
    try await withTemporaryDirectory("harbor-async") { directory in
      let store = try openStore(directory.path)
      for (index, command) in commands.enumerated() {
        expectAnswer(try await store.execute(command), reference.answers[index])
      }
      let stored = try await store.events(after: 0, limit: 100_000)
      expectGapless(stored)
      #expect(stored.map(\.line) == reference.lines)
      #expect(stored.count == 57)
      try store.close()
    }
  }

  @Test func theStoryGivesTheReferenceEventsAndAnswers() async throws {
    try await offThePool {
      let reference = try Reference.run(Story.commands)
      // The story exercises every kind of event and some rejections.
      let kinds = Set(try reference.lines.map { try ZoneEvent(ndjsonLine: $0).kind })
      #expect(kinds == [.checkIn, .checkOut, .dwell])
      #expect(reference.lines.contains { $0.contains("\"trigger\":\"geoline\"") })
      let rejected = reference.answers.reduce(RejectionCounts()) { total, answer in
        var total = total
        for reason in RejectionReason.allCases { total[reason] += answer.rejected[reason] }
        return total
      }
      #expect(rejected[.duplicate] > 0)
      #expect(rejected[.outOfOrder] > 0)
      #expect(rejected[.lowAccuracy] > 0)
      try withTemporaryDirectory("story") { directory in
        let store = try openStore(directory.path)
        for (index, command) in Story.commands.enumerated() {
          expectAnswer(try store.execute(command), reference.answers[index])
        }
        let stored = try store.events(after: 0, limit: 100_000)
        expectGapless(stored)
        #expect(stored.map(\.line) == reference.lines)
        #expect(store.zones == reference.evaluator.zones)
        try store.close()
      }
    }
  }
}
