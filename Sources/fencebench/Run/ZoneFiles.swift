import FenceEngine
import FenceFormats

/// Loading of the `--zones` files with the run's options (point radius, rule defaults, repair).
enum ZoneFiles {
  static func load(paths: [String], command: RunCommand) throws -> [Zone] {
    []
  }
}
