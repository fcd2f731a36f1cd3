import Foundation

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
  let path: String

  init() throws {
    path = NSTemporaryDirectory() + "fenceformats-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// Writes a text file and returns its path.
  func write(_ name: String, _ text: String) throws -> String {
    let file = path + "/" + name
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }

  /// Reads a text file.
  func read(_ name: String) throws -> String {
    try String(contentsOfFile: path + "/" + name, encoding: .utf8)
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// A tool that could not be started.
struct SpawnError: Error {
  var tool: String
  var code: Int32
}

/// Runs a command line tool (with an empty environment) and waits; returns its exit status.
///
/// Through `posix_spawn` rather than Foundation's `Process`, which leaks a weak-reference side
/// table per run that LeakSanitizer reports under `--sanitize=address`.
@discardableResult
func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
  let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
  defer { for argument in argv { free(argument) } }
  var environment: [UnsafeMutablePointer<CChar>?] = [nil]
  var pid = pid_t()
  let code = posix_spawn(&pid, tool, nil, nil, argv, &environment)
  guard code == 0 else { throw SpawnError(tool: tool, code: code) }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
  return (status >> 8) & 0xFF
}
