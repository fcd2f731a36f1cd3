import ArgumentParser
import FenceEngine
import FenceFormats

/// `fencebench run`: replays track files through the engine in time order and reports events,
/// counts and timings (formats.md, "fencebench").
struct RunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Replays track files through the engine and prints a summary.",
    discussion: """
      All fixes of all track files are fed in time order (a stable sort across files; \
      --presorted streams them instead), then the engine is advanced to the last fix's time \
      so that due dwells fire. Exit status: 0 success, 1 bad input, 2 bad usage.
      """)

  // MARK: Inputs

  @Option(
    name: .customLong("zones"),
    help: ArgumentHelp("A zones GeoJSON file (repeat for more).", valueName: "file"))
  var zoneFiles: [String] = []

  @Argument(help: ArgumentHelp("Track files: .csv, .gpx, .ndjson or .jsonl, optionally .gz.", valueName: "track"))
  var tracks: [String] = []

  @Option(help: "Read every track file as this format instead of choosing by extension.")
  var format: TrackFormat?

  @Flag(help: "Stop at the first track row that cannot be parsed instead of skipping it.")
  var strict = false

  @Flag(help: "Trust that each track file is already in time order and stream a merge of them, without reading everything first.")
  var presorted = false

  @Flag(help: "Repair invalid polygons with GEOS MakeValid instead of rejecting them.")
  var repair = false

  @Option(help: ArgumentHelp("Radius of point fences (GeoJSON Points without a radius).", valueName: "metres"))
  var pointRadius: Double = 100

  // MARK: Engine

  @Option(help: ArgumentHelp("Reject fixes whose accuracy is larger than this.", valueName: "metres"))
  var maxAccuracy: Double = 100

  @Option(help: ArgumentHelp("Reject fixes implying a speed above this from the device's last accepted fix.", valueName: "m/s"))
  var maxSpeed: Double?

  @Option(help: ArgumentHelp("Turn on proximity monitoring of the nearest N fences and GEOLINEs.", valueName: "N"))
  var monitor: Int?

  @Option(help: ArgumentHelp("Proximity monitoring radius (with --monitor).", valueName: "metres"))
  var radius: Double = 1000

  @Flag(help: "With --monitor, trigger only fences and GEOLINEs in the device's monitored set (what a phone would see).")
  var onlyMonitored = false

  @Option(help: "How polygon fences are tested: native (Swift) or geos (GEOS prepared covers).")
  var backend: Backend = .native

  @Flag(help: "Skip the geometric tests for fixes that provably cannot enter, leave or cross anything (inside a per-device safe radius); the events are the same. Ignored with --monitor.")
  var skipUnchanged = false

  // MARK: Zone-rule defaults (for zones that do not set their own)

  @Option(help: ArgumentHelp("Default minimum retrigger time.", valueName: "seconds"))
  var mrt: Double?

  @Option(help: ArgumentHelp("Default dwell time.", valueName: "seconds"))
  var dwell: Double?

  @Option(help: ArgumentHelp("Default exit hysteresis.", valueName: "metres"))
  var exitHysteresis: Double?

  @Option(help: ArgumentHelp("Default number of consecutive fixes outside needed to check out.", valueName: "count"))
  var exitConfirmations: Int?

  @Flag(inversion: .prefixedNo, help: "Default for whether zones report check-outs (default: on).")
  var checkOut: Bool?

  @Flag(inversion: .prefixedNo, help: "Default for whether a device first seen inside checks in (default: on).")
  var initialTrigger: Bool?

  // MARK: Outputs

  @Option(help: ArgumentHelp("Write every event as NDJSON to this file (`-` for standard output).", valueName: "file"))
  var events: String?

  @Flag(help: "Also write a `rejected` line for every rejected fix.")
  var diagnostics = false

  @Flag(help: "Print the summary as one JSON object.")
  var json = false

  @Option(help: ArgumentHelp("Draw fences, tracks and events to an .html page or an .svg picture.", valueName: "file"))
  var map: String?

  @Option(help: ArgumentHelp("The most events drawn on the map: a seeded random sample of the run's events when there are more.", valueName: "count"))
  var mapEvents = 20_000

  @Flag(inversion: .prefixedNo, help: "Time each fix for latency percentiles (adds one clock reading per fix).")
  var latency = true

  @Flag(
    name: .customLong("compare-geos"),
    help: "Also run a plain GEOS loop (STR-tree, prepared covers, chord test for circles) over the same fixes: its throughput, latency and the speed-up, and a check that FenceKit and GEOS find the same fences for every fix.")
  var compareGEOS = false

  enum Backend: String, ExpressibleByArgument, CaseIterable {
    case native, geos
  }

  func validate() throws {
    guard !zoneFiles.isEmpty else {
      throw ValidationError("Give at least one zones file with --zones FILE.geojson.")
    }
    guard !tracks.isEmpty else {
      throw ValidationError("Give at least one track file (.csv, .gpx or .ndjson) after the options.")
    }
    guard pointRadius > 0, pointRadius.isFinite else {
      throw ValidationError("--point-radius must be a number of metres greater than 0.")
    }
    guard maxAccuracy > 0, !maxAccuracy.isNaN else {
      throw ValidationError("--max-accuracy must be a number of metres greater than 0.")
    }
    if let maxSpeed, !(maxSpeed > 0) {
      throw ValidationError("--max-speed must be a number of metres per second greater than 0.")
    }
    if let monitor, monitor < 1 {
      throw ValidationError("--monitor must be at least 1 (the number of regions to monitor).")
    }
    guard radius > 0, radius.isFinite else {
      throw ValidationError("--radius must be a number of metres greater than 0.")
    }
    if onlyMonitored, monitor == nil {
      throw ValidationError("--only-monitored needs --monitor N.")
    }
    if let mrt, !(mrt >= 0 && mrt.isFinite) {
      throw ValidationError("--mrt must be 0 or more seconds.")
    }
    if let dwell, !(dwell > 0 && dwell.isFinite) {
      throw ValidationError("--dwell must be a number of seconds greater than 0.")
    }
    if let exitHysteresis, !(exitHysteresis >= 0 && exitHysteresis.isFinite) {
      throw ValidationError("--exit-hysteresis must be 0 or more metres.")
    }
    if let exitConfirmations, exitConfirmations < 1 {
      throw ValidationError("--exit-confirmations must be at least 1.")
    }
    guard mapEvents >= 0 else {
      throw ValidationError("--map-events must be 0 or more events.")
    }
    if let map, !(map.lowercased().hasSuffix(".html") || map.lowercased().hasSuffix(".svg")) {
      throw ValidationError("--map must name an .html or .svg file, for example --map run.html.")
    }
  }

  /// The engine configuration the options describe.
  var engineConfiguration: ZoneEvaluator.Configuration {
    ZoneEvaluator.Configuration(
      maximumAccuracy: maxAccuracy, maximumSpeed: maxSpeed,
      proximity: monitor.map {
        ZoneEvaluator.ProximityMonitoring(count: $0, radius: radius, triggersOnlyMonitored: onlyMonitored)
      },
      predicateBackend: backend == .geos ? .geosPrepared : .native,
      reportsRejections: diagnostics, skipsUnchangedFixes: skipUnchanged)
  }

  func run() throws {
    try ExitCodes.reportingBadInput {
      var replay = Replay(command: self)
      let summary = try replay.run()
      print(json ? summary.jsonText : summary.text)
      if let geos = summary.compareGEOS, !geos.agrees {
        ExitCodes.printError(
          "fencebench: FenceKit and GEOS disagree on \(geos.disagreeingFixes) fixes "
            + "(containments: FenceKit \(geos.fenceKitContainments), GEOS \(geos.geosContainments))")
        throw ExitCodes.disagreement
      }
    }
  }
}

extension TrackFormat: ExpressibleByArgument {}
