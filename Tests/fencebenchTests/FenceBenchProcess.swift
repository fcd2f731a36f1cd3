import FenceTestSupport
import Foundation

/// Runs the built `fencebench` binary and captures what it prints, as argument-parser's
/// `AssertExecuteCommand` does.
///
/// The binary is the one beside the test bundle in the build products folder (SwiftPM builds
/// it for `swift test`: `fencebenchTests` depends on the `fencebench` target), or the one the
/// `FENCEBENCH` environment variable names.
struct FenceBenchProcess {
  struct Result {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  static var binaryPath: String {
    if let path = ProcessInfo.processInfo.environment["FENCEBENCH"] { return path }
    let bundle = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    var directory = bundle.resolvingSymlinksInPath().deletingLastPathComponent()
    // On Darwin the test bundle is a directory (X.xctest/Contents/MacOS/X).
    while directory.pathComponents.count > 1,
      !FileManager.default.fileExists(atPath: directory.appendingPathComponent("fencebench").path)
    {
      if directory.lastPathComponent == "debug" || directory.lastPathComponent == "release" { break }
      directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("fencebench").path
  }

  /// Runs `fencebench` with `arguments` in the repository's root folder and waits.
  static func run(_ arguments: [String]) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binaryPath)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Read both pipes before waiting, so a full pipe cannot block the child.
    let errorData = LockedData()
    let errorReader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
    errorReader.start()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errorData.isSet { usleep(1000) }
    return Result(
      status: process.terminationStatus,
      standardOutput: String(decoding: outputData, as: UTF8.self),
      standardError: String(decoding: errorData.value, as: UTF8.self))
  }

  /// The repository's root folder (where `Fixtures/` is).
  static var repositoryRoot: String {
    String(fixturePath("").dropLast("/Fixtures/".count))
  }

  /// A fresh path in this test run's folder of the temporary folder.
  static func temporaryPath(_ name: String) -> String {
    URL(fileURLWithPath: runFolder).appendingPathComponent("\(UUID().uuidString)-\(name)").path
  }

  /// The prefix of a test run's folder; the process id follows it.
  static let folderPrefix = "fencebench-tests-"

  /// This run's folder, made on first use, after the folders of earlier runs whose process has
  /// ended are removed: the tests share the folder while they run, so none of them can remove
  /// it, and each run would otherwise leave one behind.
  static let runFolder: String = {
    let parent = FileManager.default.temporaryDirectory
    removeFoldersOfEndedRuns(in: parent.path)
    let folder = parent.appendingPathComponent(
      "\(folderPrefix)\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.path
  }()

  /// Removes the folders in `parent` named ``folderPrefix`` and the id of a process that no
  /// longer runs; returns their names. Other names, and folders of running processes, stay.
  @discardableResult
  static func removeFoldersOfEndedRuns(in parent: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
    var removed: [String] = []
    for name in names.sorted() where name.hasPrefix(folderPrefix) {
      guard let pid = pid_t(name.dropFirst(folderPrefix.count)), pid > 0 else { continue }
      // Signal 0 asks only whether the process exists (EPERM: it does, under another user).
      if kill(pid, 0) == 0 || errno == EPERM { continue }
      if (try? FileManager.default.removeItem(atPath: parent + "/" + name)) != nil {
        removed.append(name)
      }
    }
    return removed
  }
}

/// Bytes handed from a reader thread to the test thread.
final class LockedData: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()
  private var done = false

  func set(_ value: Data) {
    lock.lock()
    data = value
    done = true
    lock.unlock()
  }

  var isSet: Bool {
    lock.lock()
    defer { lock.unlock() }
    return done
  }

  var value: Data {
    lock.lock()
    defer { lock.unlock() }
    return data
  }
}
