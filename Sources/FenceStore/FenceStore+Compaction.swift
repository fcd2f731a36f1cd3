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
  /// Writes a snapshot first when commands came after the latest one (off the lock, after one
  /// in flight), so that the log can shrink to what came after it. Commands go on meanwhile;
  /// what they add stays.
  @discardableResult
  public func compact(eventRetention: TimeInterval, now: Date = Date()) throws -> CompactionReport {
    try snapshotQueue.sync {
      let needsSnapshot = try engine.withLock { state in
        guard !state.isClosed else { throw StoreError.closed }
        return state.commandsSinceSnapshot > 0 || state.lastSnapshot == nil
      }
      if needsSnapshot { try snapshotNow() }
      // On the snapshot queue no other snapshot is written: the latest is the one recorded.
      guard let snapshot = engine.withLock({ $0.lastSnapshot }) else {
        throw StoreError.storageFailed("no snapshot to compact the log to")
      }
      var eventsThrough = snapshot.eventSeq
      for (_, seq) in try storage.cursors() { eventsThrough = min(eventsThrough, seq) }
      return try storage.compact(
        CompactionPlan(
          commandsThrough: snapshot.commandSeq, eventsThrough: eventsThrough,
          recordedBefore: now.addingTimeInterval(-eventRetention)))
    }
  }
}
