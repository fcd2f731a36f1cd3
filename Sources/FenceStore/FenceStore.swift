import FenceEngine
import FenceFormats
import Foundation

/// A ``FenceEngine/ZoneEvaluator`` made durable: every command (fix batch, clock advance, zone
/// change) is committed to a ``FenceStorage`` together with every event it produced, each
/// event numbered by a gapless `seq`, before the command is answered.
///
/// Opening a store recovers it: the latest snapshot is restored, the commands after it are
/// replayed, and each replayed command's events are checked against the stored ones (a
/// difference throws ``StoreError/replayMismatch(commandSeq:detail:)`` rather than serve a
/// history other than the one acknowledged). A snapshot is written every
/// ``Options/snapshotEvery`` commands (in the background: ``Options/writesSnapshotsInBackground``)
/// and on ``close()``.
///
/// Commands run one at a time in the order they arrive; reads (events, zones, devices) run
/// beside them. All methods are thread-safe. The synchronous methods block for the commit's
/// disk sync; the `async` ones run it on the store's own queue, off the caller's executor.
///
/// ```swift
/// let store = try FenceStore(directory: "/var/lib/fenced", configuration: .default)
/// _ = try store.execute(.replaceAllZones(zones))
/// let answer = try store.execute(.fixes(fixes), idempotencyKey: "batch-17")
/// for event in try store.events(after: 0) { print(event.line) }
/// try store.close()
/// ```
public final class FenceStore: Sendable {
  /// How the store works around the engine.
  public struct Options: Hashable, Sendable {
    /// A snapshot is written after this many commands (and on ``FenceStore/close()``); later
    /// when snapshots are slow (see ``slowSnapshotSeconds``).
    public var snapshotEvery: Int
    /// A snapshot that took at least this long to write makes the next one wait, beyond
    /// ``snapshotEvery`` commands, until the commands since have taken as long to apply: with a
    /// large state (a million zones: seconds per snapshot) and cheap commands, snapshots would
    /// otherwise take most of the store's time. Quicker snapshots keep the exact count.
    /// `.infinity` turns pacing off.
    public var slowSnapshotSeconds: Double
    /// Whether a snapshot due after a command is made and written in the background, while
    /// commands go on (the default), or before the command is answered. In the background, a
    /// snapshot holds the store's lock only to copy the engine (in O(1)) and to put its
    /// results back; commands wait for it only where the storage serializes writes (SQLite
    /// writes one transaction at a time). ``waitForSnapshots()`` waits for one in flight.
    public var writesSnapshotsInBackground: Bool
    /// The partition whose events this store writes, in a store partitioned by device (the
    /// scaled-out `fenced`): every event line then carries `"partition"` after its `"seq"`.
    /// `nil` (the default) for a store that holds every device.
    public var eventPartition: Int32?
    /// Longest accepted idempotency key, in UTF-8 bytes.
    public static let maximumIdempotencyKeyLength = 200

    public init(
      snapshotEvery: Int = 500, slowSnapshotSeconds: Double = 0.25, eventPartition: Int32? = nil,
      writesSnapshotsInBackground: Bool = true
    ) {
      self.snapshotEvery = snapshotEvery
      self.slowSnapshotSeconds = slowSnapshotSeconds
      self.writesSnapshotsInBackground = writesSnapshotsInBackground
      self.eventPartition = eventPartition
    }
  }

  /// The engine's configuration (stored with the store; see ``StoreError/configurationMismatch(stored:given:)``).
  public let configuration: ZoneEvaluator.Configuration
  public let options: Options
  /// What recovery found and did when the store was opened.
  public let recovery: RecoveryReport
  let storage: any FenceStorage
  let engine: LockedValue<EngineState>
  let head: EventHead
  /// Runs commands for the `async` methods, so that a disk sync never blocks a cooperative
  /// thread.
  let commandQueue = DispatchQueue(label: "FenceStore.commands")
  /// Makes and writes snapshots, one at a time (``snapshot()``, and in the background).
  let snapshotQueue = DispatchQueue(label: "FenceStore.snapshots")
  /// Builds, off the lock, what the evaluator left to build on first use
  /// (``buildDeferredTablesInBackground(_:)``).
  let backgroundQueue = DispatchQueue(label: "FenceStore.background", qos: .utility)
  /// Runs reads for the `async` methods.
  let readQueue = DispatchQueue(label: "FenceStore.reads", attributes: .concurrent)

  /// Opens (creating when missing) the embedded store in `directory` (SQLite file
  /// `fence.sqlite`, in WAL mode), and recovers it.
  ///
  /// - Throws: ``StoreError`` when the directory cannot be used, the store is damaged, was made
  ///   with another configuration, or replay disagrees with the stored events.
  public convenience init(
    directory: String, configuration: ZoneEvaluator.Configuration = .default,
    options: Options = Options(), durability: SQLiteStorage.Durability = .full
  ) throws {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw StoreError.damaged("cannot create the directory \(directory): \(error.localizedDescription)")
    }
    let storage = try SQLiteStorage(
      path: SQLiteStorage.databasePath(in: directory), durability: durability)
    try self.init(storage: storage, configuration: configuration, options: options)
  }

  /// Opens a store on any storage, and recovers it (see the type's description).
  public init(
    storage: any FenceStorage, configuration: ZoneEvaluator.Configuration = .default,
    options: Options = Options()
  ) throws {
    self.storage = storage
    self.configuration = configuration
    self.options = options
    let recovered = try Self.recover(
      storage: storage, configuration: configuration, eventPartition: options.eventPartition)
    recovery = recovered.report
    head = EventHead(seq: recovered.state.eventSeq)
    engine = LockedValue(recovered.state)
    engine.withLock { buildDeferredTablesInBackground($0) }
  }

  // MARK: - Commands

  /// Commits `command` and everything it produces, then answers.
  ///
  /// - Parameters:
  ///   - idempotencyKey: when a command with this key was committed before, its first
  ///   answer is returned again (``CommandAnswer/isReplay``) and nothing is applied. At most
  ///   200 UTF-8 bytes.
  ///   - inboxSeq: for the owner of a partition executing its inbox (the scaled-out `fenced`):
  ///     the inbox seq this command consumes, committed with it (``CommandCommit/inboxSeq``).
  /// - Returns: the answer; `nil` for ``StoreCommand/removeZone(_:)`` of an absent zone (nothing
  ///   is committed then).
  /// - Throws: ``FenceEngine/ZoneError`` for zones that do not load into the engine (nothing is
  ///   committed); ``StoreError/invalidCommand(_:)`` for a key over 200 bytes or zones the log
  ///   cannot record; ``StoreError/storageFailed(_:)`` when the commit failed (nothing
  ///   applied); ``StoreError/closed``.
  @discardableResult
  public func execute(_ command: StoreCommand, idempotencyKey: String? = nil, inboxSeq: Int64? = nil)
    throws -> CommandAnswer?
  {
    if let idempotencyKey, idempotencyKey.utf8.count > Options.maximumIdempotencyKeyLength {
      throw StoreError.invalidCommand("idempotency key longer than 200 bytes")
    }
    let (answer, newHead) = try engine.withLock { state throws -> (CommandAnswer?, Int64?) in
      guard !state.isClosed else { throw StoreError.closed }
      if let idempotencyKey, let stored = try storage.answer(forIdempotencyKey: idempotencyKey) {
        return (try CommandAnswer(storedJSON: stored.answer, commandSeq: stored.commandSeq), nil)
      }
      let started = DispatchTime.now().uptimeNanoseconds
      guard
        let answer = try commit(
          command, idempotencyKey: idempotencyKey, inboxSeq: inboxSeq, state: &state)
      else {
        return (nil, nil)
      }
      snapshotIfDue(commandStarted: started, state: &state)
      buildDeferredTablesInBackground(state)
      return (answer, state.eventSeq)
    }
    if let newHead { head.publish(newHead) }
    return answer
  }

  /// ``execute(_:idempotencyKey:)`` on the store's command queue.
  @discardableResult
  public func execute(_ command: StoreCommand, idempotencyKey: String? = nil) async throws
    -> CommandAnswer?
  {
    try await withCheckedThrowingContinuation { continuation in
      commandQueue.async {
        continuation.resume(with: Result { try self.execute(command, idempotencyKey: idempotencyKey) })
      }
    }
  }

  /// Applies one new command to the engine and commits it with its events.
  private func commit(
    _ command: StoreCommand, idempotencyKey: String?, inboxSeq: Int64?, state: inout EngineState
  ) throws -> CommandAnswer? {
    guard
      let prepared = try prepare(
        command, idempotencyKey: idempotencyKey, inboxSeq: inboxSeq, state: &state)
    else { return nil }
    try append([prepared.commit], state: &state)
    return prepared.answer
  }

  /// Applies one new command to the engine and moves the log's position past it: the commit to
  /// append, and the answer. Nothing is written; ``append(_:state:)`` writes, or puts the engine
  /// back as the log has it.
  private func prepare(
    _ command: StoreCommand, idempotencyKey: String?, inboxSeq: Int64?, state: inout EngineState
  ) throws -> (answer: CommandAnswer, commit: CommandCommit)? {
    let seq = state.commandSeq + 1
    let firstEventSeq = state.eventSeq + 1
    // Encoded before the engine changes: zones the log cannot record change nothing.
    let payload: [UInt8]
    do {
      payload = try command.encodedPayload()
    } catch {
      // The engine's own reason is the more precise one when it refuses the zones too: find it
      // on a copy (this path is rare, and the copy is only made here).
      var trial = state.evaluator
      var ignored: [ZoneEvent] = []
      _ = try Self.apply(command, to: &trial, events: &ignored)
      throw StoreError.invalidCommand("\(error)")
    }
    let acceptedBefore = state.evaluator.acceptedFixCount
    let rejectedBefore = state.evaluator.rejections
    var events: [ZoneEvent] = []
    // Zone changes validate before anything changes: a ZoneError leaves the engine as it was.
    guard try Self.apply(command, to: &state.evaluator, events: &events) else { return nil }
    var answer = CommandAnswer(commandSeq: seq)
    switch command {
    case .setDeviceTags:
      break
    case .fixes, .advance:
      answer.accepted = state.evaluator.acceptedFixCount - acceptedBefore
      for reason in RejectionReason.allCases {
        answer.rejected[reason] = state.evaluator.rejections[reason] - rejectedBefore[reason]
      }
      answer.events = events.count
      for event in events { answer.eventsByKind[event.kind, default: 0] += 1 }
      if !events.isEmpty {
        answer.firstSeq = firstEventSeq
        answer.lastSeq = firstEventSeq + Int64(events.count) - 1
      }
    case .addZones, .replaceAllZones, .removeZone:
      answer.zoneCounts = state.zoneCounts
      state.noteZoneChange(command)
      // Check-outs a change caused (rules v2: `exitOnRemove`, a replaced schedule or lifetime).
      if !events.isEmpty {
        answer.events = events.count
        for event in events { answer.eventsByKind[event.kind, default: 0] += 1 }
        answer.firstSeq = firstEventSeq
        answer.lastSeq = firstEventSeq + Int64(events.count) - 1
      }
    }
    let lines = Self.eventLines(events, firstSeq: firstEventSeq, partition: options.eventPartition)
    let commit = CommandCommit(
      seq: seq, kindCode: command.kindCode, payload: payload, firstEventSeq: firstEventSeq,
      eventLines: lines, answer: answer.json, idempotencyKey: idempotencyKey,
      recordedAt: Date(), inboxSeq: inboxSeq)
    state.commandSeq = seq
    state.eventSeq += Int64(events.count)
    state.commandsSinceSnapshot += 1
    return (answer, commit)
  }

  /// Writes prepared commits (one transaction when the storage can), or, when that fails, puts
  /// the engine back as the log has it and throws.
  private func append(_ commits: [CommandCommit], state: inout EngineState) throws {
    do {
      if commits.count == 1 {
        try storage.append(commits[0])
      } else {
        try storage.append(contentsOf: commits)
      }
    } catch {
      try restoreFromStorage(after: error, state: &state)
    }
  }

  /// After a failed write: closes the store on a lost lease, else reloads the engine from the
  /// storage (the engine moved but the log did not); throws what the write threw.
  private func restoreFromStorage(after error: any Error, state: inout EngineState) throws -> Never {
    if let error = error as? StoreError, error.isLeaseLost {
      // Another owner writes this partition now: this store must not go on.
      state.isClosed = true
      throw error
    }
    // The seq the failed write would have reached (the engine moved on before writing).
    let attempted = state.commandSeq
    do {
      let lineage = state.lineage + 1
      state = try Self.recover(
        storage: storage, configuration: configuration, eventPartition: options.eventPartition
      ).state
      state.lineage = lineage
    } catch let recoveryError {
      state.isClosed = true
      throw StoreError.storageFailed(
        "\(error); reloading from the storage failed too (\(recoveryError)); the store is closed")
    }
    // The reload may have found a commit that landed after its write seemed to fail (recovery
    // replays it): its events are committed, so readers see them now.
    head.publish(state.eventSeq)
    if state.commandSeq >= attempted {
      throw StoreError.storageFailed(
        "\(error); \(StoreError.writeLanded) (the log holds command \(attempted)): its idempotency key gets its answer, a resend without one applies it again")
    }
    if let error = error as? StoreError, case .storageFailed = error { throw error }
    throw StoreError.storageFailed("\(error)")
  }

  /// For the owner of a partition executing its inbox: executes fix batches, advances and tag
  /// changes (commands the engine never refuses) in order, and commits them together, in one
  /// transaction when the storage can (``FenceStorage/append(contentsOf:)``), each with the
  /// inbox seq it consumes. One round trip to the database then carries many commands.
  ///
  /// - Returns: the answers, in order.
  /// - Throws: ``StoreError/invalidCommand(_:)`` for a zone change (execute those one at a
  ///   time); what ``execute(_:idempotencyKey:inboxSeq:)`` throws, with nothing applied.
  public func execute(inboxCommands: [(seq: Int64, command: StoreCommand)]) throws -> [CommandAnswer] {
    for item in inboxCommands {
      switch item.command {
      case .fixes, .advance, .setDeviceTags: continue
      case .addZones, .replaceAllZones, .removeZone:
        throw StoreError.invalidCommand("zone changes are executed one at a time")
      }
    }
    guard !inboxCommands.isEmpty else { return [] }
    let (answers, newHead) = try engine.withLock { state throws -> ([CommandAnswer], Int64) in
      guard !state.isClosed else { throw StoreError.closed }
      let started = DispatchTime.now().uptimeNanoseconds
      var answers: [CommandAnswer] = []
      var commits: [CommandCommit] = []
      do {
        for item in inboxCommands {
          guard
            let prepared = try prepare(
              item.command, idempotencyKey: nil, inboxSeq: item.seq, state: &state)
          else { continue }
          answers.append(prepared.answer)
          commits.append(prepared.commit)
        }
      } catch {
        try restoreFromStorage(after: error, state: &state)
      }
      try append(commits, state: &state)
      snapshotIfDue(commandStarted: started, state: &state)
      buildDeferredTablesInBackground(state)
      return (answers, state.eventSeq)
    }
    head.publish(newHead)
    return answers
  }

  /// Starts, on ``backgroundQueue``, the build of the zone id table that a restore or a large
  /// first load leaves for its first use (``FenceEngine/ZoneEvaluator/deferredZoneIDTableBuild()``),
  /// so that the first zone change or lookup by id does not build it while requests wait. Called
  /// under the lock after opening and after commands; does nothing when there is none to build.
  func buildDeferredTablesInBackground(_ state: EngineState) {
    guard let build = state.evaluator.deferredZoneIDTableBuild() else { return }
    backgroundQueue.async(execute: build)
  }

  /// Returns once the tables handed to ``backgroundQueue`` are built (for tests).
  func waitForBackgroundBuilds() {
    backgroundQueue.sync {}
  }

  /// Applies a command to an evaluator, appending its events: the one place both the live path
  /// and recovery's replay go through, so that replay gives what the live engine gave.
  ///
  /// - Returns: `false` for removing an absent zone (nothing changes).
  static func apply(_ command: StoreCommand, to evaluator: inout ZoneEvaluator, events: inout [ZoneEvent])
    throws -> Bool
  {
    switch command {
    case .fixes(let fixes):
      // One batch call: it asks for the next fixes' memory ahead (same events as one by one).
      evaluator.process(fixes, into: &events)
    case .advance(let time):
      evaluator.advance(to: time, into: &events)
    case .addZones(let zones):
      try evaluator.add(zones)
      evaluator.emitZoneChangeEvents(into: &events)
    case .replaceAllZones(let zones):
      try evaluator.replaceAll(with: zones)
      evaluator.emitZoneChangeEvents(into: &events)
    case .removeZone(let id):
      guard evaluator.remove(zoneID: id) else { return false }
      evaluator.emitZoneChangeEvents(into: &events)
    case .setDeviceTags(let device, let tags):
      evaluator.setTags(tags, forDevice: device)
    }
    return true
  }

  /// The events' NDJSON lines with `"seq"` first, numbered from `firstSeq` (and `"partition"`
  /// after it when given).
  static func eventLines(_ events: [ZoneEvent], firstSeq: Int64, partition: Int32?) -> [String] {
    var lines: [String] = []
    lines.reserveCapacity(events.count)
    var line: [UInt8] = []
    line.reserveCapacity(512)
    for (offset, event) in events.enumerated() {
      line.removeAll(keepingCapacity: true)
      event.appendNDJSON(to: &line, seq: firstSeq + Int64(offset), partition: partition)
      lines.append(String(decoding: line, as: UTF8.self))
    }
    return lines
  }

  // MARK: - Closing

  /// Writes a snapshot when anything happened since the last one (after the one being written
  /// in the background, if any), closes the storage, and wakes every waiting reader. Later
  /// commands throw ``StoreError/closed``.
  public func close() throws {
    let alreadyClosed = engine.withLock { state in
      defer { state.isClosed = true }
      return state.isClosed
    }
    guard !alreadyClosed else { return }
    head.close()
    try snapshotQueue.sync {
      if engine.withLock({ $0.commandsSinceSnapshot > 0 }) { try snapshotNow() }
    }
    try storage.close()
  }
}

/// The engine and the log's position, behind the store's lock.
struct EngineState {
  var evaluator: ZoneEvaluator
  /// The last committed command.
  var commandSeq: Int64
  /// The last committed event.
  var eventSeq: Int64
  var commandsSinceSnapshot = 0
  /// Time spent applying and committing the commands since the last snapshot.
  var commandSecondsSinceSnapshot = 0.0
  /// How long the last snapshot took to make and write (see ``SnapshotPacing``).
  var lastSnapshotSeconds = 0.0
  /// The latest snapshot written: the last command and event it includes, and when.
  var lastSnapshot: (commandSeq: Int64, eventSeq: Int64, takenAt: Date)?
  /// Whether a snapshot taken from this state is being written in the background (no other is
  /// started meanwhile).
  var isSnapshotInFlight = false
  /// How many snapshots were taken from this state (``captureSnapshot()``).
  var snapshotsTaken = 0
  /// Which state this is: recovery after a failed write replaces the whole state and counts it
  /// up, so that a background snapshot of the state before gives its results to no other.
  var lineage = 0
  /// Counts zone changes, so that the GeoJSON zone set is written again only after one.
  var zoneVersion = 0
  /// The zone set in the snapshots' binary form (``ZoneSetCoding``) with its hash, as the last
  /// snapshot that needed it made it; ``zoneChanges`` names what changed since.
  var snapshotZoneSet: (bytes: [UInt8], hash: UInt64)?
  /// The ids of the zones added, replaced or removed since ``snapshotZoneSet`` was made, from
  /// which the next snapshot brings it up to date (``ZoneSetCoding/updating(_:changedIDs:zone:)``);
  /// `nil` when it must encode the zone set whole (none made yet, or every zone replaced).
  var zoneChanges: Set<String>?
  /// While a snapshot is written in the background: the zones changed since it was taken
  /// (``zoneChanges`` still holds every change since ``snapshotZoneSet``). Once it is written,
  /// its zone set becomes ``snapshotZoneSet`` and these the changes since.
  var zoneChangesSinceCapture: Set<String>? = []
  /// The zones' order and fingerprint of the last snapshot, made again only after a zone
  /// change (``FenceEngine/ZoneEvaluator/snapshot(reusing:)``). It belongs to `evaluator`:
  /// replacing the whole state (recovery) drops it with it.
  var snapshotZoneOrder: ZoneEvaluator.SnapshotZoneOrder?
  /// The zone set as GeoJSON for `version`, written on the first read after a zone change.
  var geoJSONZoneSet: (version: Int, bytes: [UInt8])?
  var isClosed = false

  /// Notes a zone change the engine applied (the live path and recovery's replay alike);
  /// other commands change no zone and are ignored.
  mutating func noteZoneChange(_ command: StoreCommand) {
    switch command {
    case .addZones(let zones):
      for zone in zones {
        zoneChanges?.insert(zone.id)
        zoneChangesSinceCapture?.insert(zone.id)
      }
    case .removeZone(let id):
      zoneChanges?.insert(id)
      zoneChangesSinceCapture?.insert(id)
    case .replaceAllZones:
      zoneChanges = nil
      zoneChangesSinceCapture = nil
    case .fixes, .advance, .setDeviceTags:
      return
    }
    zoneVersion += 1
  }

  /// The zone set in the snapshots' binary form and its hash, brought up to date from the last
  /// one made (``ZoneSetCoding/current(base:changes:of:)``), which it then replaces.
  mutating func encodedZoneSet() -> (bytes: [UInt8], hash: UInt64) {
    let current = ZoneSetCoding.current(base: snapshotZoneSet, changes: zoneChanges, of: evaluator)
    snapshotZoneSet = current
    zoneChanges = []
    return current
  }

  var zoneCounts: CommandAnswer.ZoneCounts {
    .init(
      zones: evaluator.zoneCount, fences: evaluator.fenceCount,
      geolines: evaluator.geolineCount)
  }
}
