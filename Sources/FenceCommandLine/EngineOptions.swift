import ArgumentParser
import FenceEngine

/// The engine's settings on a command line: fix rejection, proximity monitoring and
/// diagnostics, the same in `fencebench run` and `fenced serve`.
///
/// Numbers are parsed unconditionally (`--radius -5` is "out of range", not "missing value")
/// and checked against ``FenceEngine/ValidRange``; `--radius` and `--only-monitored` need
/// `--monitor`.
public struct EngineOptions: ParsableArguments, Sendable {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Reject fixes whose accuracy is larger than this.", valueName: "metres"))
  public var maxAccuracy: Double = 100

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Reject fixes implying a speed above this from the device's last accepted fix.", valueName: "m/s"))
  public var maxSpeed: Double?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Turn on proximity monitoring of the nearest N fences and GEOLINEs.", valueName: "N"))
  public var monitor: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Proximity monitoring radius (with --monitor; default 1000).", valueName: "metres"))
  public var radius: Double?

  @Flag(help: "With --monitor, trigger only fences and GEOLINEs in the device's monitored set (what a phone would see).")
  public var onlyMonitored = false

  @Flag(help: "Also report a `rejected` event for every rejected fix.")
  public var diagnostics = false

  public init() {}

  public func validate() throws {
    try OptionRange.check("--max-accuracy", maxAccuracy, ValidRange.distance, unit: "metres", aboveZero: true)
    if let maxSpeed {
      try OptionRange.check("--max-speed", maxSpeed, ValidRange.speed, unit: "metres per second", aboveZero: true)
    }
    if let monitor { try OptionRange.check("--monitor", monitor, ValidRange.monitoredCount) }
    if let radius {
      guard monitor != nil else { throw ValidationError("--radius needs --monitor N (it is the monitoring radius).") }
      try OptionRange.check("--radius", radius, ValidRange.distance, unit: "metres", aboveZero: true)
    }
    if onlyMonitored, monitor == nil { throw ValidationError("--only-monitored needs --monitor N.") }
  }

  /// The engine configuration these options describe, with the settings a command adds.
  public func configuration(
    predicateBackend: ZoneEvaluator.PredicateBackend = .native, skipsUnchangedFixes: Bool = false
  ) -> ZoneEvaluator.Configuration {
    ZoneEvaluator.Configuration(
      maximumAccuracy: maxAccuracy, maximumSpeed: maxSpeed,
      proximity: monitor.map {
        ZoneEvaluator.ProximityMonitoring(count: $0, radius: radius ?? 1000, triggersOnlyMonitored: onlyMonitored)
      },
      predicateBackend: predicateBackend, reportsRejections: diagnostics,
      skipsUnchangedFixes: skipsUnchangedFixes)
  }
}
