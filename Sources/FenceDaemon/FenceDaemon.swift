import AsyncHTTPClient
import FenceEngine
import FenceFormats
import FenceGEOS
import FenceStore
import FenceStorePostgres
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// The reference daemon: a ``FenceStore/FenceStore`` served over HTTP (spec `fenced.md`).
///
/// ``open(_:logger:)`` recovers the store and makes the zone set that of the zone files;
/// ``run()`` serves until SIGTERM or SIGINT, then stops accepting, finishes the requests in
/// flight, writes a snapshot and returns.
public final class FenceDaemon: Sendable {
  public let settings: DaemonSettings
  public let store: FenceStore
  let logger: Logger
  let metrics = DaemonMetrics()
  let state = DaemonState()

  /// A start-up failure, with the exit status `fenced` uses for it.
  public struct StartError: Error, CustomStringConvertible {
    public var description: String
    /// 1: bad input (a zone file, the data directory, the store); 2: bad usage.
    public var exitCode: Int32
  }

  private init(settings: DaemonSettings, store: FenceStore, logger: Logger) {
    self.settings = settings
    self.store = store
    self.logger = logger
  }

  /// Opens and recovers the store and makes its zone set that of the zone files: replaced by
  /// the files' zones when they differ. Nothing is written when a zone file does not load.
  ///
  /// The files are not read at all when the store notes that its zones are what files with the
  /// same digest (contents, load options, GEOS version) loaded to, and have not changed since:
  /// with a large zone set, loading and repairing the files is most of a restart.
  public static func open(_ settings: DaemonSettings, logger: Logger) throws -> FenceDaemon {
    let digest = zoneFilesDigest(settings)
    var store: FenceStore?
    if let digest,
      settings.postgres != nil
        || (settings.storage == .sqlite
          && FileManager.default.fileExists(
            atPath: SQLiteStorage.databasePath(in: settings.dataDirectory)))
    {
      let opened = try openStore(settings, logger: logger)
      store = opened
      if (try? opened.holdsZoneSource(digest: digest)) == true {
        logger.info(
          "the store already holds the zone files' zones (files unchanged; not read)",
          metadata: ["files": "\(settings.zoneFiles.joined(separator: ","))"])
        return FenceDaemon(settings: settings, store: opened, logger: logger)
      }
    }
    var fileZones: [Zone]?
    if !settings.zoneFiles.isEmpty {
      do {
        fileZones = try ZoneLoader.loadZones(contentsOf: settings.zoneFiles, options: settings.zoneLoadOptions)
      } catch {
        try? store?.close()
        throw StartError(description: "\(error)", exitCode: 1)
      }
    }
    let opened = try store ?? openStore(settings, logger: logger)
    if let fileZones {
      let sorted = fileZones.sorted { $0.id < $1.id }
      if sorted != opened.zones {
        do {
          let answer = try opened.execute(.replaceAllZones(fileZones))
          logger.notice(
            "zones replaced by the zone files",
            metadata: [
              "files": "\(settings.zoneFiles.joined(separator: ","))",
              "zones": "\(answer?.zoneCounts?.zones ?? 0)",
              "fences": "\(answer?.zoneCounts?.fences ?? 0)",
              "geolines": "\(answer?.zoneCounts?.geolines ?? 0)",
            ])
        } catch {
          try? opened.close()
          throw StartError(description: "the zone files do not load into the engine: \(error)", exitCode: 1)
        }
      } else {
        logger.info("the store already holds the zone files' zones")
      }
      if let digest {
        do {
          try opened.noteZoneSource(digest: digest)
        } catch {
          // Only the next start's shortcut is lost: it reads the files again.
          logger.warning("could not note the zone files' digest: \(error)")
        }
      }
    }
    return FenceDaemon(settings: settings, store: opened, logger: logger)
  }

  /// Opens and recovers the store, and logs what recovery did.
  private static func openStore(_ settings: DaemonSettings, logger: Logger) throws -> FenceStore {
    let store: FenceStore
    do {
      switch settings.storage {
      case .sqlite where settings.postgres != nil:
        let storage = try PostgresStorage(settings: settings.postgres!, logger: logger)
        if let partitions = try storage.partitionCount() {
          try? storage.close()
          throw StartError(
            description:
              "\(settings.storeLocation): the database holds a store scaled out over \(partitions) partitions; start with --partitions \(partitions)",
            exitCode: 2)
        }
        // A process killed mid-command may still have its last transaction committed by the
        // server: recovery reads after it.
        try storage.waitForEarlierWriters()
        store = try FenceStore(storage: storage, configuration: settings.engine, options: settings.store)
      case .sqlite:
        store = try FenceStore(
          directory: settings.dataDirectory, configuration: settings.engine,
          options: settings.store, durability: settings.durability)
      case .memory:
        store = try FenceStore(
          storage: MemoryStorage(), configuration: settings.engine, options: settings.store)
      }
    } catch let error as StartError {
      throw error
    } catch {
      throw StartError(description: "\(settings.storeLocation): \(error)", exitCode: 1)
    }
    let report = store.recovery
    logger.notice(
      "store recovered",
      metadata: [
        "store": "\(settings.storeLocation)", "new": "\(report.isNew)",
        "snapshot": "\(report.snapshotCommandSeq.map(String.init) ?? "none")",
        "commandsReplayed": "\(report.commandsReplayed)", "fixesReplayed": "\(report.fixesReplayed)",
        "eventsVerified": "\(report.eventsVerified)", "commandSeq": "\(report.commandSeq)",
        "eventSeq": "\(report.eventSeq)", "seconds": "\(String(format: "%.3f", report.seconds))",
      ])
    return store
  }

  /// The digest of the zone files as given: their bytes in order, the load options and the
  /// GEOS version (repair depends on it); `nil` without zone files or when one cannot be read
  /// (loading it then reports why).
  static func zoneFilesDigest(_ settings: DaemonSettings) -> UInt64? {
    guard !settings.zoneFiles.isEmpty else { return nil }
    var hash = ContentHash()
    hash.combine(line: "fenced zone files 1")
    hash.combine(line: (try? GEOSContext())?.version ?? "unknown")
    hash.combine(line: String(describing: settings.zoneLoadOptions))
    for file in settings.zoneFiles {
      guard let data = FileManager.default.contents(atPath: file) else { return nil }
      hash.combine(line: "\(data.count)")
      data.withUnsafeBytes { hash.combine($0) }
    }
    return hash.value
  }

  /// The HTTP router with every route and middleware.
  func makeRouter() -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: ErrorMiddleware(logger: logger))
    router.add(middleware: MetricsMiddleware())
    if let token = settings.token { router.add(middleware: BearerTokenMiddleware(token: token)) }
    DaemonRoutes(store: store, settings: settings, metrics: metrics, logger: logger, state: state)
      .register(on: router)
    return router
  }

  /// Serves until SIGTERM or SIGINT, then writes a snapshot and closes the store.
  ///
  /// - Parameter onListening: called with the bound port once the server accepts connections.
  public func run(
    metricsText: @escaping @Sendable () -> String, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
  ) async throws {
    let store = self.store
    let metrics = self.metrics
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    var services: [any Service] = []
    for url in settings.webhooks {
      services.append(
        WebhookDelivery(url: url, store: store, client: client, logger: logger, metrics: metrics))
    }
    if settings.clock == .wall {
      services.append(WallClock(store: store, logger: logger, metrics: metrics))
    }
    let retention = settings.eventRetentionSeconds
    services.append(
      Compaction(logger: logger, interval: settings.compactionIntervalSeconds) {
        let report = try store.compact(eventRetention: retention)
        return [
          "commands": "\(report.commands)", "events": "\(report.events)",
          "snapshots": "\(report.snapshots)", "idempotencyKeys": "\(report.idempotencyKeys)",
        ]
      })
    logger.notice(
      "serving", metadata: ["listen": "\(settings.host):\(settings.port)", "webhooks": "\(settings.webhooks.count)"])
    do {
      try await DaemonServer.serve(
        router: makeRouter(), settings: settings, logger: logger, metricsText: metricsText,
        refreshMetrics: { metrics.refresh(from: store.statistics) }, onListening: onListening,
        services: services)
    } catch {
      state.stopServing()
      try? await client.shutdown()
      try? store.close()
      throw error
    }
    state.stopServing()
    try await client.shutdown()
    try store.close()
    logger.notice("stopped", metadata: ["commandSeq": "\(store.recovery.commandSeq)"])
  }
}

/// Runs a compaction every interval and logs what it dropped: the store's
/// (``FenceStore/compact(eventRetention:now:)``) in one process, the owned partitions' in a
/// scaled-out one.
struct Compaction: Service {
  let logger: Logger
  let interval: TimeInterval
  /// Compacts once, off the cooperative pool, and returns the log line's figures.
  let compact: @Sendable () async throws -> Logger.Metadata

  func run() async throws {
    while !Task.isShuttingDownGracefully, !Task.isCancelled {
      try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) }
      if Task.isShuttingDownGracefully || Task.isCancelled { break }
      do {
        let figures = try await compact()
        logger.info("compacted", metadata: figures)
      } catch {
        logger.error("compaction failed", metadata: ["error": "\(error)"])
      }
    }
  }
}
