import FenceEngine
import FenceFormats
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
    _ batches: [String], arguments: [String], end: Timestamp, killing: Bool, seed: UInt64,
    onPostgres: Bool = false
  ) async throws -> RunResult {
    let directory = DaemonProcess.temporaryDirectory("crash")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // On PostgreSQL: a database of this run's own.
    let database = onPostgres ? try TestPostgres.createDatabase("crash") : nil
    defer { if let database { TestPostgres.dropDatabase(database.name) } }
    let postgres = database?.url
    var daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments, postgres: postgres)
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
        daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments, postgres: postgres)
      }
    }
    let events = try await DaemonClient(baseURL: daemon.baseURL).allEvents()
    // A clean stop writes a snapshot and exits 0; the restarted daemon serves the same log.
    #expect(daemon.terminate() == 0)
    daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments, postgres: postgres)
    let again = try await DaemonClient(baseURL: daemon.baseURL).allEvents()
    #expect(again == events)
    #expect(daemon.standardError.contains("commandsReplayed=0"))
    daemon.terminate()
    return RunResult(answers: answers, events: events, kills: kills)
  }

  /// Runs `fixes` through the daemon uninterrupted and twice with random SIGKILLs, and
  /// through `fencebench run`, with the same zone file and options; every log must be the same.
  func expectCrashesChangeNothing(
    zones: String, fixes: [LocationFix], batchSize: Int, options: [String] = [],
    alsoOnPostgres: Bool = false
  ) async throws -> [String] {
    let batches = TestFixes.batches(fixes, size: batchSize)
    let end = fixes.last!.time
    let arguments = ["--zones", zones, "--snapshot-every", "4"] + options
    let reference = try await run(batches, arguments: arguments, end: end, killing: false, seed: 1)

    if alsoOnPostgres {
      // The same on PostgreSQL (`--postgres`): uninterrupted, then killed at random moments.
      for (seed, killing) in [(UInt64(1), false), (9, true)] {
        let run = try await run(
          batches, arguments: arguments, end: end, killing: killing, seed: seed, onPostgres: true)
        #expect(run.events == reference.events, "PostgreSQL, seed \(seed)")
        #expect(run.answers == reference.answers, "PostgreSQL, seed \(seed)")
        if killing { #expect(run.kills >= 3, "PostgreSQL killed only \(run.kills) times") }
      }
    }

    // Gapless seq from 1, ids unique.
    let seqs = reference.events.map { line -> Int in
      Int(line.dropFirst("{\"seq\":".count).prefix { $0.isNumber })!
    }
    #expect(seqs == Array(stride(from: 1, through: reference.events.count, by: 1)))
    let ids = reference.events.map { $0.split(separator: ",")[1] }
    #expect(Set(ids).count == ids.count)

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
    let status = try Self.fencebench(
      ["run", "--zones", zones, fixFile, "--events", eventFile, "--no-latency"] + options)
    #expect(status == 0)
    let fencebenchLines = try String(contentsOfFile: eventFile, encoding: .utf8)
      .split(separator: "\n").map(String.init)
    #expect(reference.events.map(TestFixes.withoutSeq) == fencebenchLines)
    return reference.events
  }

  /// Runs the built `fencebench` in the repository's root and waits; returns its status.
  static func fencebench(_ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: DaemonProcess.binary("fencebench"))
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: DaemonProcess.repositoryRoot)
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test func theHarborHourKilledAtRandomMomentsGivesTheUninterruptedLogAndFencebenchs() async throws {
    let events = try await expectCrashesChangeNothing(
      zones: TestFixes.harborZones, fixes: try TestFixes.harborHour(), batchSize: 250,
      alsoOnPostgres: TestPostgres.isAvailable)
    #expect(events.count == 57)
  }

  /// Generated fences (circles, polygons, points and GEOLINEs, several per zone) and tracks,
  /// with a default dwell, so that dwells fire at batch ends and on the final advance.
  @Test func generatedTracksKilledAtRandomMomentsGiveTheUninterruptedLogAndFencebenchs() async throws {
    let zones = DaemonProcess.temporaryDirectory("generated-zones") + ".geojson"
    let tracks = DaemonProcess.temporaryDirectory("generated-tracks") + ".csv"
    defer {
      try? FileManager.default.removeItem(atPath: zones)
      try? FileManager.default.removeItem(atPath: tracks)
    }
    let box = "--box=-74.05,40.68,-73.97,40.74"
    #expect(
      try Self.fencebench([
        "generate", "fences", "--count", "120", "--shape", "mixed", "--fences-per-zone", "2",
        "--radius", "100...400", box, "--seed", "11", "--out", zones,
      ]) == 0)
    #expect(
      try Self.fencebench([
        "generate", "tracks", "--devices", "40", "--fixes", "150", "--step", "10", "--speed", "8",
        "--movement", "waypoint", box, "--seed", "12", "--out", tracks,
      ]) == 0)
    let fixes = try TrackReader(path: tracks).readAll().enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }.map(\.element)
    let events = try await expectCrashesChangeNothing(
      zones: zones, fixes: fixes, batchSize: 200, options: ["--dwell", "60"])
    #expect(events.count > 100)
    #expect(events.contains { $0.contains("\"kind\":\"dwell\"") })
    #expect(events.contains { $0.contains("\"trigger\":\"geoline\"") })
  }
}
