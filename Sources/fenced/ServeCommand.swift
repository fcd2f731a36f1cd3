import ArgumentParser
import FenceCommandLine
import FenceDaemon
import FenceEngine
import FenceFormats
import FenceStore
import FenceStorePostgres
import Foundation
import Logging
import Metrics
import Prometheus

/// `fenced serve`: recovers the store in `--data`, loads `--zones`, and serves HTTP.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Recovers the store and serves the HTTP API until SIGTERM or SIGINT.",
    discussion: """
      Exit status: 0 after a clean stop (a snapshot is written), 1 on bad input (a zone file \
      that does not load, an unusable data directory or store), 2 on bad usage.
      """)

  @Option(help: ArgumentHelp("The store's directory (SQLite, WAL); created when missing. Not needed with --postgres.", valueName: "dir"))
  var data: String?

  @Option(help: ArgumentHelp("Keep the store in this PostgreSQL database instead of --data (postgres://user[:password]@host[:port]/database); the schema is created or migrated on start.", valueName: "url"))
  var postgres: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("With --postgres: scale out over this many device partitions, shared by every fenced started on the same database (fixed when the database is first used).", valueName: "P"))
  var partitions: Int32?

  @Option(parsing: .unconditional, help: ArgumentHelp("With --partitions: how long a partition's lease lasts without renewal (a dead process's partitions move to the others after this).", valueName: "seconds"))
  var leaseSeconds: Double = 5

  @Option(name: .customLong("zones"), help: ArgumentHelp("Make the zone set exactly these GeoJSON files (repeat for more).", valueName: "file"))
  var zoneFiles: [String] = []

  @OptionGroup(title: "Zone files")
  var zoneOptions: ZoneFileOptions

  @Option(help: ArgumentHelp("Where to listen.", valueName: "host:port"))
  var listen = "127.0.0.1:7070"

  @OptionGroup(title: "Engine")
  var engine: EngineOptions

  @Option(help: "Where the engine's time comes from: fixes (and POST /v1/advance), or also the wall clock.")
  var clock: DaemonSettings.Clock = .fixes

  @Option(help: ArgumentHelp("POST events to this URL as NDJSON, at least once (repeat for more).", valueName: "url"))
  var webhook: [String] = []

  @Option(help: ArgumentHelp("A file holding the bearer token every /v1 request must carry.", valueName: "file"))
  var tokenFile: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("The largest request body, after decompression.", valueName: "bytes"))
  var maxBody: Int = 64 << 20

  @Option(parsing: .unconditional, help: ArgumentHelp("A request body must arrive within this time (slower clients get 408).", valueName: "seconds"))
  var bodyTimeout: Double = 60

  @Option(parsing: .unconditional, help: ArgumentHelp("Write a snapshot after this many commands (later while snapshots take over 0.25 s: not before the commands since took as long as the last snapshot).", valueName: "N"))
  var snapshotEvery: Int = 500

  @Option(help: "full: sync every commit to disk (survives power loss); normal: survives a killed process only.")
  var durability: SQLiteStorage.Durability = .full

  @Option(help: "sqlite: the durable store in --data; memory: nothing is kept (for measuring what durability costs).")
  var storage: DaemonSettings.Storage = .sqlite

  @Option(parsing: .unconditional, help: ArgumentHelp("Keep delivered events at least this long before compaction drops them.", valueName: "seconds"))
  var eventRetention: Double = 7 * 24 * 3600

  @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
  var logLevel: String = "info"

  @Flag(help: "Stop (as on SIGTERM) when standard input reaches its end: started by a parent that keeps a pipe open, the daemon stops when the parent dies, however it dies.")
  var stopWhenStdinCloses = false

  func validate() throws {
    if let postgres {
      do {
        _ = try PostgresSettings(url: postgres)
      } catch {
        throw ValidationError("--postgres: \(error)")
      }
      guard storage == .sqlite else {
        throw ValidationError("--storage memory and --postgres exclude each other.")
      }
      guard data == nil else {
        throw ValidationError("--data and --postgres exclude each other: the store is in one place.")
      }
      if let partitions {
        guard (1...65_536).contains(partitions) else {
          throw ValidationError("--partitions must be from 1 to 65536.")
        }
        guard clock == .fixes else {
          throw ValidationError("--clock wall and --partitions exclude each other: advance a scaled-out store with POST /v1/advance.")
        }
      }
      guard leaseSeconds >= 0.5, leaseSeconds <= 600 else {
        throw ValidationError("--lease-seconds must be from 0.5 to 600.")
      }
    } else if data == nil {
      throw ValidationError("Give --data DIR (SQLite) or --postgres URL: where the store is kept.")
    }
    if postgres == nil, partitions != nil {
      throw ValidationError("--partitions needs --postgres: only a PostgreSQL store is shared by several processes.")
    }
    guard hostAndPort != nil else {
      throw ValidationError("--listen must be host:port with a port from 0 to 65535, for example 127.0.0.1:7070.")
    }
    guard bodyTimeout > 0, bodyTimeout <= 3600 else {
      throw ValidationError("--body-timeout must be from above 0 to 3600 seconds.")
    }
    guard maxBody >= 1024 else { throw ValidationError("--max-body must be at least 1024 bytes.") }
    guard snapshotEvery >= 1 else { throw ValidationError("--snapshot-every must be at least 1.") }
    guard eventRetention >= 0, eventRetention.isFinite else {
      throw ValidationError("--event-retention must be 0 or more seconds.")
    }
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
    }
    for url in webhook {
      guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil else {
        throw ValidationError("--webhook must be an http:// or https:// URL, got \(url).")
      }
    }
  }

  var hostAndPort: (host: String, port: Int)? {
    guard let colon = listen.lastIndex(of: ":") else { return nil }
    let host = String(listen[..<colon])
    guard !host.isEmpty, let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
      return nil
    }
    return (host, port)
  }

  /// The settings the options describe (`validate()` has passed).
  func settings(token: String?) -> DaemonSettings {
    var settings = DaemonSettings(dataDirectory: data ?? "")
    settings.postgres = postgres.flatMap { try? PostgresSettings(url: $0) }
    settings.zoneFiles = zoneFiles
    settings.zoneLoadOptions = zoneOptions.loadOptions
    settings.host = hostAndPort!.host
    settings.port = hostAndPort!.port
    settings.engine = engine.configuration()
    settings.clock = clock
    settings.webhooks = webhook
    settings.token = token
    settings.maximumBodyBytes = maxBody
    settings.bodyTimeoutSeconds = bodyTimeout
    settings.store = FenceStore.Options(snapshotEvery: snapshotEvery)
    settings.durability = durability
    settings.storage = storage
    settings.eventRetentionSeconds = eventRetention
    settings.partitions = partitions
    settings.leaseSeconds = leaseSeconds
    return settings
  }

  func run() async throws {
    var token: String?
    if let tokenFile {
      guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
        printError("fenced: cannot read the token file \(tokenFile)")
        throw ExitCode(1)
      }
      token = text.trimmingCharacters(in: .whitespacesAndNewlines)
      guard token?.isEmpty == false else {
        printError("fenced: the token file \(tokenFile) is empty")
        throw ExitCode(1)
      }
    }
    if stopWhenStdinCloses { Self.stopWhenStandardInputCloses() }
    let level = Logger.Level(rawValue: logLevel) ?? .info
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    let logger = Logger(label: "fenced")
    let host = hostAndPort!.host
    let onListening: @Sendable (Int) async -> Void = { port in
      // One line on standard output, for scripts and tests that start on port 0.
      FileHandle.standardOutput.write(Data("fenced listening on \(host):\(port)\n".utf8))
    }
    do {
      if partitions != nil {
        let daemon = try ClusterDaemon.open(settings(token: token), logger: logger)
        try await daemon.run(metricsText: { registry.emitToString() }, onListening: onListening)
      } else {
        let daemon = try FenceDaemon.open(settings(token: token), logger: logger)
        try await daemon.run(metricsText: { registry.emitToString() }, onListening: onListening)
      }
    } catch let error as FenceDaemon.StartError {
      printError("fenced: \(error.description)")
      throw ExitCode(error.exitCode)
    }
  }

  func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}

extension DaemonSettings.Clock: ExpressibleByArgument {}
extension SQLiteStorage.Durability: ExpressibleByArgument {}
extension DaemonSettings.Storage: ExpressibleByArgument {}

extension ServeCommand {
  /// Reads standard input on a thread of its own until its end, then sends this process
  /// SIGTERM: the graceful stop (or, before the signal handlers are installed, the default
  /// action, which ends the process). What is read is thrown away.
  static func stopWhenStandardInputCloses() {
    let thread = Thread {
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count > 0 { continue }
        if count < 0 && errno == EINTR { continue }
        break
      }
      kill(getpid(), SIGTERM)
    }
    thread.name = "fenced stdin watch"
    thread.start()
  }
}
