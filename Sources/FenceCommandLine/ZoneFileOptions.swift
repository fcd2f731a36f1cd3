import ArgumentParser
import FenceEngine
import FenceFormats

/// How zone files load: `--repair`, `--point-radius` and the zone-rule defaults, the same in
/// `fencebench run` and `fenced serve` (each names its own `--zones`).
///
/// Numbers are parsed unconditionally, so `--dwell -5` is "out of range", not "missing value".
/// Every value is checked against ``FenceEngine/ValidRange``.
public struct ZoneFileOptions: ParsableArguments, Sendable {
  @Flag(help: "Repair invalid polygons with GEOS MakeValid instead of rejecting them.")
  public var repair = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Radius of point fences (GeoJSON Points without a radius).", valueName: "metres"))
  public var pointRadius: Double = 100

  @Option(parsing: .unconditional, help: ArgumentHelp("Default minimum retrigger time.", valueName: "seconds"))
  public var mrt: Double?

  @Option(parsing: .unconditional, help: ArgumentHelp("Default dwell time.", valueName: "seconds"))
  public var dwell: Double?

  @Option(parsing: .unconditional, help: ArgumentHelp("Default exit hysteresis.", valueName: "metres"))
  public var exitHysteresis: Double?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Default number of consecutive fixes outside needed to check out.", valueName: "count"))
  public var exitConfirmations: Int?

  @Flag(inversion: .prefixedNo, help: "Default for whether zones report check-outs (default: on).")
  public var checkOut: Bool?

  @Flag(inversion: .prefixedNo, help: "Default for whether a device first seen inside checks in (default: on).")
  public var initialTrigger: Bool?

  public init() {}

  public func validate() throws {
    try OptionRange.check("--point-radius", pointRadius, ValidRange.distance, unit: "metres", aboveZero: true)
    if let mrt { try OptionRange.check("--mrt", mrt, ValidRange.duration, unit: "seconds") }
    if let dwell { try OptionRange.check("--dwell", dwell, ValidRange.duration, unit: "seconds", aboveZero: true) }
    if let exitHysteresis {
      try OptionRange.check("--exit-hysteresis", exitHysteresis, ValidRange.distance, unit: "metres")
    }
    if let exitConfirmations {
      try OptionRange.check("--exit-confirmations", exitConfirmations, ValidRange.exitConfirmations)
    }
  }

  /// The loader's options: the rule options fill in only what a zone does not set itself.
  public var loadOptions: ZoneLoadOptions {
    var defaults = ZoneRules.default
    if let mrt { defaults.minimumRetriggerTime = mrt }
    if let dwell { defaults.dwell = dwell }
    if let exitHysteresis { defaults.exitHysteresis = exitHysteresis }
    if let exitConfirmations { defaults.exitConfirmations = exitConfirmations }
    if let checkOut { defaults.checkOut = checkOut }
    if let initialTrigger { defaults.initialTrigger = initialTrigger }
    return ZoneLoadOptions(pointRadius: pointRadius, defaults: defaults, repair: repair)
  }
}
