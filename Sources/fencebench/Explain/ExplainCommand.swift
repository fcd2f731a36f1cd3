import ArgumentParser
import FenceCommandLine
import FenceEngine
import FenceFormats

/// `fencebench explain`: replays tracks like `run`, and for each fix of one device says what the
/// engine looked at and decided (rules v2, "Explain"; `Docs/Rules.md`).
struct ExplainCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "explain",
    abstract: "Says, for each fix of one device, why the engine gave the events it gave (or none).",
    discussion: """
      Every fix of every device is processed as `run` does (other devices move the engine's \
      clock and fire their dwells); for each fix of --device between --from and --to, one NDJSON \
      line: the fix, the candidate fences and GEOLINEs with each predicate's answer and the \
      signed distance to the edge in metres, each concerned zone's rule state before and after \
      (inside, exit confirmations, MRT until, dwell due, armed by schedule and lifetime, \
      conditions passed), and the events or the reason for none. --table prints the same for \
      people.

      Exit status: 0 success; 1 bad input; 2 bad usage.
      """)

  @Option(
    name: .customLong("zones"),
    help: ArgumentHelp("A zones GeoJSON file (repeat for more).", valueName: "file"))
  var zoneFiles: [String] = []

  @Argument(help: ArgumentHelp("Track files: .csv, .gpx, .ndjson or .jsonl, optionally .gz.", valueName: "track"))
  var tracks: [String] = []

  @Option(help: ArgumentHelp("The device whose fixes are explained.", valueName: "id"))
  var device: String

  @Option(help: ArgumentHelp("Explain fixes at or after this RFC 3339 time.", valueName: "time"))
  var from: String?

  @Option(help: ArgumentHelp("Explain fixes at or before this RFC 3339 time.", valueName: "time"))
  var to: String?

  @Flag(help: "Print a readable table instead of NDJSON.")
  var table = false

  @Option(help: "Read every track file as this format instead of choosing by extension.")
  var format: TrackFormat?

  @Option(
    name: .customLong("device-tags"),
    help: ArgumentHelp("Device tags for deviceTags conditions: CSV rows of device,tag.", valueName: "file"))
  var deviceTags: String?

  @OptionGroup(title: "Zone files")
  var zoneOptions: ZoneFileOptions

  @OptionGroup(title: "Engine")
  var engine: EngineOptions

  func validate() throws {
    guard !zoneFiles.isEmpty else {
      throw ValidationError("Give at least one zones file with --zones FILE.geojson.")
    }
    guard !tracks.isEmpty else {
      throw ValidationError("Give at least one track file (.csv, .gpx or .ndjson) after the options.")
    }
    for (name, text) in [("--from", from), ("--to", to)] {
      if let text, TimestampParser.parse(text) == nil {
        throw ValidationError("\(name) must be an RFC 3339 time such as 2020-12-01T00:00:00Z, got \(text).")
      }
    }
  }

  func run() throws {
    try ExitCodes.reportingBadInput {
      let start = from.flatMap(TimestampParser.parse)
      let end = to.flatMap(TimestampParser.parse)
      let zones = try ZoneLoader.loadZones(contentsOf: zoneFiles, options: zoneOptions.loadOptions)
      var evaluator = try ZoneEvaluator(configuration: engine.configuration(), zones: zones)
      if let path = deviceTags {
        let tags = try DeviceTagReader.read(contentsOf: path)
        for device in tags.keys.sorted() { evaluator.setTags(tags[device] ?? [], forDevice: device) }
      }
      var options = TrackReadOptions()
      options.format = format
      let fixes = try readSorted(paths: tracks, options: options)
      var events: [ZoneEvent] = []
      var output = ""
      var explained = 0
      for fix in fixes {
        events.removeAll(keepingCapacity: true)
        let inRange =
          fix.device == device && start.map({ fix.time >= $0 }) ?? true
          && end.map({ fix.time <= $0 }) ?? true
        guard inRange else {
          evaluator.process(fix, into: &events)
          continue
        }
        let explanation = evaluator.explain(fix, into: &events)
        output += table ? explanation.table + "\n\n" : explanation.ndjsonLine + "\n"
        explained += 1
        if output.utf8.count > 1 << 20 {
          try StandardOutput.write(output)
          output = ""
        }
      }
      try StandardOutput.write(output)
      if explained == 0 {
        printToStandardError("fencebench explain: no fix of device \"\(device)\" in the tracks\(start != nil || end != nil ? " between --from and --to" : "")")
      }
    }
  }
}
