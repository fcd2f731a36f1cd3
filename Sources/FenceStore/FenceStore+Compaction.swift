import Foundation

extension FenceStore {
  /// Drops what no answer needs any more, without changing any answer the store gives:
  ///
  /// - commands up to the latest snapshot, and older snapshots and zone sets (recovery starts
  ///   from the latest snapshot);
  /// - events recorded more than `eventRetention` seconds before `now`, when also at or before
  ///   the latest snapshot and confirmed by every delivery cursor (a webhook that has not
  ///   delivered an event keeps it);
  /// - idempotency keys older than the retention whose command is dropped.
  ///
  /// Writes a snapshot first when commands came after the latest one, so that the log can
  /// shrink to nothing.
  @discardableResult
  public func compact(eventRetention: TimeInterval, now: Date = Date()) throws -> CompactionReport {
    try engine.withLock { state in
      guard !state.isClosed else { throw StoreError.closed }
      if state.commandsSinceSnapshot > 0 || state.lastSnapshot == nil {
        try writeSnapshot(state: &state)
      }
      var eventsThrough = state.eventSeq
      for (_, seq) in try storage.cursors() { eventsThrough = min(eventsThrough, seq) }
      return try storage.compact(
        CompactionPlan(
          commandsThrough: state.commandSeq, eventsThrough: eventsThrough,
          recordedBefore: now.addingTimeInterval(-eventRetention)))
    }
  }
}
