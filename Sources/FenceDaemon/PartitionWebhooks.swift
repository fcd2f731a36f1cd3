import AsyncHTTPClient
import FenceEngine
import FenceStore
import FenceStorePostgres
import Foundation
import Logging
import ServiceLifecycle

/// Webhook delivery in the scaled-out `fenced`: for every URL and every partition this process
/// owns, a ``WebhookDelivery`` of that partition's events, from the partition's durable cursor.
///
/// A partition that moves to another process stops its delivery here (its store closes) and
/// starts there from the cursor the last owner committed: events after it may be delivered
/// twice, none is skipped (at least once across failovers, as within one process). A cursor
/// write under a lost lease fails like any write of the partition.
struct PartitionWebhooks: Service {
  let urls: [String]
  let owner: PartitionOwner
  let client: HTTPClient
  let logger: Logger
  let metrics: DaemonMetrics

  struct Delivery: Hashable, Sendable {
    var url: String
    var partition: Int32
  }

  func run() async throws {
    let running = LockedValue(Set<Delivery>())
    await withDiscardingTaskGroup { group in
      while !Task.isShuttingDownGracefully, !Task.isCancelled {
        for partition in owner.ownedPartitions {
          guard let store = owner.store(of: partition) else { continue }
          for url in urls {
            let delivery = Delivery(url: url, partition: partition)
            guard running.withLock({ $0.insert(delivery).inserted }) else { continue }
            group.addTask {
              let service = WebhookDelivery(
                url: url, store: store, partition: partition, client: client, logger: logger,
                metrics: metrics)
              do {
                try await service.run()
              } catch {
                logger.info(
                  "webhook delivery of a partition stops",
                  metadata: ["url": "\(url)", "partition": "\(partition)", "reason": "\(error)"])
              }
              running.withLock { _ = $0.remove(delivery) }
            }
          }
        }
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(500)) }
      }
    }
  }
}
