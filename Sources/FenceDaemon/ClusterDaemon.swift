import AsyncHTTPClient
import FenceEngine
import FenceFormats
import FenceStore
import FenceStorePostgres
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `fenced` scaled out on PostgreSQL (`fenced serve --postgres URL --partitions P`; spec
/// `fenced.md`, "Scale-out"; decision 0010): one of several processes sharing one fleet.
///
/// Any process accepts any request: a command is split by partition into the partitions'
/// inboxes (``FenceStorePostgres/PartitionInbox``) and answered once durable there (with
/// `?wait=events`, once executed). The process's ``FenceStorePostgres/PartitionOwner`` owns a
/// fair share of the partitions and executes their inboxes; events are read from every
/// partition at once (``FenceStorePostgres/PartitionedEventLog``) behind a `Fence-Cursor`;
/// each owner delivers its partitions' events to the webhooks.
public final class ClusterDaemon: Sendable {
  public let settings: DaemonSettings
  public let owner: PartitionOwner
  let inboxes: [PartitionInbox]
  let nextInbox = LockedValue(0)
  let eventLog: PartitionedEventLog
  let logger: Logger
  let metrics: DaemonMetrics
  let state = DaemonState()

  private init(
    settings: DaemonSettings, owner: PartitionOwner, inboxes: [PartitionInbox],
    eventLog: PartitionedEventLog, logger: Logger, metrics: DaemonMetrics
  ) {
    self.metrics = metrics
    self.settings = settings
    self.owner = owner
    self.inboxes = inboxes
    self.eventLog = eventLog
    self.logger = logger
  }

  /// Connects, migrates the schema, creates the partitioning when the database has none, and
  /// submits the zone files' zones as a replacement (a no-op in every partition that already
  /// holds them). Nothing is written when a zone file does not load.
  public static func open(_ settings: DaemonSettings, logger: Logger) throws -> ClusterDaemon {
    guard let postgres = settings.postgres, let partitions = settings.partitions else {
      throw FenceDaemon.StartError(description: "a scaled-out fenced needs --postgres and --partitions", exitCode: 2)
    }
    var zones: [Zone]?
    if !settings.zoneFiles.isEmpty {
      do {
        zones = try ZoneLoader.loadZones(contentsOf: settings.zoneFiles, options: settings.zoneLoadOptions)
      } catch {
        throw FenceDaemon.StartError(description: "\(error)", exitCode: 1)
      }
    }
    do {
      // A database holding one process's store (partition 0, no partitioning) is not taken
      // over: its devices would land in other partitions.
      let probe = try PostgresStorage(settings: postgres, partition: 0, logger: logger)
      let existing = try probe.partitionCount()
      let singleCommands = try probe.head().commandSeq
      try? probe.close()
      if existing == nil, singleCommands > 0 {
        throw FenceDaemon.StartError(
          description:
            "\(postgres.redacted): the database holds a single-process store (\(singleCommands) commands); scale out into a new database",
          exitCode: 2)
      }
      // The owners' commands count in this process's metrics, as in one process.
      let metrics = DaemonMetrics()
      let owner = try PartitionOwner(
        settings: postgres, partitions: partitions, configuration: settings.engine,
        storeOptions: settings.store,
        options: PartitionOwner.Options(leaseSeconds: settings.leaseSeconds), logger: logger,
        onExecuted: { answer, duration in metrics.record(answer, duration: duration) })
      let inboxes = try (0..<4).map { _ in
        try PartitionInbox(settings: postgres, partitions: partitions, logger: logger)
      }
      let eventLog = try PartitionedEventLog(settings: postgres, partitions: partitions, logger: logger)
      if let zones {
        let receipt = try inboxes[0].submit(.replaceAllZones(zones))
        logger.notice(
          "zone files submitted to every partition",
          metadata: [
            "files": "\(settings.zoneFiles.joined(separator: ","))", "zones": "\(zones.count)",
            "inboxSeq": "\(receipt.parts.first?.seq ?? 0)",
          ])
      }
      logger.notice(
        "scaled-out store opened",
        metadata: [
          "store": "\(postgres.redacted)", "partitions": "\(owner.partitioning.count)",
          "owner": "\(owner.name)", "leaseSeconds": "\(settings.leaseSeconds)",
        ])
      return ClusterDaemon(
        settings: settings, owner: owner, inboxes: inboxes, eventLog: eventLog, logger: logger,
        metrics: metrics)
    } catch let error as StoreError {
      if case .invalidCommand(let reason) = error {
        throw FenceDaemon.StartError(description: "\(postgres.redacted): \(reason)", exitCode: 2)
      }
      throw FenceDaemon.StartError(description: "\(postgres.redacted): \(error)", exitCode: 1)
    }
  }

  /// An inbox connection, taken in turn (each serves one submit at a time).
  var inbox: PartitionInbox {
    let index = nextInbox.withLock { next in
      defer { next = (next + 1) % inboxes.count }
      return next
    }
    return inboxes[index]
  }

  /// The HTTP router with every route and middleware.
  func makeRouter() -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: ErrorMiddleware(logger: logger))
    router.add(middleware: MetricsMiddleware())
    if let token = settings.token { router.add(middleware: BearerTokenMiddleware(token: token)) }
    ClusterRoutes(daemon: self).register(on: router)
    return router
  }

  /// Starts the owners' loop and serves until SIGTERM or SIGINT; then stops accepting, finishes
  /// the requests in flight, snapshots the owned partitions and releases their leases.
  public func run(
    metricsText: @escaping @Sendable () -> String, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
  ) async throws {
    owner.start()
    let owner = self.owner
    let metrics = self.metrics
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    var services: [any Service] = []
    if !settings.webhooks.isEmpty {
      services.append(
        PartitionWebhooks(
          urls: settings.webhooks, owner: owner, client: client, logger: logger, metrics: metrics))
    }
    let retention = settings.eventRetentionSeconds
    services.append(
      Compaction(logger: logger, interval: settings.compactionIntervalSeconds) {
        let report = try await offloaded { try owner.compact(eventRetention: retention) }
        return [
          "commands": "\(report.store.commands)", "events": "\(report.store.events)",
          "snapshots": "\(report.store.snapshots)", "inboxCommands": "\(report.inboxCommands)",
          "inboxKeys": "\(report.inboxKeys)",
        ]
      })
    logger.notice(
      "serving", metadata: ["listen": "\(settings.host):\(settings.port)", "owner": "\(owner.name)"])
    var failure: (any Error)?
    do {
      try await DaemonServer.serve(
        router: makeRouter(), settings: settings, logger: logger, metricsText: metricsText,
        refreshMetrics: { Self.refreshMetrics(metrics, from: owner) }, onListening: onListening,
        services: services)
    } catch {
      failure = error
    }
    state.stopServing()
    try? await client.shutdown()
    owner.stop()
    for inbox in inboxes { inbox.close() }
    eventLog.close()
    if let failure { throw failure }
    logger.notice("stopped", metadata: ["owner": "\(owner.name)"])
  }
}

extension ClusterDaemon {
  /// Sets the gauges: devices add up over the owned partitions; zones are the same in every
  /// partition.
  static func refreshMetrics(_ metrics: DaemonMetrics, from owner: PartitionOwner) {
    let partitions = owner.ownedPartitions
    metrics.partitionsOwned.record(partitions.count)
    var devices = 0
    for partition in partitions { devices += owner.store(of: partition)?.statistics.devices ?? 0 }
    metrics.devices.record(devices)
    if let statistics = owner.anyStore?.statistics {
      metrics.zones.record(statistics.zones)
      metrics.elements.record(statistics.elements)
    }
  }
}

/// Runs blocking database work on a dispatch thread, off the cooperative pool.
func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
  }
}
