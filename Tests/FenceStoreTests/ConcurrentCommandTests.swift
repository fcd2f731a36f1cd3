import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Synchronization
import Testing

/// Commands from several threads at once (the synchronous `execute` is documented as
/// thread-safe): every command is applied once, seqs stay gapless, and the published head
/// (`lastEventSeq`, what `waitForEvents` and event streams wait on) never goes back: once a
/// command has answered, its events are visible to waiters.
@Suite struct ConcurrentCommandTests {
  @available(macOS 15.0, *)  // Mutex and Atomic are macOS 15 API; the package supports macOS 13
  @Test func theHeadNeverGoesBackWhenThreadsCommitAtOnce() async throws {
    try await offThePool {
      try withTemporaryDirectory("concurrent") { directory in
        // Every duplicate fix is reported as a `rejected` event: one event per command.
        let store = try openStore(
          directory.path, configuration: ZoneEvaluator.Configuration(reportsRejections: true))
        let threads = 4
        let commandsPerThread = 300
        let running = Atomic<Int>(threads)
        /// Times the head was seen lower than before.
        let regressions = Atomic<Int>(0)
        /// Answers after which the head was below the answer's own last seq.
        let staleAfterAnswer = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let observer = Thread {
          var last: Int64 = 0
          while running.load(ordering: .acquiring) > 0 {
            let seq = store.lastEventSeq
            if seq < last { regressions.add(1, ordering: .relaxed) }
            last = seq
          }
        }
        observer.start()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
          for step in 0..<commandsPerThread {
            let device = "d\(thread)"
            let time = Double(step)
            guard
              let answer = try? store.execute(.fixes([fix(device, time, base), fix(device, time, base)])),
              let lastSeq = answer.lastSeq
            else {
              failures.add(1, ordering: .relaxed)
              continue
            }
            if store.lastEventSeq < lastSeq { staleAfterAnswer.add(1, ordering: .relaxed) }
          }
          running.subtract(1, ordering: .releasing)
        }
        while !observer.isFinished { Thread.sleep(forTimeInterval: 0.001) }
        let total = Int64(threads * commandsPerThread)
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(store.statistics.commandSeq == total)
        #expect(store.statistics.eventSeq == total)
        #expect(regressions.load(ordering: .relaxed) == 0)
        #expect(staleAfterAnswer.load(ordering: .relaxed) == 0)
        #expect(store.lastEventSeq == total)
        let events = try store.events(after: 0, limit: 100_000)
        expectGapless(events)
        #expect(events.count == Int(total))
        // Each device's events are its own commands' rejections, in its order.
        for thread in 0..<threads {
          let times = try events.map { try ZoneEvent(ndjsonLine: $0.line) }
            .filter { $0.device == "d\(thread)" }.map { secondsOf($0.time) }
          #expect(times == (0..<commandsPerThread).map(Double.init))
        }
        try store.close()
      }
    }
  }

  /// Several threads send the same keyed commands at once (a client retrying while its first
  /// request is in flight): each key's command is applied exactly once, and every sender gets
  /// that first answer.
  @available(macOS 15.0, *)  // Mutex and Atomic are macOS 15 API; the package supports macOS 13
  @Test func theSameKeyFromSeveralThreadsIsAppliedOnce() async throws {
    try await offThePool {
      try withTemporaryDirectory("concurrent-keys") { directory in
        let store = try openStore(directory.path)
        try store.execute(.replaceAllZones([Story.depot]))
        let threads = 4
        let keys = 40
        let answers = Mutex<[[CommandAnswer?]]>(Array(repeating: [], count: threads))
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
          var mine: [CommandAnswer?] = []
          for key in 0..<keys {
            // Device k enters the depot: one check-in per applied command.
            let command = StoreCommand.fixes([fix("k\(key)", Double(key), base)])
            mine.append(try? store.execute(command, idempotencyKey: "key-\(key)"))
          }
          answers.withLock { $0[thread] = mine }
        }
        let all = answers.withLock { $0 }
        #expect(store.statistics.commandSeq == Int64(keys + 1))
        #expect(store.statistics.eventSeq == Int64(keys))
        for key in 0..<keys {
          let forKey = all.map { $0[key] }
          #expect(forKey.allSatisfy { $0 != nil })
          #expect(forKey.filter { $0?.isReplay == false }.count == 1, "key \(key)")
          #expect(Set(forKey.map { $0?.commandSeq }).count == 1, "key \(key)")
          #expect(Set(forKey.map { $0?.json }).count == 1, "key \(key)")
          #expect(forKey.first??.events == 1)
        }
        let events = try allEvents(store)
        #expect(events.count == keys)
        #expect(Set(events.map(\.device)).count == keys)
        try store.close()
      }
    }
  }
}
