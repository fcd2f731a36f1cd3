import FenceEngine
import FenceFormats
import Foundation

/// What opening a store found and did.
public struct RecoveryReport: Hashable, Sendable {
  /// The command seq of the snapshot restored, `nil` when the store had none (a new store, or
  /// one whose first snapshot was never written).
  public var snapshotCommandSeq: Int64?
  /// Commands replayed after the snapshot, and the fixes among them.
  public var commandsReplayed = 0
  public var fixesReplayed = 0
  /// Events produced by the replay and found equal to the stored ones.
  public var eventsVerified = 0
  /// The last command and event seq after recovery.
  public var commandSeq: Int64 = 0
  public var eventSeq: Int64 = 0
  /// Wall-clock time recovery took.
  public var seconds = 0.0
  /// Whether the store was created by this open.
  public var isNew = false
}

extension FenceStore {
  /// The metadata key of the engine configuration the store was made with.
  static let configurationKey = "engine-configuration"
  static let formatKey = "store-format"
  static let formatVersion = "1"
  /// How many times recovery reads on when the log's head moved past the commands it read.
  static let lateCommitRounds = 3

  /// Rebuilds the engine from the latest snapshot and the commands after it, checking every
  /// replayed command's events against the stored ones.
  static func recover(
    storage: any FenceStorage, configuration: ZoneEvaluator.Configuration, eventPartition: Int32?
  )
    throws -> (state: EngineState, report: RecoveryReport)
  {
    let start = ContinuousClock.now
    var report = RecoveryReport()
    let given = String(describing: configuration)
    if let stored = try storage.metadata(configurationKey) {
      guard stored == given else {
        throw StoreError.configurationMismatch(stored: stored, given: given)
      }
      if let format = try storage.metadata(formatKey), format != formatVersion {
        throw StoreError.damaged("store format \(format); this version reads \(formatVersion)")
      }
    } else {
      try storage.setMetadata(formatKey, formatVersion)
      try storage.setMetadata(configurationKey, given)
      report.isNew = true
    }

    var state: EngineState
    if let snapshot = try storage.latestSnapshot() {
      let isBinary = ZoneSetCoding.isBinary(snapshot.zoneSet)
      let (evaluator, zoneOrder) = try restoredEvaluator(snapshot, configuration: configuration)
      state = EngineState(
        evaluator: evaluator, commandSeq: snapshot.commandSeq, eventSeq: snapshot.lastEventSeq)
      // The restore's order and fingerprint serve the next snapshot while no zone changes.
      state.snapshotZoneOrder = zoneOrder
      if isBinary {
        state.snapshotZoneSet = (
          snapshot.zoneSet, snapshot.zoneSetHash ?? SQLiteStorage.hash(snapshot.zoneSet)
        )
        state.zoneChanges = []
      }
      state.lastSnapshot = (snapshot.commandSeq, snapshot.lastEventSeq, snapshot.takenAt)
      report.snapshotCommandSeq = snapshot.commandSeq
    } else {
      state = EngineState(
        evaluator: ZoneEvaluator(configuration: configuration), commandSeq: 0, eventSeq: 0)
    }

    var events: [ZoneEvent] = []
    // Rounds of reading the log to its end: a commit may land while it is read (below).
    var rounds = 0
    var logEnd: Int64 = 0
    while true {
      let page = try storage.commands(after: state.commandSeq, limit: 64)
      if page.isEmpty {
        // A log whose head is past what was read got a commit meanwhile: a transaction whose
        // answer was lost (a timed-out `COMMIT` on PostgreSQL) that the server finished after
        // this store gave it up and started reloading. Its command is in the log, so it is
        // replayed like any other; a head that stays ahead of the commands read is damage.
        logEnd = try storage.head().commandSeq
        if logEnd > state.commandSeq, rounds < Self.lateCommitRounds {
          rounds += 1
          continue
        }
        break
      }
      for record in page {
      guard record.seq == state.commandSeq + 1 else {
        throw StoreError.damaged(
          "the command log jumps from \(state.commandSeq) to \(record.seq)")
      }
      guard record.firstEventSeq == state.eventSeq + 1 else {
        throw StoreError.damaged(
          "command \(record.seq) starts at event \(record.firstEventSeq), after event \(state.eventSeq)")
      }
      let command = try StoreCommand(
        kindCode: record.kindCode, payload: record.payload, commandSeq: record.seq)
      events.removeAll(keepingCapacity: true)
      do {
        guard try apply(command, to: &state.evaluator, events: &events) else {
          throw StoreError.replayMismatch(
            commandSeq: record.seq, detail: "it removes a zone that is not loaded")
        }
      } catch let error as StoreError {
        throw error
      } catch {
        throw StoreError.replayMismatch(commandSeq: record.seq, detail: "it failed: \(error)")
      }
      let lines = eventLines(events, firstSeq: record.firstEventSeq, partition: eventPartition)
      guard lines.count == record.eventCount else {
        throw StoreError.replayMismatch(
          commandSeq: record.seq,
          detail: "\(lines.count) events, \(record.eventCount) stored")
      }
      if !lines.isEmpty {
        let stored = try storage.events(after: record.firstEventSeq - 1, limit: lines.count)
        for (line, event) in zip(lines, stored) where line != event.line {
          throw StoreError.replayMismatch(
            commandSeq: record.seq,
            detail: "event \(event.seq) is \(event.line.prefix(300)); replay gave \(line.prefix(300))")
        }
        guard stored.count == lines.count else {
          throw StoreError.damaged(
            "command \(record.seq) has \(lines.count) events, \(stored.count) of them stored")
        }
      }
      if case .fixes(let fixes) = command { report.fixesReplayed += fixes.count }
      state.noteZoneChange(command)
      report.commandsReplayed += 1
      report.eventsVerified += lines.count
      state.commandSeq = record.seq
      state.eventSeq += Int64(lines.count)
      state.commandsSinceSnapshot += 1
      }
    }
    // An empty log after a compaction still knows its position from the snapshot; a log with
    // commands but a snapshot past them is damaged.
    guard logEnd == state.commandSeq else {
      throw StoreError.damaged(
        "the log ends at command \(logEnd), recovery reached \(state.commandSeq)")
    }
    report.commandSeq = state.commandSeq
    report.eventSeq = state.eventSeq
    report.seconds = (ContinuousClock.now - start) / .seconds(1)
    return (state, report)
  }
}

extension FenceStore {
  /// An evaluator with a snapshot's zones and state.
  ///
  /// - Throws: ``StoreError/damaged(_:)`` when the zone set does not load or the state does not
  ///   restore.
  static func restoredEvaluator(
    _ snapshot: SnapshotRecord, configuration: ZoneEvaluator.Configuration
  ) throws -> (evaluator: ZoneEvaluator, zoneOrder: ZoneEvaluator.SnapshotZoneOrder) {
    let zones: [Zone]
    do {
      if ZoneSetCoding.isBinary(snapshot.zoneSet) {
        zones = try ZoneSetCoding.decode(snapshot.zoneSet)
      } else {
        // A snapshot written before the binary form: GeoJSON by ZoneSetWriter, from zones
        // GEOS validated when they entered, so not validated again.
        var options = ZoneLoadOptions()
        options.trustsTopology = true
        zones = try ZoneLoader.loadZones(
          from: snapshot.zoneSet, file: "snapshot \(snapshot.commandSeq) zone set", options: options)
      }
    } catch {
      throw StoreError.damaged("the zone set of snapshot \(snapshot.commandSeq) does not load: \(error)")
    }
    // The evaluator snapshot (devices, records, timers) is decoded on another processor while
    // the zones are built into an evaluator, which takes far longer (at a million zones 0.1 s
    // of decoding beside 1.6 s).
    let decoding = DecodingInBackground(snapshot.evaluator)
    do {
      // The zone set is in id order: the evaluator gives its zones' id order without a sort.
      var (evaluator, slotsInIDOrder) = try ZoneEvaluator.loaded(
        configuration: configuration, zones: zones)
      let zoneOrder = try evaluator.restore(try decoding.result(), zoneSlotsInIDOrder: slotsInIDOrder)
      return (evaluator, zoneOrder)
    } catch {
      throw StoreError.damaged("snapshot \(snapshot.commandSeq) does not restore: \(error)")
    }
  }
}

/// An ``FenceEngine/EvaluatorSnapshot`` decoded on a global queue, waited for by
/// ``result()``.
private final class DecodingInBackground: Sendable {
  private let done = DispatchGroup()
  private let outcome = LockedValue<Result<EvaluatorSnapshot, any Error>?>(nil)

  init(_ bytes: [UInt8]) {
    done.enter()
    DispatchQueue.global(qos: .userInitiated).async { [outcome, done] in
      let decoded = Result { try EvaluatorSnapshot(decoding: bytes) }
      outcome.withLock { $0 = decoded }
      done.leave()
    }
  }

  /// The decoded snapshot, once decoded.
  ///
  /// - Throws: what decoding threw.
  func result() throws -> EvaluatorSnapshot {
    done.wait()
    return try outcome.withLock { $0! }.get()
  }
}
