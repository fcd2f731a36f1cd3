import ArgumentParser
import FenceCommandLine
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
      so that due dwells fire.

      Exit status: 0 success; 1 bad input (a zone or track file that does not load, a \
      truncated .gz, an output that cannot be written; the events and map files are then not \
      written); 2 bad usage (an option out of range, an output that would overwrite an input \
      or another output); 3 with --compare-geos when FenceKit and GEOS disagree.
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

  @Option(
    name: .customLong("zone-changes"),
    help: ArgumentHelp(
      "Apply the timed zone changes of this NDJSON file (add, remove, replaceAll) as the replay reaches their times.",
      valueName: "file"))
  var zoneChanges: String?

  @Option(
    name: .customLong("device-tags"),
    help: ArgumentHelp(
      "Give devices tags for zones' deviceTags conditions: CSV rows of device,tag (a first row device,tag is a header).",
      valueName: "file"))
  var deviceTags: String?

  @OptionGroup(title: "Zone files")
  var zoneOptions: ZoneFileOptions

  // MARK: Engine

  @OptionGroup(title: "Engine")
  var engine: EngineOptions

  @Option(help: "How polygon fences are tested: native (Swift) or geos (GEOS prepared covers).")
  var backend: Backend = .native

  @Flag(help: "Skip the geometric tests for fixes that provably cannot enter, leave or cross anything (inside a per-device safe radius); the events are the same. Ignored with --monitor.")
  var skipUnchanged = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "The most cells (1/1024 degree) of fence answers the cell cache holds, 160 bytes each; 0 turns it off. The events are the same either way.",
      valueName: "cells"))
  var cellCache: Int = ZoneEvaluator.Configuration.default.cellCacheCapacity

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Polygon fences of at least this many edges get their tables (stripes, chunk trees) built at load rather than by the first fix near them; 0 for every polygon. The events are the same either way.",
      valueName: "edges"))
  var tablesAheadEdges: Int = ZoneEvaluator.Configuration.default.tablesAheadEdgeCount

  // MARK: Outputs

  @Option(help: ArgumentHelp("Write every event as NDJSON to this file (`-` for standard output).", valueName: "file"))
  var events: String?

  @Flag(help: "Print the summary as one JSON object.")
  var json = false

  @Option(help: ArgumentHelp("Draw fences, tracks and events to an .html page or an .svg picture.", valueName: "file"))
  var map: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("The most events drawn on the map: a seeded random sample of the run's events when there are more.", valueName: "count"))
  var mapEvents = 10_000

  @Option(parsing: .unconditional, help: ArgumentHelp("Break a device's track on the map where it has no position for longer than this.", valueName: "seconds"))
  var mapGap = TrackSampler.defaultGapSeconds

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
    try OptionRange.check("--cell-cache", cellCache, 0...ZoneEvaluator.Configuration.maximumCellCacheCapacity)
    guard tablesAheadEdges >= 0 else {
      throw ValidationError("--tables-ahead-edges must be a whole number of edges from 0, got \(tablesAheadEdges).")
    }
    guard mapEvents >= 0 else {
      throw ValidationError("--map-events must be 0 or more events, got \(mapEvents).")
    }
    guard mapGap > 0, mapGap.isFinite else {
      throw ValidationError("--map-gap must be a number of seconds greater than 0, got \(mapGap).")
    }
    if zoneChanges != nil, compareGEOS {
      throw ValidationError("--compare-geos compares against one fixed zone set; leave out --zone-changes or --compare-geos.")
    }
    if let map, !(map.lowercased().hasSuffix(".html") || map.lowercased().hasSuffix(".svg")) {
      throw ValidationError("--map must name an .html or .svg file, for example --map run.html.")
    }
    // Before anything is opened: an output must not overwrite an input or another output.
    try OutputPaths.checkCollisions(
      inputs: zoneFiles.map { ("--zones", $0) } + tracks.map { ("track file", $0) }
        + [zoneChanges].compactMap { $0.map { ("--zone-changes", $0) } }
        + [deviceTags].compactMap { $0.map { ("--device-tags", $0) } },
      outputs: [("--events", events), ("--map", map)].compactMap { name, path in path.map { (name, $0) } })
  }

  /// The engine configuration the options describe.
  var engineConfiguration: ZoneEvaluator.Configuration {
    var configuration = engine.configuration(
      predicateBackend: backend == .geos ? .geosPrepared : .native, skipsUnchangedFixes: skipUnchanged)
    configuration.cellCacheCapacity = cellCache
    configuration.tablesAheadEdgeCount = tablesAheadEdges
    return configuration
  }

  func run() throws {
    try ExitCodes.reportingBadInput {
      var replay = Replay(command: self)
      let summary = try replay.run()
      // With the events on standard output, the summary goes to standard error so that the
      // output stays pure NDJSON.
      let text = json ? summary.jsonText : summary.text
      if events == "-" {
        printToStandardError(text)
      } else {
        try StandardOutput.write(text + "\n")
      }
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
