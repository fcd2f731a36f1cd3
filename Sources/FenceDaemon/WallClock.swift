import FenceEngine
import FenceStore
import Foundation
import Logging
import ServiceLifecycle

/// With `--clock wall`: once a second, when a dwell timer or a zone clock change (a schedule window
/// or a lifetime ending, rules v2) is due by the wall clock, advances the
/// engine to the wall clock as a durable command (so it fires within a second of its
/// deadline). Advancing when nothing is due would change nothing but the log's size, so it is
/// not done.
struct WallClock: Service {
  let store: FenceStore
  let logger: Logger
  let metrics: DaemonMetrics

  func run() async throws {
    while !Task.isShuttingDownGracefully, !Task.isCancelled {
      try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
      let now = Timestamp(secondsSinceEpoch: Date().timeIntervalSince1970)
      guard let due = store.nextTimerDeadline, due <= now else { continue }
      do {
        let start = ContinuousClock.now
        if let answer = try await store.execute(.advance(now)) {
          metrics.record(answer, duration: ContinuousClock.now - start)
        }
      } catch {
        logger.error("wall-clock advance failed", metadata: ["error": "\(error)"])
      }
    }
  }
}
