import Foundation

/// The PostgreSQL server the tests use: the one `FENCEKIT_POSTGRES_URL` names. `.ci/run`
/// starts one (`Scripts/postgres start`) and sets it; without it the suites that need a server
/// are disabled, naming why.
public enum TestPostgres {
  /// The server's URL (its database `fencekit`), or `nil`.
  public static let url: String? = {
    guard let url = ProcessInfo.processInfo.environment["FENCEKIT_POSTGRES_URL"], !url.isEmpty
    else { return nil }
    return url
  }()

  /// Whether a server is there.
  public static var isAvailable: Bool { url != nil }

  /// A new empty database on the server, named for `label`, and its URL; drop it with
  /// ``dropDatabase(_:)``.
  public static func createDatabase(_ label: String) throws -> (name: String, url: String) {
    guard let url else { throw TestPostgresError("no PostgreSQL server for the tests") }
    let name = "fk_" + label.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(30)
      + "_" + UUID().uuidString.lowercased().prefix(8)
    try psql(url, "CREATE DATABASE \(name)")
    return (name, Self.url(url, database: name))
  }

  /// Drops a database made by ``createDatabase(_:)`` (closing its remaining connections).
  public static func dropDatabase(_ name: String) {
    guard let url else { return }
    _ = try? psql(url, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
  }

  /// Runs one SQL statement with `psql` against `url`, returning its unaligned output.
  @discardableResult
  public static func psql(_ url: String, _ sql: String) throws -> String {
    try run("/usr/bin/env", ["psql", url, "-v", "ON_ERROR_STOP=1", "-Atqc", sql])
  }

  /// `url` with its database replaced.
  static func url(_ url: String, database: String) -> String {
    guard let slash = url.lastIndex(of: "/") else { return url }
    return String(url[...slash]) + database
  }

  /// Runs a program and returns its standard output; throws with its standard error when it
  /// fails.
  static func run(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestPostgresError(
        "\(arguments.prefix(2).joined(separator: " ")): \(String(decoding: err, as: UTF8.self))")
    }
    return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// A failure to reach or set up the tests' PostgreSQL server.
public struct TestPostgresError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
