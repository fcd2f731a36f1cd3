import ArgumentParser
import Foundation

/// `DaemonLoad`: drives a real release `fenced` process over loopback and measures it.
///
/// Each subcommand starts its own `fenced` on a fresh temporary data directory, feeds it
/// pre-encoded NDJSON batches of real AIS fixes, and appends one JSON line with the figures to
/// `--results`; `report` turns that file into the markdown tables of
/// `Docs/Daemon-Performance.md`. `Scripts/daemon-bench` runs every scenario.
@main
struct DaemonLoad: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "DaemonLoad",
    abstract: "Load client for the fenced daemon: ingest, recovery, event-lag and scale-out scenarios.",
    subcommands: [IngestCommand.self, RecoveryCommand.self, LagCommand.self, ClusterCommand.self, ReportCommand.self])
}

/// Options every scenario shares: which daemon, which data, where the results go.
struct CommonOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The release fenced binary.", valueName: "path"))
  var fenced: String

  @Option(help: ArgumentHelp("The repository root (for Fixtures/).", valueName: "dir"))
  var repository: String = ".."

  @Option(help: ArgumentHelp("Real data root (tracks/, fences/); the fixtures are used when it is absent.", valueName: "dir"))
  var data: String = ProcessInfo.processInfo.environment["FENCEKIT_DATA"] ?? "/work/shared/data"

  @Option(help: "Zone set: all (every file of <data>/fences with --repair --point-radius 2000, when present), harbor (the fixture's six zones), auto (all when present).")
  var zones: ZoneChoice = .auto

  @Option(help: ArgumentHelp("Where the temporary data directories go.", valueName: "dir"))
  var workDirectory: String = NSTemporaryDirectory()

  @Option(help: ArgumentHelp("Append one JSON line of figures to this file.", valueName: "file"))
  var results: String?

  @Option(help: ArgumentHelp("A name for this scenario in the report.", valueName: "text"))
  var label: String?

  @Flag(help: "Keep the data directory and fenced's log after the run.")
  var keep = false

  @Option(help: ArgumentHelp("Set an environment variable for fenced only (repeat for more).", valueName: "name=value"))
  var fencedEnvironment: [String] = []

  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp("Pass one more argument to fenced serve (repeat for more; --variant names the run).", valueName: "argument"))
  var fencedArgument: [String] = []

  @Option(help: ArgumentHelp("Names a variant of the storage in the report (with --fenced-environment).", valueName: "text"))
  var variant: String?

  /// `--fenced-environment` as a dictionary.
  var environment: [String: String] {
    var result: [String: String] = [:]
    for item in fencedEnvironment {
      guard let equals = item.firstIndex(of: "=") else { continue }
      result[String(item[..<equals])] = String(item[item.index(after: equals)...])
    }
    return result
  }

  enum ZoneChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, all, harbor
  }

  /// The week of AIS when the real data is there, else the fixture hour.
  var trackPath: String {
    let week = (data as NSString).appendingPathComponent("tracks/nyharbor-ais-2020-12-01-to-07.csv")
    if FileManager.default.fileExists(atPath: week) { return week }
    return (repository as NSString).appendingPathComponent(
      "Fixtures/tracks/nyharbor-ais-2020-06-30-first-hour.csv")
  }

  /// The `--zones …` arguments (and `--repair --point-radius 2000` for the full set), and a
  /// short name of the set.
  var zoneArguments: (arguments: [String], name: String) {
    let fences = (data as NSString).appendingPathComponent("fences")
    var files: [String] = []
    if zones != .harbor, let names = try? FileManager.default.contentsOfDirectory(atPath: fences) {
      files = names.filter { $0.hasSuffix(".geojson") || $0.hasSuffix(".geojson.gz") }.sorted()
        .map { (fences as NSString).appendingPathComponent($0) }
    }
    if !files.isEmpty {
      let names = files.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
      return (files.flatMap { ["--zones", $0] } + ["--repair", "--point-radius", "2000"], "all fences (\(names))")
    }
    let harbor = (repository as NSString).appendingPathComponent("Fixtures/zones/nyharbor-zones.geojson")
    return (["--zones", harbor], "harbor zones (Fixtures/zones/nyharbor-zones.geojson)")
  }

  /// A fresh data directory path (not created).
  func newDataDirectory(_ name: String) -> String {
    (workDirectory as NSString).appendingPathComponent(
      "daemonload-\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
  }

  func validate() throws {
    for item in fencedEnvironment where !item.contains("=") {
      throw ValidationError("--fenced-environment takes name=value, got \(item)")
    }
    guard FileManager.default.isExecutableFile(atPath: fenced) else {
      throw ValidationError("--fenced \(fenced) is not an executable file")
    }
  }

  /// Appends a record to `--results`, and prints it.
  func write(_ record: Record) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let line = String(decoding: try encoder.encode(record), as: UTF8.self)
    print(line)
    guard let results else { return }
    if !FileManager.default.fileExists(atPath: results) {
      _ = FileManager.default.createFile(atPath: results, contents: nil)
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: results))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data((line + "\n").utf8))
    try handle.close()
  }
}

/// Prints a progress line to standard error.
func note(_ text: String) {
  FileHandle.standardError.write(Data(("[DaemonLoad] " + text + "\n").utf8))
}

/// The 1-, 5- and 15-minute load averages.
func loadAverage() -> [Double] {
  guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return [] }
  return text.split(separator: " ").prefix(3).compactMap { Double($0) }
}

/// CPU seconds this process used (user, system).
func ownCPUSeconds() -> (user: Double, system: Double) {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return (
    Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
    Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  )
}

struct LoadFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
