import FenceTestSupport
import Foundation
import Testing

/// Options out of range, outputs that would overwrite inputs, failed runs and unwritable
/// outputs: each exits with its status and a message, and leaves no output file behind.
@Suite struct RunCommandOutputTests {
  static let zones = RunCommandTests.zones
  static let firstHour = RunCommandTests.firstHour

  @Test(arguments: [
    (["--monitor", "5", "--radius", "-5"], "Error: --radius must be a number of metres above 0 and at most 10000000, got -5."),
    (["--radius", "500"], "Error: --radius needs --monitor N (it is the monitoring radius)."),
    (["--monitor", "0"], "Error: --monitor must be a whole number from 1 to 1000000, got 0."),
    (["--monitor", "9223372036854775807"], "Error: --monitor must be a whole number from 1 to 1000000, got 9223372036854775807."),
    (["--dwell", "1e13"], "Error: --dwell must be a number of seconds above 0 and at most 1000000000, got 10000000000000."),
    (["--mrt", "-1"], "Error: --mrt must be a number of seconds from 0 to 1000000000, got -1."),
    (["--exit-confirmations", "0"], "Error: --exit-confirmations must be a whole number from 1 to 1000000, got 0."),
    (["--max-accuracy", "nan"], "Error: --max-accuracy must be a number of metres above 0 and at most 10000000, got nan."),
    (["--events", firstHour], "Error: --events \(firstHour) is the track file \(firstHour): writing it would destroy the input."),
    (["--events", "./" + zones], "Error: --events ./\(zones) is the --zones \(zones): writing it would destroy the input."),
    (["--events", "same.html", "--map", "same.html"], "Error: --map and --events name the same file (same.html); give each output its own."),
  ])
  func outOfRangeOptionsAndCollidingOutputsAreUsageErrors(_ options: [String], _ message: String) throws {
    let before = try Data(contentsOf: URL(fileURLWithPath: FenceBenchProcess.repositoryRoot + "/" + Self.firstHour))
    let result = try FenceBenchProcess.run(["run", "--zones", Self.zones, Self.firstHour] + options)
    #expect(result.status == 2)
    #expect(result.standardError.split(separator: "\n").first.map(String.init) == message)
    let after = try Data(contentsOf: URL(fileURLWithPath: FenceBenchProcess.repositoryRoot + "/" + Self.firstHour))
    #expect(after == before)
  }

  @Test func aZoneRuleBeyondItsRangeNamesTheFeature() throws {
    let path = FenceBenchProcess.temporaryPath("long-dwell.geojson")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","properties":{"dwell":1e13},"geometry":{"type":"Point","coordinates":[-74,40.6]}}]}"#
      .write(toFile: path, atomically: true, encoding: .utf8)
    let result = try FenceBenchProcess.run(["run", "--zones", path, Self.firstHour])
    #expect(result.status == 1)
    #expect(
      result.standardError
        == "fencebench: \(path): feature 0 (id \"a\"): property \"dwell\": expected a number of seconds from 0 to 1000000000 (or null for no dwell events), got 10000000000000\n")
  }

  @Test func aZoneIdInTwoFilesNamesBoth() throws {
    let copy = FenceBenchProcess.temporaryPath("harbor-copy.geojson")
    defer { try? FileManager.default.removeItem(atPath: copy) }
    try FileManager.default.copyItem(atPath: FenceBenchProcess.repositoryRoot + "/" + Self.zones, toPath: copy)
    let result = try FenceBenchProcess.run(["run", "--zones", Self.zones, "--zones", copy, Self.firstHour])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("fencebench: \(copy): zone \""))
    #expect(result.standardError.hasSuffix("\" is also defined in \(Self.zones); zone ids must be unique across the zone files\n"))
  }

  @Test func aFailedRunLeavesNoEventsFileAndKeepsAnOldOne() throws {
    let bad = FenceBenchProcess.temporaryPath("bad-for-events.csv")
    let events = FenceBenchProcess.temporaryPath("failed-events.ndjson")
    defer {
      try? FileManager.default.removeItem(atPath: bad)
      try? FileManager.default.removeItem(atPath: events)
    }
    try "device,time,lat,lon\nb,notatime,40.6,-74\n".write(toFile: bad, atomically: true, encoding: .utf8)
    let failed = try FenceBenchProcess.run(["run", "--zones", Self.zones, bad, "--strict", "--events", events])
    #expect(failed.status == 1)
    #expect(!FileManager.default.fileExists(atPath: events))
    try "old\n".write(toFile: events, atomically: true, encoding: .utf8)
    _ = try FenceBenchProcess.run(["run", "--zones", Self.zones, bad, "--strict", "--events", events])
    #expect(try String(contentsOfFile: events, encoding: .utf8) == "old\n")
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
      $0.contains(".fencebench-") && $0.hasSuffix("failed-events.ndjson")
    }
    #expect(leftovers == [])
  }

  @Test func eventsOnStandardOutputKeepItPureNDJSON() throws {
    let result = try FenceBenchProcess.run(["run", "--zones", Self.zones, Self.firstHour, "--events", "-", "--no-latency"])
    #expect(result.status == 0)
    let lines = result.standardOutput.split(separator: "\n")
    #expect(lines.count == 57)
    #expect(lines.allSatisfy { $0.hasPrefix("{\"id\":") })
    #expect(result.standardError.contains("events"))
  }

  @Test func aSummaryThatCannotBeWrittenIsAnError() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: FenceBenchProcess.binaryPath)
    process.arguments = ["run", "--zones", Self.zones, Self.firstHour, "--json"]
    process.currentDirectoryURL = URL(fileURLWithPath: FenceBenchProcess.repositoryRoot)
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
    let error = Pipe()
    process.standardError = error
    try process.run()
    let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(message == "fencebench: standard output: No space left on device\n")
  }

  @Test func theHelpListsEveryExitStatus() throws {
    let help = try FenceBenchProcess.run(["run", "--help"]).standardOutput
    let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(flat.contains("Exit status: 0 success; 1 bad input"))
    #expect(flat.contains("2 bad usage"))
    #expect(flat.contains("3 with --compare-geos when FenceKit and GEOS disagree"))
    let top = try FenceBenchProcess.run(["--help"]).standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(top.contains("Exit status: 0 success; 1 bad input (a file that does not load or cannot be written); 2 bad usage; 3"))
    let generate = try FenceBenchProcess.run(["generate", "--help"]).standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(generate.contains("Exit status: 0 success; 1 an output that cannot be written; 2 bad usage."))
  }
}

/// An output that is not a regular file, such as `/dev/null` or a named pipe, is written
/// directly: a run used to write a temporary file and rename it over the path, which replaced
/// `/dev/null` itself with a regular file.
@Suite struct RunCommandSpecialOutputTests {
  @Test func eventsGoThroughANamedPipeThatStaysAPipe() throws {
    let pipe = FenceBenchProcess.temporaryPath("events-pipe")
    _ = unlink(pipe)
    #expect(mkfifo(pipe, 0o600) == 0)
    defer { _ = unlink(pipe) }
    // The reader opens the pipe (blocking until the run opens it for writing) and reads to
    // its end on a thread of its own.
    final class Received: @unchecked Sendable {
      var bytes: [UInt8] = []
      let done = DispatchSemaphore(value: 0)
    }
    let received = Received()
    let reader = Thread {
      let fd = open(pipe, O_RDONLY)
      if fd >= 0 {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
          let count = read(fd, &buffer, buffer.count)
          if count <= 0 { break }
          received.bytes += buffer[..<count]
        }
        close(fd)
      }
      received.done.signal()
    }
    reader.start()
    let result = try FenceBenchProcess.run([
      "run", "--zones", RunCommandTests.zones, RunCommandTests.firstHour, "--json", "--events", pipe,
    ])
    #expect(result.status == 0)
    #expect(received.done.wait(timeout: .now() + 60) == .success)
    var status = stat()
    #expect(lstat(pipe, &status) == 0)
    #expect(status.st_mode & S_IFMT == S_IFIFO)
    let lines = received.bytes.split(separator: UInt8(ascii: "\n"))
    #expect(lines.count == 57)
    #expect(lines.first.map { $0.starts(with: Array(#"{"id":"#.utf8)) } == true)
  }
}
