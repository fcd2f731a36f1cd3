import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// Reading the event log: pages by seq, long-polls that wake when a command commits, and a
/// stream that follows the log.
/// Waits here use timeouts of an hour and no wall-clock upper bound: tests run in parallel on few
/// cores, and a woken waiter resumes only when a pool thread is free (47 s was seen in a full
/// run). A wait that did not wake would hang, which the suite's time limit turns into a failure.
@Suite(.timeLimit(.minutes(3))) struct ReadingTests {
  /// A store holding the story's first six commands.
  static func storyStore(_ path: String) throws -> (FenceStore, Reference) {
    let commands = Array(Story.commands.prefix(6))
    let reference = try Reference.run(commands)
    let store = try openStore(path)
    for command in commands { try store.execute(command) }
    return (store, reference)
  }

  @Test func eventsAfterASeqComeInPagesOfTheLimit() async throws {
    try await offThePool {
      try withTemporaryDirectory("reading") { directory in
        let (store, reference) = try Self.storyStore(directory.path)
        let head = reference.eventSeq
        #expect(head >= 10)
        #expect(store.lastEventSeq == head)
        #expect(try store.events().map(\.line) == reference.lines)
        for after in [0, 1, 5, head - 1, head, head + 10] {
          for limit in [1, 3, 1000] {
            let page = try store.events(after: after, limit: limit)
            let start = Int(min(after, head))
            let end = min(start + limit, Int(head))
            #expect(page.map(\.line) == Array(reference.lines[start..<end]), "after \(after) limit \(limit)")
            #expect(page.map(\.seq) == Array(Int64(start + 1)..<Int64(end + 1)))
          }
        }
        // Paging through by the last seq seen gives the whole log once.
        var seen: [StoredEvent] = []
        var cursor: Int64 = 0
        while true {
          let page = try store.events(after: cursor, limit: 4)
          guard let last = page.last else { break }
          seen += page
          cursor = last.seq
        }
        expectGapless(seen)
        #expect(seen.map(\.line) == reference.lines)
        // Out-of-range arguments: a negative seq reads from the start, a limit of 0 reads nothing,
        // a huge limit is capped.
        #expect(try store.events(after: -5, limit: 2).map(\.seq) == [1, 2])
        #expect(try store.events(after: 0, limit: 0).isEmpty)
        #expect(try store.events(after: 0, limit: -1).isEmpty)
        #expect(try store.events(after: 0, limit: 10_000_000).count == Int(head))
        try store.close()
        #expect(throws: (any Error).self) { try store.events(after: 0) }
      }
    }
  }

  @Test func aWaitReturnsPromptlyWhenACommandCommitsFromAnotherTask() async throws {
    try await withTemporaryDirectory("waiting") { directory in
      let (store, reference) = try Self.storyStore(directory.path)
      let head = reference.eventSeq
      // Already past: at once.
      let clock = ContinuousClock()
      var start = clock.now
      #expect(await store.waitForEvents(after: head - 1, timeout: .seconds(3600)) == head)

      // Nothing comes: the head after the timeout. (Generous upper bounds here and below: the
      // tests run in parallel on few cores, and a waiter resumes only when a thread is free.)
      start = clock.now
      #expect(await store.waitForEvents(after: head, timeout: .milliseconds(200)) == head)
      let waited = clock.now - start
      #expect(waited >= .milliseconds(190))

      // A batch with events committed by another task while waiting: back well before the
      // timeout, with the new head.
      var next = reference
      let command = Story.commands[6]  // the depot widened: no events
      let batch = Story.commands[7]
      try next.apply(command)
      let expected = try #require(try next.apply(batch))
      let newHead = try #require(expected.lastSeq)
      start = clock.now
      let writer = Task {
        try await Task.sleep(for: .milliseconds(100))
        try await store.execute(command)  // no event: the waiter keeps waiting
        try await Task.sleep(for: .milliseconds(100))
        return try await store.execute(batch)
      }
      let woke = await store.waitForEvents(after: head, timeout: .seconds(3600))
      let elapsed = clock.now - start
      #expect(woke == newHead)
      #expect(elapsed >= .milliseconds(190))
      expectAnswer(try await writer.value, expected)
      #expect(try await store.events(after: head).map(\.line) == Array(next.lines[Int(head)...]))
      try store.close()
    }
  }

  @Test func aWaitEndsWhenTheStoreCloses() async throws {
    try await withTemporaryDirectory("waiting-close") { directory in
      let store = try openStore(directory.path)
      try await store.execute(.replaceAllZones([Story.depot]))
      let waiter = Task { await store.waitForEvents(after: 0, timeout: .seconds(3600)) }
      try await Task.sleep(for: .milliseconds(100))
      try store.close()
      #expect(await waiter.value == 0)
      // Closed: later waits return at once.
      #expect(await store.waitForEvents(after: 0, timeout: .seconds(3600)) == 0)
      await #expect(throws: StoreError.closed) { try await store.execute(.advance(at(0))) }
    }
  }

  @Test func aCancelledWaitReturnsAtOnce() async throws {
    try await withTemporaryDirectory("waiting-cancel") { directory in
      let store = try openStore(directory.path)
      let waiter = Task { await store.waitForEvents(after: 0, timeout: .seconds(3600)) }
      try await Task.sleep(for: .milliseconds(100))
      waiter.cancel()
      #expect(await waiter.value == 0)
      try store.close()
    }
  }

  @Test func aStreamYieldsTheEventsCommittedAfterItStarted() async throws {
    try await withTemporaryDirectory("stream") { directory in
      let (store, reference) = try Self.storyStore(directory.path)
      let head = reference.eventSeq
      var next = reference
      for command in Story.commands.dropFirst(6) { try next.apply(command) }
      let expectedLines = Array(next.lines[Int(head)...])
      #expect(expectedLines.count >= 5)

      // Started at the head: only what comes later; collect everything up to the final seq.
      let finalSeq = next.eventSeq
      let reader = Task { () throws -> [StoredEvent] in
        var events: [StoredEvent] = []
        for try await event in store.eventStream(after: head, pageSize: 2) {
          events.append(event)
          if event.seq == finalSeq { break }
        }
        return events
      }
      // A watchdog: a stream that stalls is cancelled in the end (and the comparison below
      // fails); the suite's time limit reports it first. Not a wall-clock bound of seconds:
      // under ThreadSanitizer on a busy machine the whole test once took 48 s, and a 10 s
      // watchdog cancelled a stream that was only slow.
      let watchdog = Task {
        try await Task.sleep(for: .seconds(3_600))
        reader.cancel()
      }
      try await Task.sleep(for: .milliseconds(50))
      for command in Story.commands.dropFirst(6) {
        try await store.execute(command)
        try await Task.sleep(for: .milliseconds(10))
      }
      let events = try await reader.value
      watchdog.cancel()
      expectGapless(events, from: head + 1)
      #expect(events.map(\.line) == expectedLines)

      // From an older seq: the stored ones first, then it waits; closing the store ends it.
      let seen = LockedValue(0)
      let replay = Task { () throws -> [Int64] in
        var seqs: [Int64] = []
        for try await event in store.eventStream(after: finalSeq - 3) {
          seqs.append(event.seq)
          seen.withLock { $0 += 1 }
        }
        return seqs
      }
      // Closed once the stored ones were read (a fixed pause could close it before).
      await Self.waitUntil { seen.withLock { $0 } == 3 }
      try store.close()
      #expect(try await replay.value == [finalSeq - 2, finalSeq - 1, finalSeq])
    }
  }

  @Test func aCancelledStreamEnds() async throws {
    try await withTemporaryDirectory("stream-cancel") { directory in
      let (store, reference) = try Self.storyStore(directory.path)
      let seen = LockedValue(0)
      let reader = Task { () throws -> Int in
        var count = 0
        for try await _ in store.eventStream(after: 0) {
          count += 1
          seen.withLock { $0 += 1 }
        }
        return count
      }
      // Cancelled once every stored event was read, while it waits for more.
      await Self.waitUntil { seen.withLock { $0 } == Int(reference.eventSeq) }
      reader.cancel()
      #expect(try await reader.value == Int(reference.eventSeq))
      try store.close()
    }
  }

  /// Yields every 10 ms until `condition` holds. No upper bound, as with the waits above: a
  /// condition that never holds hangs, which the suite's time limit turns into a failure.
  static func waitUntil(_ condition: () -> Bool) async {
    while !condition() { try? await Task.sleep(for: .milliseconds(10)) }
  }
}
