import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `fencebench` command line: replay recorded tracks through the engine (`run`) and make
/// synthetic data for scaling runs (`generate`).
///
/// Exit status: 0 on success, 1 on bad input (the message names the file, feature or line),
/// 2 on bad usage.
@main
struct FenceBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fencebench",
    abstract: "Replays location tracks through the FenceKit engine and makes synthetic data.",
    discussion: """
      Exit status: 0 success; 1 bad input (a file that does not load or cannot be written); \
      2 bad usage; 3 (run --compare-geos) when FenceKit and GEOS disagree.
      """,
    subcommands: [RunCommand.self, ExplainCommand.self, GenerateCommand.self])

  /// Parses and runs, mapping argument-parser's usage failures (exit 64) to exit status 2.
  static func main() {
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch {
      if exitCode(for: error) == .validationFailure {
        printToStandardError(fullMessage(for: error))
        Self.exit(withError: ExitCodes.badUsage)
      }
      exit(withError: error)
    }
  }
}
