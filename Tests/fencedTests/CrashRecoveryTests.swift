import FenceEngine
import FenceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Guarantees 1 to 3 of `fenced.md` with the real binary: SIGKILL at random moments while a
/// client streams batches, restart on the same directory, resend what got no answer with its
/// key; the event log must equal an uninterrupted run's and `fencebench run`'s.
@Suite(.serialized, .offThePool)
struct CrashRecoveryTests {
  /// What one run through the daemon ended with.
  struct RunResult {
    var answers: [String]
    var events: [String]
    var kills: Int
  }

  /// Posts `batches` in order with keys `batch-i`, killing the daemon with SIGKILL at random
  /// moments (a seeded choice per batch, a random delay into the request) when `killing`.
  func run(
    _ batches: [String], arguments: [String], end: Timestamp, killing: Bool, seed: UInt64
  ) async throws -> RunResult {
    let directory = DaemonProcess.temporaryDirectory("crash")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments)
    var random = SeededGenerator(seed: seed)
    var answers: [String] = []
    var kills = 0
    var index = 0
    var attempts = 0
    while index <= batches.count {
      attempts += 1
      #expect(attempts < batches.count * 4, "too many attempts")
      let client = DaemonClient(baseURL: daemon.baseURL)
      var killer: Task<Void, Never>?
      if killing, random.int(below: 4) == 0 {
        let delay = UInt32(random.int(below: 40_000))
        let pid = daemon.pid
        killer = Task.detached {
          usleep(delay)
          Glibc.kill(pid, SIGKILL)
        }
      }
      do {
        // The last "batch" is the advance to the last fix's time, as fencebench run ends.
        let answer =
          index < batches.count
          ? try await client.postFixes(batches[index], key: "batch-\(index)")
          : try await client.request(
            .POST, "/v1/advance", body: Array("{\"time\":\"\(RFC3339.format(end))\"}".utf8),
            headers: [("Idempotency-Key", "advance")])
        #expect(answer.status == 200, "batch \(index): \(answer.body)")
        answers.append(answer.body)
        index += 1
      } catch {
        // No answer: the batch is resent, with its key, to the restarted daemon.
      }
      if let killer {
        await killer.value
        daemon.kill()
        kills += 1
        daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments)
      }
    }
    let events = try await DaemonClient(baseURL: daemon.baseURL).allEvents()
    // A clean stop writes a snapshot and exits 0; the restarted daemon serves the same log.
    #expect(daemon.terminate() == 0)
    daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments)
    let again = try await DaemonClient(baseURL: daemon.baseURL).allEvents()
    #expect(again == events)
    #expect(daemon.standardError.contains("commandsReplayed=0"))
    daemon.terminate()
    return RunResult(answers: answers, events: events, kills: kills)
  }

  @Test func killedAtRandomMomentsGivesTheUninterruptedLogAndFencebenchsEvents() async throws {
    let fixes = try TestFixes.harborHour()
    let batches = TestFixes.batches(fixes, size: 250)
    let end = fixes.last!.time
    let arguments = ["--zones", TestFixes.harborZones, "--snapshot-every", "4"]
    let reference = try await run(batches, arguments: arguments, end: end, killing: false, seed: 1)
    #expect(reference.events.count == 57)

    // Gapless seq from 1, ids unique.
    let seqs = reference.events.map { line -> Int in
      Int(line.dropFirst("{\"seq\":".count).prefix { $0.isNumber })!
    }
    #expect(seqs == Array(1...reference.events.count))

    for seed: UInt64 in [7, 8] {
      let killed = try await run(batches, arguments: arguments, end: end, killing: true, seed: seed)
      #expect(killed.kills >= 3, "seed \(seed) killed only \(killed.kills) times")
      #expect(killed.events == reference.events)
      #expect(killed.answers == reference.answers)
    }

    // The same fixes through fencebench run give the same events, ids included.
    let fixFile = DaemonProcess.temporaryDirectory("fixes") + ".ndjson"
    let eventFile = DaemonProcess.temporaryDirectory("events") + ".ndjson"
    defer {
      try? FileManager.default.removeItem(atPath: fixFile)
      try? FileManager.default.removeItem(atPath: eventFile)
    }
    try TestFixes.ndjson(fixes).write(toFile: fixFile, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: DaemonProcess.binary("fencebench"))
    process.arguments = [
      "run", "--zones", TestFixes.harborZones, fixFile, "--events", eventFile, "--no-latency",
    ]
    process.currentDirectoryURL = URL(fileURLWithPath: DaemonProcess.repositoryRoot)
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let fencebenchLines = try String(contentsOfFile: eventFile, encoding: .utf8)
      .split(separator: "\n").map(String.init)
    #expect(reference.events.map(TestFixes.withoutSeq) == fencebenchLines)
  }
}
