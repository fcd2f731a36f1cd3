import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A PostgreSQL server of one test's own (`Scripts/postgres` in a temporary directory), for
/// drills that stop or crash the server: the shared server of `FENCEKIT_POSTGRES_URL` serves
/// the other suites meanwhile. Needs the server binaries (`Scripts/install-deps`); available
/// whenever ``TestPostgres/isAvailable``.
public final class PrivatePostgres: @unchecked Sendable {
  public let directory: String
  public private(set) var port = 0

  /// Starts a new server on a free port.
  public init(repositoryRoot: String) throws {
    self.repositoryRoot = repositoryRoot
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("fencekit-pg-\(UUID().uuidString.prefix(8))").path
    try script(["start", directory])
    guard let text = try? String(contentsOfFile: directory + "/port", encoding: .utf8),
      let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw TestPostgresError("the private PostgreSQL server wrote no port") }
    self.port = port
  }

  let repositoryRoot: String

  /// The URL of its database `fencekit`.
  public var url: String { "postgres://postgres@127.0.0.1:\(port)/fencekit" }

  /// Stops it as a crash does (no checkpoint: the next start replays the write-ahead log).
  public func crash() throws { try script(["crash", directory]) }

  /// Starts it again on the same port.
  public func start() throws { try script(["start", directory, String(port)]) }

  /// The last `lines` lines of the server's log (for a drill's diagnostics).
  public func logTail(lines: Int) -> String {
    let text = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
    return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
  }

  /// Stops it and removes its directory and the scripts' log beside it.
  public func remove() {
    try? script(["stop", directory])
    try? FileManager.default.removeItem(atPath: directory)
    try? FileManager.default.removeItem(atPath: scriptLog)
  }

  /// Where ``script(_:)`` writes: beside the directory, which the script makes.
  private var scriptLog: String { directory + ".script.log" }

  /// Runs `Scripts/postgres` with its output in a file, through `posix_spawn` and `waitpid`:
  /// Foundation's `Process` never saw the script end once it had started a server (the server
  /// outlives it), and a pipe would be inherited by the server.
  private func script(_ arguments: [String]) throws {
    let log = scriptLog
    let argv = ["/bin/bash", repositoryRoot + "/Scripts/postgres"] + arguments
    var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for pointer in cArguments { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw TestPostgresError("cannot run Scripts/postgres: error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    // Exited normally with status 0 (the wait status's low 7 bits are the signal, 0 for none).
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
      throw TestPostgresError(
        "Scripts/postgres \(arguments.joined(separator: " ")): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
  }
}
