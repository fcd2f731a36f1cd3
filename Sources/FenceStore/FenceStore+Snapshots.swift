import FenceEngine
import Foundation

/// Snapshots, made and written off the store's lock.
///
/// A snapshot is taken under the lock in O(1) (``EngineState/captureSnapshot()``: a copy of
/// the evaluator that shares its tables, and the log's position), then encoded and written
/// without the lock, while commands go on, and its results (the zone set it made, when it was
/// taken) are put back under the lock (``EngineState/install(_:_:)``). With a million zones a
/// snapshot takes about a second to make and write; under the lock, every request waited for
/// it. Snapshots run one at a time, in order, on ``FenceStore/snapshotQueue``: the ones due
/// after commands in the background (``FenceStore/Options/writesSnapshotsInBackground``), the
/// ones asked for (``FenceStore/snapshot()``, ``FenceStore/compact(eventRetention:now:)``,
/// ``FenceStore/close()``) by their caller, after any in flight.
extension FenceStore {
  /// What a snapshot is made from, taken under the lock.
  struct SnapshotCapture: Sendable {
    /// A copy of the evaluator at ``commandSeq``; released under the lock when done.
    let source: ZoneEvaluator.SnapshotSource
    let commandSeq: Int64
    let eventSeq: Int64
    /// The last zone set made, and the zones changed since (see ``EngineState/zoneChanges``).
    let zoneSetBase: (bytes: [UInt8], hash: UInt64)?
    let zoneChanges: Set<String>?
    /// The zones' order of the last snapshot; left as this snapshot used it.
    var zoneOrder: ZoneEvaluator.SnapshotZoneOrder?
    /// The state it came from (``EngineState/lineage``), and its number among the captures of
    /// that state (``EngineState/snapshotsTaken``).
    let lineage: Int
    let number: Int
    /// The commands and their time counted since the last snapshot, which this one covers.
    let commands: Int
    let commandSeconds: Double
  }

  /// What making and writing a snapshot gave.
  struct SnapshotOutcome {
    /// The zone set made, with its hash (`nil` when there was no copy to make it from).
    var zoneSet: (bytes: [UInt8], hash: UInt64)?
    var takenAt = Date()
    var seconds = 0.0
    var failure: (any Error)?
  }

  /// Counts the time of the command(s) started at `commandStarted` and, when ``SnapshotPacing``
  /// says a snapshot is due and none is in flight, starts one: in the background, or here
  /// under the lock when ``Options/writesSnapshotsInBackground`` is off. A failed snapshot loses
  /// nothing (the log still holds every command): it is retried after the next command.
  func snapshotIfDue(commandStarted started: UInt64, state: inout EngineState) {
    state.commandSecondsSinceSnapshot +=
      Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9
    let pacing = SnapshotPacing(
      every: options.snapshotEvery, slowSnapshotSeconds: options.slowSnapshotSeconds)
    guard
      !state.isSnapshotInFlight,
      pacing.isDue(
        commands: state.commandsSinceSnapshot, commandSeconds: state.commandSecondsSinceSnapshot,
        lastSnapshotSeconds: state.lastSnapshotSeconds)
    else { return }
    guard options.writesSnapshotsInBackground else {
      var capture = state.captureSnapshot()
      let outcome = makeAndWrite(&capture)
      state.install(capture, outcome)
      return
    }
    let taken = state.captureSnapshot()
    snapshotQueue.async {
      var capture = taken
      let outcome = self.makeAndWrite(&capture)
      self.engine.withLock { $0.install(capture, outcome) }
    }
  }

  /// Writes a snapshot now (recovery then replays only what comes after it), after the one
  /// being written in the background, if any.
  ///
  /// - Throws: ``StoreError/closed``; what the storage throws.
  public func snapshot() throws {
    try snapshotQueue.sync {
      guard !engine.withLock({ $0.isClosed }) else { throw StoreError.closed }
      try snapshotNow()
    }
  }

  /// Returns once the snapshot being written in the background, if any, is written (or has
  /// failed). For tests and tools that look at the storage right after a command.
  public func waitForSnapshots() {
    snapshotQueue.sync {}
  }

  /// Takes, makes and writes a snapshot. Runs on ``snapshotQueue``.
  func snapshotNow() throws {
    var capture = engine.withLock { $0.captureSnapshot() }
    let outcome = makeAndWrite(&capture)
    engine.withLock { $0.install(capture, outcome) }
    if let failure = outcome.failure { throw failure }
  }

  /// Makes the snapshot of `capture` and writes it, without the lock.
  private func makeAndWrite(_ capture: inout SnapshotCapture) -> SnapshotOutcome {
    let started = DispatchTime.now().uptimeNanoseconds
    var outcome = SnapshotOutcome()
    // Zones changed since the last snapshot (or it is the first): more changes may come while
    // this one is made, and the first would copy the zone tables this copy shares, under the
    // lock. A store that only takes fixes is spared the second set of tables.
    if capture.zoneChanges?.isEmpty != true { capture.source.ownZoneTables() }
    if let evaluator = capture.source.copy {
      let zoneSet = ZoneSetCoding.current(
        base: capture.zoneSetBase, changes: capture.zoneChanges, of: evaluator)
      outcome.zoneSet = zoneSet
      let evaluatorSnapshot = evaluator.snapshot(reusing: &capture.zoneOrder)
      let record = SnapshotRecord(
        commandSeq: capture.commandSeq, lastEventSeq: capture.eventSeq,
        zoneFingerprint: evaluatorSnapshot.zoneFingerprint, zoneSet: zoneSet.bytes,
        zoneSetHash: zoneSet.hash, evaluator: evaluatorSnapshot.encoded(), takenAt: outcome.takenAt)
      do {
        try storage.writeSnapshot(record)
      } catch {
        outcome.failure = error
      }
    }
    // The copy's tables are freed here, off the lock (what may call GEOS is freed under it).
    capture.source.releaseAllButGEOS()
    outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9
    return outcome
  }
}

extension EngineState {
  /// Takes what a snapshot of this state needs, in O(1), and marks one in flight.
  mutating func captureSnapshot() -> FenceStore.SnapshotCapture {
    isSnapshotInFlight = true
    zoneChangesSinceCapture = []
    snapshotsTaken += 1
    return FenceStore.SnapshotCapture(
      source: evaluator.snapshotSource(), commandSeq: commandSeq, eventSeq: eventSeq,
      zoneSetBase: snapshotZoneSet, zoneChanges: zoneChanges, zoneOrder: snapshotZoneOrder,
      lineage: lineage, number: snapshotsTaken, commands: commandsSinceSnapshot,
      commandSeconds: commandSecondsSinceSnapshot)
  }

  /// Puts back what the snapshot of `capture` gave, and releases its copy of the evaluator
  /// here, under the lock (see ``FenceEngine/ZoneEvaluator/SnapshotSource``).
  ///
  /// Only the latest capture of this state gives anything back: a state that replaced the one
  /// it came from (recovery) takes nothing from it, and neither does a state that took a later
  /// capture before this one finished (``FenceStore/snapshot()`` runs before a background
  /// snapshot queued while it waited; the later one covers more).
  mutating func install(_ capture: FenceStore.SnapshotCapture, _ outcome: FenceStore.SnapshotOutcome) {
    capture.source.release()
    guard capture.lineage == lineage, capture.number == snapshotsTaken else { return }
    isSnapshotInFlight = false
    lastSnapshotSeconds = outcome.seconds
    guard outcome.failure == nil, let zoneSet = outcome.zoneSet else { return }
    // The zone set made is that of the evaluator at the capture; the changes since are the
    // ones to bring it up to date from.
    snapshotZoneSet = zoneSet
    zoneChanges = zoneChangesSinceCapture
    snapshotZoneOrder = capture.zoneOrder
    commandsSinceSnapshot = max(0, commandsSinceSnapshot - capture.commands)
    commandSecondsSinceSnapshot = max(0, commandSecondsSinceSnapshot - capture.commandSeconds)
    if capture.commandSeq >= lastSnapshot?.commandSeq ?? 0 {
      lastSnapshot = (capture.commandSeq, capture.eventSeq, outcome.takenAt)
    }
  }
}
