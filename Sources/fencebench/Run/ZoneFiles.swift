import FenceEngine
import FenceFormats

/// Loading of the `--zones` files with the run's options (point radius, rule defaults, repair).
enum ZoneFiles {
  /// The zone-load options the command line describes: rule options fill in only what a zone
  /// does not set itself.
  static func options(for command: RunCommand) -> ZoneLoadOptions {
    var defaults = ZoneRules.default
    if let mrt = command.mrt { defaults.minimumRetriggerTime = mrt }
    if let dwell = command.dwell { defaults.dwell = dwell }
    if let exitHysteresis = command.exitHysteresis { defaults.exitHysteresis = exitHysteresis }
    if let exitConfirmations = command.exitConfirmations {
      defaults.exitConfirmations = exitConfirmations
    }
    if let checkOut = command.checkOut { defaults.checkOut = checkOut }
    if let initialTrigger = command.initialTrigger { defaults.initialTrigger = initialTrigger }
    return ZoneLoadOptions(pointRadius: command.pointRadius, defaults: defaults, repair: command.repair)
  }

  /// Every zone of every file, in file order.
  static func load(paths: [String], command: RunCommand) throws -> [Zone] {
    let options = options(for: command)
    var zones: [Zone] = []
    for path in paths {
      zones += try ZoneLoader.loadZones(contentsOf: path, options: options)
    }
    return zones
  }
}
