import AsyncHTTPClient
import Foundation
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// One `fenced serve` process on loopback, port 0: started, watched through `/proc`, and
/// stopped with SIGTERM or SIGKILL.
///
/// Standard output and standard error go to files beside the data directory; the first stdout
/// line `fenced listening on 127.0.0.1:PORT` gives the port.
final class FencedProcess: @unchecked Sendable {
  let process = Process()
  let dataDirectory: String
  let arguments: [String]
  let outputPath: String
  let errorPath: String
  let spawnedAt: ContinuousClock.Instant
  private(set) var port = 0
  /// Spawn until the listening line, and until `GET /healthz` first answered 200.
  private(set) var listeningSeconds = 0.0
  private(set) var healthySeconds = 0.0

  /// Starts `fenced serve --data DIR --listen 127.0.0.1:0 ARGUMENTS`.
  init(binary: String, dataDirectory: String, arguments: [String], environment: [String: String] = [:]) throws {
    self.dataDirectory = dataDirectory
    self.arguments = arguments
    outputPath = dataDirectory + ".stdout.log"
    errorPath = dataDirectory + ".stderr.log"
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    process.executableURL = URL(fileURLWithPath: binary)
    // With --postgres the store is in the database: the directory only names the logs.
    let store = arguments.contains("--postgres") ? [] : ["--data", dataDirectory]
    process.arguments = ["serve"] + store + ["--listen", "127.0.0.1:0"] + arguments
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    process.standardInput = FileHandle.nullDevice
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    spawnedAt = ContinuousClock.now
    try process.run()
  }

  var pid: Int32 { process.processIdentifier }
  var baseURL: String { "http://127.0.0.1:\(port)" }
  var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

  /// Waits for the listening line (polling its file every millisecond), then for `/healthz`
  /// to answer 200; both times are measured from the spawn.
  func waitUntilHealthy(client: HTTPClient, timeout: Double = 600) async throws {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while port == 0 {
      if let text = try? String(contentsOfFile: outputPath, encoding: .utf8), let end = text.firstIndex(of: "\n") {
        let line = text[..<end]
        guard line.hasPrefix("fenced listening on "), let colon = line.lastIndex(of: ":"),
          let port = Int(line[line.index(after: colon)...])
        else { throw LoadFailure("unexpected first line from fenced: \(line)") }
        self.port = port
        listeningSeconds = (ContinuousClock.now - spawnedAt).seconds
        break
      }
      guard process.isRunning else {
        throw LoadFailure("fenced exited with status \(process.terminationStatus) before listening:\n\(standardError.suffix(2000))")
      }
      guard ContinuousClock.now < deadline else { throw LoadFailure("fenced did not listen within \(timeout) s") }
      try await Task.sleep(for: .milliseconds(1))
    }
    while true {
      var request = HTTPClientRequest(url: baseURL + "/healthz")
      request.method = .GET
      if let response = try? await client.execute(request, timeout: .seconds(5)) {
        _ = try? await response.body.collect(upTo: 1 << 16)
        if response.status == .ok {
          healthySeconds = (ContinuousClock.now - spawnedAt).seconds
          return
        }
      }
      guard ContinuousClock.now < deadline else { throw LoadFailure("/healthz did not answer 200 within \(timeout) s") }
      try await Task.sleep(for: .milliseconds(1))
    }
  }

  /// Peak and current resident set size in MiB (`VmHWM`, `VmRSS` of `/proc/PID/status`).
  func memory() -> (peakMiB: Double, currentMiB: Double) {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
    func kib(_ key: String) -> Double {
      guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return 0 }
      let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      return words.count > 1 ? Double(words[1]) ?? 0 : 0
    }
    return (kib("VmHWM") / 1024, kib("VmRSS") / 1024)
  }

  /// CPU seconds the process used so far (user, system), from `/proc/PID/stat`.
  func cpuSeconds() -> (user: Double, system: Double) {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return (0, 0) }
    // Fields after "(comm)": state is field 3, utime 14, stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return (0, 0) }
    return (user / ticks, system / ticks)
  }

  /// The key=value metadata of the first log line containing `message` (swift-log's stream
  /// handler writes `… key=value key=value [module] message`).
  func logMetadata(_ message: String) -> [String: String]? {
    guard let line = standardError.split(separator: "\n").first(where: { $0.hasSuffix(message) }) else {
      return nil
    }
    var result: [String: String] = [:]
    for word in line.split(separator: " ") {
      guard let equals = word.firstIndex(of: "=") else { continue }
      result[String(word[..<equals])] = String(word[word.index(after: equals)...])
    }
    return result
  }

  /// SIGKILL, then waits until the process is gone.
  func kill9() {
    if process.isRunning { kill(pid, SIGKILL) }
    process.waitUntilExit()
  }

  /// SIGTERM (snapshot, clean stop), then waits; returns the exit status.
  @discardableResult
  func terminate() -> Int32 {
    if process.isRunning { kill(pid, SIGTERM) }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Removes the data directory and the logs.
  func removeFiles() {
    try? FileManager.default.removeItem(atPath: dataDirectory)
    try? FileManager.default.removeItem(atPath: outputPath)
    try? FileManager.default.removeItem(atPath: errorPath)
  }

  /// Bytes of the store's files (database and write-ahead log).
  func storeBytes() -> (database: Int, wal: Int) {
    func size(_ name: String) -> Int {
      let path = (dataDirectory as NSString).appendingPathComponent(name)
      return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
    return (size("fence.sqlite"), size("fence.sqlite-wal"))
  }

  deinit {
    if process.isRunning {
      kill(pid, SIGKILL)
      process.waitUntilExit()
    }
  }
}

/// Reads a gauge or counter from `/metrics` (Prometheus text), `nil` when absent.
func metricValue(_ name: String, client: HTTPClient, baseURL: String) async throws -> Double? {
  var request = HTTPClientRequest(url: baseURL + "/metrics")
  request.method = .GET
  let response = try await client.execute(request, timeout: .seconds(30))
  let body = String(buffer: try await response.body.collect(upTo: 16 << 20))
  for line in body.split(separator: "\n") where line.hasPrefix(name + " ") {
    return Double(line.split(separator: " ").last ?? "")
  }
  return nil
}
