import Dispatch

/// A thread-safe front over several shards: one ``FenceMonitor`` per shard, each with its own
/// lock, fixes routed by device id as in ``ShardedEvaluator``, and one stream of events.
///
/// Callers on different threads whose fixes go to different shards proceed in parallel, and
/// ``submit(contentsOf:)`` processes the shards of a batch on one thread each. Each device's
/// events arrive on ``events`` in order; events of devices in different shards interleave as
/// the shards deliver them (sort by time downstream if a total order is needed).
///
/// Time: a shard's dwells fire when that shard's time passes their deadline. A batch ends by
/// advancing every shard to the latest shard time (as ``ShardedEvaluator`` does); single
/// ``submit(_:)`` calls move only their own shard, so a daemon that submits fixes one by one
/// calls ``advance(to:)`` with its input's watermark from time to time (as it would for one
/// evaluator when no fix arrives). After the last fix, ``advance(to:)`` to its time gives every
/// event one evaluator would have given.
public final class ShardedMonitor: Sendable {
  private let monitors: [FenceMonitor]
  private let stream: SharedEventStream

  /// The events of every shard.
  public var events: AsyncStream<ZoneEvent> { stream.events }

  /// `shardCount` shards loaded with `zones` (all or nothing).
  ///
  /// - Throws: ``ZoneError`` for the first invalid zone.
  public init(
    shardCount: Int, configuration: ZoneEvaluator.Configuration = .default, zones: [Zone],
    bufferingPolicy: AsyncStream<ZoneEvent>.Continuation.BufferingPolicy = .unbounded
  ) throws {
    precondition(shardCount >= 1, "A sharded monitor needs at least one shard, got \(shardCount)")
    let stream = SharedEventStream(bufferingPolicy: bufferingPolicy)
    var monitors: [FenceMonitor] = []
    for _ in 0..<shardCount {
      let evaluator = try ZoneEvaluator(configuration: configuration, zones: zones)
      monitors.append(FenceMonitor(evaluator: evaluator, sharing: stream))
    }
    self.monitors = monitors
    self.stream = stream
  }

  deinit { stream.continuation.finish() }

  /// The number of shards.
  public var shardCount: Int { monitors.count }

  /// The shard that holds `device` (see ``ShardedEvaluator/shard(forDevice:shardCount:)``).
  public func shard(forDevice device: String) -> Int {
    ShardedEvaluator.shard(forDevice: device, shardCount: monitors.count)
  }

  /// The latest time of any shard.
  public var time: Timestamp? { monitors.lazy.compactMap(\.time).max() }

  /// Processes one fix in its device's shard.
  public func submit(_ fix: LocationFix) {
    monitors[shard(forDevice: fix.device)].submit(fix)
  }

  /// Processes a batch: each shard its own devices' fixes, in order, on its own thread; then
  /// advances every shard to the latest shard time.
  public func submit(contentsOf fixes: some Sequence<LocationFix>) {
    var routed = Array(repeating: [LocationFix](), count: monitors.count)
    for fix in fixes { routed[shard(forDevice: fix.device)].append(fix) }
    let batches = routed
    DispatchQueue.concurrentPerform(iterations: monitors.count) { shard in
      monitors[shard].submit(contentsOf: batches[shard])
    }
    if let time { advance(to: time) }
  }

  /// Advances every shard's time.
  public func advance(to time: Timestamp) {
    for monitor in monitors { monitor.advance(to: time) }
  }

  /// Adds or replaces zones in every shard, after advancing them all to the latest shard
  /// time (so that no shard drops a dwell another evaluator would have fired).
  ///
  /// Shards change one after the other: a fix submitted meanwhile from another thread may meet
  /// the zones before or after the change, as with one monitor.
  ///
  /// - Throws: ``ZoneError``; no shard changes then.
  public func add(_ zones: [Zone]) throws {
    try applyToEveryShard { try $0.add(zones) }
  }

  /// Replaces every zone in every shard (see ``add(_:)``).
  ///
  /// - Throws: ``ZoneError``; no shard changes then.
  public func replaceAll(with zones: [Zone]) throws {
    try applyToEveryShard { try $0.replaceAll(with: zones) }
  }

  /// Removes a zone from every shard; returns whether it was loaded.
  @discardableResult
  public func remove(zoneID: String) -> Bool {
    if let time { advance(to: time) }
    var removed = false
    for monitor in monitors { removed = monitor.remove(zoneID: zoneID) }
    return removed
  }

  /// Each shard's per-device state, in shard order.
  public func snapshots() -> [EvaluatorSnapshot] { monitors.map { $0.snapshot() } }

  /// Ends ``events``.
  public func finish() { stream.continuation.finish() }

  private func applyToEveryShard(_ change: (FenceMonitor) throws -> Void) throws {
    if let time { advance(to: time) }
    try change(monitors[0])
    for (index, monitor) in monitors.enumerated().dropFirst() {
      do {
        try change(monitor)
      } catch {
        preconditionFailure("Shard \(index) rejected a zone change shard 0 accepted: \(error)")
      }
    }
  }
}
