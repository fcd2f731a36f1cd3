import FenceTestSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A real `fenced` process, started on a free port (it binds port 0 and prints the port it got),
/// stopped with SIGTERM or killed with SIGKILL.
///
/// The binary is the one beside the test bundle in the build products folder, or the one the
/// `FENCED` environment variable names.
final class DaemonProcess: @unchecked Sendable {
  let process = Process()
  let dataDirectory: String
  let arguments: [String]
  private(set) var port = 0
  private let errorLog: String
  /// The daemon's standard input, held open for its life: started with
  /// `--stop-when-stdin-closes`, the daemon stops when this process ends, however it ends (a
  /// crashed test runner left its daemons running).
  let standardInput = Pipe()

  static func binary(_ name: String) -> String {
    if let path = ProcessInfo.processInfo.environment[name.uppercased()] { return path }
    let bundle = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    var directory = bundle.resolvingSymlinksInPath().deletingLastPathComponent()
    while directory.pathComponents.count > 1,
      !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path)
    {
      if directory.lastPathComponent == "debug" || directory.lastPathComponent == "release" { break }
      directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent(name).path
  }

  /// The repository's root folder (where `Fixtures/` is).
  static var repositoryRoot: String { String(fixturePath("").dropLast("/Fixtures/".count)) }

  /// Starts `fenced serve --data DIR --listen 127.0.0.1:0 ARGUMENTS` and waits until it listens;
  /// with `postgres`, `--postgres URL` instead of `--data` (DIR then only names its log).
  init(dataDirectory: String, arguments: [String] = [], postgres: String? = nil) throws {
    self.dataDirectory = dataDirectory
    self.arguments = arguments
    errorLog = dataDirectory + ".stderr.log"
    process.executableURL = URL(fileURLWithPath: Self.binary("fenced"))
    let store = postgres.map { ["--postgres", $0] } ?? ["--data", dataDirectory]
    process.arguments =
      ["serve"] + store + ["--listen", "127.0.0.1:0", "--stop-when-stdin-closes"] + arguments
    process.standardInput = standardInput
    process.currentDirectoryURL = URL(fileURLWithPath: Self.repositoryRoot)
    let output = Pipe()
    process.standardOutput = output
    _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
    let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorLog))
    try errorHandle.seekToEnd()
    process.standardError = errorHandle
    try process.run()
    // The first line on standard output names the port.
    var line = Data()
    let reader = output.fileHandleForReading
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline {
      let byte = reader.readData(ofLength: 1)
      if byte.isEmpty { break }
      if byte == Data("\n".utf8) { break }
      line.append(byte)
    }
    let text = String(decoding: line, as: UTF8.self)
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
      process.waitUntilExit()
      throw DaemonFailure("fenced did not start (status \(process.terminationStatus)): \(text)\n\(standardError)")
    }
    self.port = port
  }

  var baseURL: String { "http://127.0.0.1:\(port)" }

  /// What the process wrote to standard error so far.
  var standardError: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }

  var pid: Int32 { process.processIdentifier }

  /// SIGKILL, then waits for the process to be gone.
  func kill() {
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  /// SIGTERM, then waits; returns the exit status.
  @discardableResult
  func terminate() -> Int32 {
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
    return process.terminationStatus
  }

  deinit {
    if process.isRunning {
      Glibc.kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// A fresh directory path in the temporary folder (not created).
  static func temporaryDirectory(_ name: String) -> String {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("fenced-tests-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root.appendingPathComponent("\(name)-\(UUID().uuidString)").path
  }

  /// Runs `fenced` with `arguments` to completion (for usage errors), returning its status and
  /// standard error.
  static func runToExit(_ arguments: [String]) throws -> (status: Int32, standardError: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary("fenced"))
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
    let error = Pipe()
    process.standardError = error
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let data = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}

struct DaemonFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
