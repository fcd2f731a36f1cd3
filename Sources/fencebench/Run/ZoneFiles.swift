import FenceCommandLine
import FenceEngine
import FenceFormats

/// Loading of the `--zones` files with the run's options (point radius, rule defaults, repair).
enum ZoneFiles {
  /// Every zone of every file, in file order.
  static func load(paths: [String], command: RunCommand) throws -> [Zone] {
    try ZoneLoader.loadZones(contentsOf: paths, options: command.zoneOptions.loadOptions)
  }
}
