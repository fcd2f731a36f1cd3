import Dispatch

/// Several ``ZoneEvaluator`` shards with the same zones, each holding the devices whose id
/// hashes to it, processing batches of fixes in parallel (one thread per shard) and giving
/// exactly the events of one evaluator.
///
/// A device always goes to shard `FNV-1a-64(UTF-8 of its id) % shardCount` (see
/// ``shard(forDevice:shardCount:)``), the same on every run and platform. Zone changes are
/// applied to every shard. After each batch every shard is advanced to the latest time any
/// shard reached (the time a single evaluator would have), so a dwell whose deadline has
/// passed fires in the batch where a single evaluator fires it, even in a shard that got no
/// fix after the deadline; and at every zone change all shards agree on the time, so a zone
/// removal cannot drop a dwell a single evaluator would have emitted.
///
/// The events of a batch are returned sorted by time, then device id; the events of one
/// device keep their order. The same events sorted the same way are those of one evaluator fed
/// the same fixes (`ShardingTests`); only the interleaving of different devices' events at
/// equal times, and the order of events stamped before their fix (check-outs after exit
/// confirmations, dwells, GEOLINE crossings), differ from a single evaluator's output order.
///
/// Thread-safe (each shard is behind its own lock), but batches from several threads at once
/// interleave shard by shard: feed batches from one thread, in time order, for the guarantee
/// above.
public final class ShardedEvaluator: Sendable {
  /// One shard: an evaluator and its events of the current step, behind a lock.
  private final class Shard: Sendable {
    struct State {
      var evaluator: ZoneEvaluator
      var events: [ZoneEvent] = []
    }

    // `LockedValue` takes the evaluator as a `sending` value and hands it out only inside
    // `withLock`: the non-Sendable evaluator is reached by one thread at a time.
    let state: LockedValue<State>

    init(_ evaluator: consuming sending ZoneEvaluator) {
      state = LockedValue(State(evaluator: evaluator))
    }
  }

  private let shards: [Shard]

  /// `shardCount` evaluators loaded with `zones` (all or nothing).
  ///
  /// - Throws: ``ZoneError`` for the first invalid zone.
  public init(
    shardCount: Int, configuration: ZoneEvaluator.Configuration = .default, zones: [Zone]
  ) throws {
    precondition(shardCount >= 1, "A sharded evaluator needs at least one shard, got \(shardCount)")
    var shards: [Shard] = []
    for _ in 0..<shardCount {
      shards.append(Shard(try ZoneEvaluator(configuration: configuration, zones: zones)))
    }
    self.shards = shards
  }

  /// Shards restored from `snapshots` (one per shard, in shard order, as ``snapshots()`` gives
  /// them), each into an evaluator loaded with `zones`: a sharded run moved to another process
  /// continues with exactly the events it would have given.
  ///
  /// - Throws: ``ZoneError`` for an invalid zone, ``SnapshotError`` when a snapshot does not
  ///   fit the zones.
  public convenience init(
    configuration: ZoneEvaluator.Configuration = .default, zones: [Zone],
    restoring snapshots: [EvaluatorSnapshot]
  ) throws {
    try self.init(shardCount: snapshots.count, configuration: configuration, zones: zones)
    for (shard, snapshot) in zip(shards, snapshots) {
      try shard.state.withLock { state in try state.evaluator.restore(snapshot) }
    }
  }

  /// The number of shards.
  public var shardCount: Int { shards.count }

  /// The latest time of any shard (the time one evaluator would have).
  public var time: Timestamp? {
    shards.lazy.compactMap { shard in shard.state.withLock { $0.evaluator.time } }.max()
  }

  /// Each shard's per-device state, in shard order (see ``ZoneEvaluator/snapshot()``).
  public func snapshots() -> [EvaluatorSnapshot] {
    shards.map { shard in shard.state.withLock { $0.evaluator.snapshot() } }
  }

  /// The number of devices in each shard, in shard order.
  public var deviceCounts: [Int] {
    shards.map { shard in shard.state.withLock { $0.evaluator.deviceCount } }
  }

  /// The shard of a device: the 64-bit FNV-1a hash of its id's UTF-8 bytes, modulo
  /// `shardCount` (never Swift's per-process randomized `Hasher`).
  public static func shard(forDevice device: String, shardCount: Int) -> Int {
    var hash = FNV1a64()
    for byte in device.utf8 { hash.combine(byte: byte) }
    return Int(hash.value % UInt64(shardCount))
  }

  /// The shard that holds `device`.
  public func shard(forDevice device: String) -> Int {
    Self.shard(forDevice: device, shardCount: shards.count)
  }

  /// Processes a batch of fixes: each shard its own devices' fixes, in their order, on its own
  /// thread; then every shard advances to the latest shard time. Appends the batch's events
  /// sorted by time, then device id.
  public func process(_ fixes: [LocationFix], into events: inout [ZoneEvent]) {
    var routing = Array(repeating: [LocationFix](), count: shards.count)
    for fix in fixes { routing[shard(forDevice: fix.device)].append(fix) }
    let routed = routing
    runShards { shard, evaluator, events in
      evaluator.process(routed[shard], into: &events)
    }
    // Time moved for every shard, not only for those that got the latest fixes.
    if let time { runShards { _, evaluator, events in evaluator.advance(to: time, into: &events) } }
    merge(into: &events)
  }

  /// Advances every shard's time (see ``ZoneEvaluator/advance(to:into:)``), appending the
  /// dwells that fire, sorted by time, then device id.
  public func advance(to time: Timestamp, into events: inout [ZoneEvent]) {
    runShards { _, evaluator, events in evaluator.advance(to: time, into: &events) }
    merge(into: &events)
  }

  /// Adds or replaces zones in every shard (see ``ZoneEvaluator/add(_:)-([Zone])``).
  ///
  /// - Throws: ``ZoneError``; no shard changes then.
  public func add(_ zones: [Zone]) throws {
    try applyToEveryShard { try $0.add(zones) }
  }

  /// Replaces every zone in every shard (see ``ZoneEvaluator/replaceAll(with:)``).
  ///
  /// - Throws: ``ZoneError``; no shard changes then.
  public func replaceAll(with zones: [Zone]) throws {
    try applyToEveryShard { try $0.replaceAll(with: zones) }
  }

  /// Removes a zone from every shard; returns whether it was loaded.
  @discardableResult
  public func remove(zoneID: String) -> Bool {
    var removed = false
    for shard in shards {
      removed = shard.state.withLock { $0.evaluator.remove(zoneID: zoneID) }
    }
    return removed
  }

  /// Sorts events by time, then device id, keeping the order of events that tie (a stable
  /// sort): the order of merged shard output.
  public static func sortByTimeAndDevice(_ events: inout [ZoneEvent]) {
    var keyed = events.enumerated().map { (offset: $0.offset, event: $0.element) }
    keyed.sort { a, b in
      if a.event.time != b.event.time { return a.event.time < b.event.time }
      if a.event.device != b.event.device { return a.event.device < b.event.device }
      return a.offset < b.offset
    }
    events = keyed.map(\.event)
  }

  // MARK: - Running the shards

  /// Runs `body` on every shard at once, each on its own thread (under its own, uncontended
  /// lock) with its own event buffer.
  private func runShards(
    _ body: @escaping @Sendable (
      _ shard: Int, _ evaluator: inout ZoneEvaluator, _ events: inout [ZoneEvent]
    ) -> Void
  ) {
    let shards = self.shards
    let step: @Sendable (Int) -> Void = { index in
      shards[index].state.withLock { state in body(index, &state.evaluator, &state.events) }
    }
    if shards.count == 1 {
      step(0)
    } else {
      DispatchQueue.concurrentPerform(iterations: shards.count, execute: step)
    }
  }

  /// Appends every shard's buffered events, sorted by time then device, and empties the
  /// buffers.
  private func merge(into events: inout [ZoneEvent]) {
    var batch: [ZoneEvent] = []
    for shard in shards {
      shard.state.withLock { state in
        batch.append(contentsOf: state.events)
        state.events.removeAll(keepingCapacity: true)
      }
    }
    Self.sortByTimeAndDevice(&batch)
    events.append(contentsOf: batch)
  }

  /// Applies a zone change to shard 0, then (it succeeded, so it is valid) to the others.
  private func applyToEveryShard(_ change: (inout ZoneEvaluator) throws -> Void) throws {
    try shards[0].state.withLock { state in try change(&state.evaluator) }
    for (index, shard) in shards.enumerated().dropFirst() {
      do {
        try shard.state.withLock { state in try change(&state.evaluator) }
      } catch {
        preconditionFailure("Shard \(index) rejected a zone change shard 0 accepted: \(error)")
      }
    }
  }
}
