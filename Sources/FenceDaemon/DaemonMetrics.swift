import FenceEngine
import FenceStore
import Foundation
import Metrics

/// The daemon's metrics, through swift-metrics (exported by swift-prometheus on `/metrics`).
///
/// Counters move as commands commit; gauges are set from the store's counts when `/metrics` is
/// read, so they cost nothing per fix.
struct DaemonMetrics: Sendable {
  let acceptedFixes = Counter(label: "fenced_fixes_accepted_total")
  let rejectedFixes: [RejectionReason: Counter] = Dictionary(
    uniqueKeysWithValues: RejectionReason.allCases.map {
      ($0, Counter(label: "fenced_fixes_rejected_total", dimensions: [("reason", $0.rawValue)]))
    })
  let events: [ZoneEvent.Kind: Counter] = Dictionary(
    uniqueKeysWithValues: ZoneEvent.Kind.allCases.map {
      ($0, Counter(label: "fenced_events_total", dimensions: [("kind", $0.rawValue)]))
    })
  let commitDuration = Metrics.Timer(label: "fenced_commit_duration_seconds", preferredDisplayUnit: .seconds)
  let batchesRefused = Counter(label: "fenced_requests_refused_total")
  let devices = Gauge(label: "fenced_devices")
  let zones = Gauge(label: "fenced_zones")
  let elements = Gauge(label: "fenced_fences")
  let eventLogHead = Gauge(label: "fenced_event_log_head")
  let commandLogHead = Gauge(label: "fenced_command_log_head")
  let lastSnapshotAge = Gauge(label: "fenced_last_snapshot_age_seconds")
  let commandsSinceSnapshot = Gauge(label: "fenced_commands_since_snapshot")
  let lastSnapshotDuration = Gauge(label: "fenced_last_snapshot_duration_seconds")

  /// The partitions this process owns (the scaled-out `fenced`).
  let partitionsOwned = Gauge(label: "fenced_partitions_owned")

  func webhookLag(_ url: String) -> Gauge {
    Gauge(label: "fenced_webhook_lag_events", dimensions: [("url", url)])
  }

  /// Counts one committed command's answer.
  func record(_ answer: CommandAnswer, duration: Duration) {
    commitDuration.recordNanoseconds(
      duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    guard !answer.isReplay else { return }
    if answer.accepted > 0 { acceptedFixes.increment(by: Int64(answer.accepted)) }
    for reason in RejectionReason.allCases where answer.rejected[reason] > 0 {
      rejectedFixes[reason]?.increment(by: Int64(answer.rejected[reason]))
    }
    for (kind, count) in answer.eventsByKind where count > 0 {
      events[kind]?.increment(by: Int64(count))
    }
  }

  /// Sets the gauges from the store's counts (on every scrape).
  func refresh(from statistics: FenceStore.Statistics, now: Date = Date()) {
    devices.record(statistics.devices)
    zones.record(statistics.zones)
    elements.record(statistics.elements)
    eventLogHead.record(statistics.eventSeq)
    commandLogHead.record(statistics.commandSeq)
    commandsSinceSnapshot.record(statistics.commandsSinceSnapshot)
    lastSnapshotDuration.record(statistics.lastSnapshotSeconds)
    if let at = statistics.lastSnapshotAt {
      lastSnapshotAge.record(now.timeIntervalSince(at))
    } else {
      lastSnapshotAge.record(-1)
    }
  }
}
