import ArgumentParser
import FenceEngine
import FenceFormats

/// `fencebench generate fences|tracks`: seeded synthetic data at any scale.
struct GenerateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Writes synthetic fence sets (zones GeoJSON) or tracks (CSV), seeded.",
    discussion: """
      The same options and seed always give the same bytes.

      Exit status: 0 success; 1 an output that cannot be written; 2 bad usage.
      """,
    subcommands: [Fences.self, Tracks.self])

  /// `fencebench generate fences`.
  struct Fences: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Writes a synthetic fence set as zones GeoJSON, one feature per line.")

    @Option(help: "How many features to write.")
    var count: Int = 1000

    @Option(
      help: ArgumentHelp(
        "The kind of feature: \(FenceSetGenerator.Shape.allCases.map(\.rawValue).joined(separator: ", ")).",
        discussion: "`mixed` draws circle, polygon, geoline or point with equal odds."))
    var shape: FenceSetGenerator.Shape = .circle

    @Option(
      help: ArgumentHelp(
        "Size in metres, one value or LOW...HIGH: circle radius, polygon outer radius, GEOLINE leg length.",
        valueName: "metres"))
    var radius: MetreRange = MetreRange(50...500)

    @Option(help: "Vertices per polygon (3 or more; the ring is closed on top of these).")
    var vertices: Int = 8

    @Option(help: "Vertices per GEOLINE (2 or more).")
    var lineVertices: Int = 2

    @Option(help: "Features per zone: 1 makes every feature its own zone.")
    var fencesPerZone: Int = 1

    @Option(help: "The area to fill, as WEST,SOUTH,EAST,NORTH degrees (not across 180; write --box=-74.3,... when WEST is negative).")
    var box: GeneratorBox = .newYork

    @Option(help: "The random seed.")
    var seed: UInt64 = 1

    @Option(name: .shortAndLong, help: "The output file (`-` for standard output).")
    var out: String = "-"

    func validate() throws {
      guard count >= 0 else { throw ValidationError("--count must be 0 or more.") }
      guard vertices >= 3 else {
        throw ValidationError("--vertices must be at least 3 for a polygon; try --vertices 8.")
      }
      guard lineVertices >= 2 else {
        throw ValidationError("--line-vertices must be at least 2 for a GEOLINE.")
      }
      guard fencesPerZone >= 1 else {
        throw ValidationError("--fences-per-zone must be at least 1.")
      }
    }

    func run() throws {
      let generator = FenceSetGenerator(
        count: count, shape: shape, radius: radius.range, vertices: vertices,
        lineVertices: lineVertices, fencesPerZone: fencesPerZone, box: box, seed: seed)
      try ExitCodes.reportingBadInput { try generator.write(to: OutputFile(path: out)) }
    }
  }

  /// `fencebench generate tracks`.
  struct Tracks: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Writes synthetic device tracks as CSV, rows in time order across devices.")

    @Option(help: "How many devices.")
    var devices: Int = 10

    @Option(help: "Fixes per device (or give --duration; 100 when neither is given).")
    var fixes: Int?

    @Option(help: "Seconds covered per device; fixes = duration / step + 1.")
    var duration: Double?

    @Option(help: "Seconds between a device's fixes.")
    var step: Double = 1

    @Option(help: "Speed in metres per second.")
    var speed: Double = 5

    @Option(help: "Metres of uniform position noise added to each written fix.")
    var jitter: Double = 0

    @Option(help: "How devices move: walk (random walk) or waypoint (legs to random points).")
    var movement: TrackGenerator.Movement = .walk

    @Option(help: "The area to move in, as WEST,SOUTH,EAST,NORTH degrees (not across 180; write --box=-74.3,... when WEST is negative).")
    var box: GeneratorBox = .newYork

    @Option(help: "The time of the first fix (RFC 3339).")
    var start: String = "2020-01-01T00:00:00Z"

    @Option(help: "The random seed.")
    var seed: UInt64 = 1

    @Option(name: .shortAndLong, help: "The output file (`-` for standard output).")
    var out: String = "-"

    func validate() throws {
      guard devices >= 1 else { throw ValidationError("--devices must be at least 1.") }
      guard step > 0, step.isFinite else {
        throw ValidationError("--step must be a number of seconds greater than 0.")
      }
      guard speed >= 0, speed.isFinite else {
        throw ValidationError("--speed must be 0 or more metres per second.")
      }
      guard jitter >= 0, jitter.isFinite else {
        throw ValidationError("--jitter must be 0 or more metres.")
      }
      if fixes != nil, duration != nil {
        throw ValidationError("Give either --fixes or --duration, not both.")
      }
      if let fixes, fixes < 1 { throw ValidationError("--fixes must be at least 1.") }
      if let duration, !(duration >= 0) {
        throw ValidationError("--duration must be 0 or more seconds.")
      }
      guard TimestampParser.parse(start) != nil else {
        throw ValidationError("--start must be an RFC 3339 time such as 2020-01-01T00:00:00Z.")
      }
    }

    func run() throws {
      let count = fixes ?? duration.map { Int(($0 / step).rounded(.down)) + 1 } ?? 100
      let generator = TrackGenerator(
        devices: devices, fixes: count, step: step, speed: speed, jitter: jitter,
        movement: movement, box: box,
        start: TimestampParser.parse(start) ?? Timestamp(microsecondsSinceEpoch: 0), seed: seed)
      try ExitCodes.reportingBadInput { try generator.write(to: OutputFile(path: out)) }
    }
  }
}

extension FenceSetGenerator.Shape: ExpressibleByArgument {}
extension TrackGenerator.Movement: ExpressibleByArgument {}
