import ArgumentParser
import FenceDaemon
import Foundation
import Logging
import Metrics
import Prometheus

/// `fenced`: the reference daemon (spec `fenced.md`, `Docs/Daemon.md`).
///
/// Exit status: 0 after a clean stop (SIGTERM, SIGINT), 1 on bad input (a zone file that does
/// not load, an unusable data directory or store), 2 on bad usage.
@main
struct Fenced: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fenced",
    abstract: "The FenceKit daemon: durable geofence and GEOLINE events over HTTP.",
    subcommands: [ServeCommand.self])

  /// Parses and runs, mapping argument-parser's usage failures (exit 64) to exit status 2.
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      if exitCode(for: error) == .validationFailure {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Self.exit(withError: ExitCode(2))
      }
      exit(withError: error)
    }
  }
}
