import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The exit statuses of `fencebench`: 0 success, 1 bad input, 2 bad usage (argument-parser's
/// `ValidationError`s already exit with 64 by default, so usage errors are mapped to 2 here),
/// 3 when the `--compare-geos` self-check finds FenceKit and GEOS disagreeing.
enum ExitCodes {
  static let badInput = ExitCode(1)
  static let badUsage = ExitCode(2)
  static let disagreement = ExitCode(3)

  /// Runs `body`; any error it throws is printed on standard error as `fencebench: <message>`
  /// and turns into exit status 1.
  static func reportingBadInput<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as ExitCode {
      throw error
    } catch {
      printError("fencebench: \(error)")
      throw badInput
    }
  }

  /// Writes a line to standard error.
  static func printError(_ message: String) {
    printToStandardError(message)
  }
}
