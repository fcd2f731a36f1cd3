
/// A thread-safe front for daemons: a ``ZoneEvaluator`` behind a lock, with its events
/// delivered on an `AsyncStream`.
///
/// Any thread or task may submit fixes, advance time and change zones; each call is decided
/// under the lock, in the order the calls take it, and its events are then yielded outside the
/// lock, in the order they were decided (whichever caller happens to be yielding delivers the
/// events queued by the others before it returns, so no event overtakes an earlier one).
///
/// ```swift
/// let monitor = try FenceMonitor(zones: zones)
/// Task { for await event in monitor.events { forward(event) } }
/// monitor.submit(fix)                // from any thread
/// monitor.advance(to: heartbeat)     // when no fix arrives, so that dwells fire
/// ```
///
/// One lock serialises every call: a monitor uses one core. For more, see ``ShardedMonitor``.
public final class FenceMonitor: Sendable {
  /// What the lock protects.
  private struct State {
    var evaluator: ZoneEvaluator
    /// Events decided and not yet yielded, in order.
    var outbox: [ZoneEvent] = []
    /// Whether a caller is yielding the outbox (others then leave their events to it).
    var isDelivering = false
  }

  // `LockedValue` takes the evaluator as a `sending` value and hands it out only inside `withLock`,
  // so the non-Sendable evaluator (it may hold GEOS objects) is reached by one thread at a time
  // without any unchecked conformance.
  private let state: LockedValue<State>
  private let continuation: AsyncStream<ZoneEvent>.Continuation
  /// False for the shards of a ``ShardedMonitor``: their stream ends with the sharded monitor.
  private let ownsStream: Bool

  /// Every event of the monitor, in the order the evaluator decided them.
  ///
  /// One consumer; the stream ends with ``finish()`` or when the monitor is released.
  public let events: AsyncStream<ZoneEvent>

  /// A monitor around `evaluator` (its zones, devices and time).
  ///
  /// - Parameter bufferingPolicy: what the stream keeps while its consumer is behind; the
  ///   default keeps everything.
  public init(
    evaluator: consuming sending ZoneEvaluator,
    bufferingPolicy: AsyncStream<ZoneEvent>.Continuation.BufferingPolicy = .unbounded
  ) {
    state = LockedValue(State(evaluator: evaluator))
    (events, continuation) = AsyncStream.makeStream(bufferingPolicy: bufferingPolicy)
    ownsStream = true
  }

  /// A monitor with a new evaluator loaded with `zones` (all or nothing).
  ///
  /// - Throws: ``ZoneError`` for the first invalid zone.
  public convenience init(
    configuration: ZoneEvaluator.Configuration = .default, zones: [Zone],
    bufferingPolicy: AsyncStream<ZoneEvent>.Continuation.BufferingPolicy = .unbounded
  ) throws {
    self.init(
      evaluator: try ZoneEvaluator(configuration: configuration, zones: zones),
      bufferingPolicy: bufferingPolicy)
  }

  /// A monitor that yields into another stream (the shards of a ``ShardedMonitor``).
  init(evaluator: consuming sending ZoneEvaluator, sharing stream: SharedEventStream) {
    state = LockedValue(State(evaluator: evaluator))
    events = stream.events
    continuation = stream.continuation
    ownsStream = false
  }

  deinit {
    if ownsStream { continuation.finish() }
  }

  // MARK: - Input

  /// Processes one fix (see ``ZoneEvaluator/process(_:into:)``).
  public func submit(_ fix: LocationFix) {
    decide { evaluator, events in evaluator.process(fix, into: &events) }
  }

  /// Processes fixes in order under one lock acquisition.
  public func submit(contentsOf fixes: some Sequence<LocationFix>) {
    let batch = Array(fixes)
    decide { evaluator, events in evaluator.process(batch, into: &events) }
  }

  /// Moves the engine's time, firing due dwells (see ``ZoneEvaluator/advance(to:into:)``).
  ///
  /// A daemon calls this when no fix arrives for a while (from the input's watermark, never
  /// from the wall clock if replays must give the same events).
  public func advance(to time: Timestamp) {
    decide { evaluator, events in evaluator.advance(to: time, into: &events) }
  }

  // MARK: - Zones

  /// Adds zones or replaces zones with the same ids (see ``ZoneEvaluator/add(_:)-([Zone])``).
  ///
  /// - Throws: ``ZoneError``; nothing changes then.
  public func add(_ zones: [Zone]) throws {
    try state.withLock { state in try state.evaluator.add(zones) }
  }

  /// Replaces every zone (see ``ZoneEvaluator/replaceAll(with:)``).
  ///
  /// - Throws: ``ZoneError``; nothing changes then.
  public func replaceAll(with zones: [Zone]) throws {
    try state.withLock { state in try state.evaluator.replaceAll(with: zones) }
  }

  /// Removes a zone (see ``ZoneEvaluator/remove(zoneID:)``); returns whether it was loaded.
  @discardableResult
  public func remove(zoneID: String) -> Bool {
    state.withLock { state in state.evaluator.remove(zoneID: zoneID) }
  }

  // MARK: - State

  /// The evaluator's per-device state (see ``ZoneEvaluator/snapshot()``).
  public func snapshot() -> EvaluatorSnapshot {
    state.withLock { state in state.evaluator.snapshot() }
  }

  /// Replaces the per-device state (see ``ZoneEvaluator/restore(_:)``).
  ///
  /// - Throws: ``SnapshotError``; nothing changes then.
  public func restore(_ snapshot: EvaluatorSnapshot) throws {
    try state.withLock { state in try state.evaluator.restore(snapshot) }
  }

  /// The engine's time (see ``ZoneEvaluator/time``).
  public var time: Timestamp? { state.withLock { state in state.evaluator.time } }

  /// How many fixes were accepted.
  public var acceptedFixCount: Int { state.withLock { state in state.evaluator.acceptedFixCount } }

  /// How many fixes were rejected, by reason.
  public var rejections: RejectionCounts { state.withLock { state in state.evaluator.rejections } }

  /// The number of devices seen.
  public var deviceCount: Int { state.withLock { state in state.evaluator.deviceCount } }

  /// Ends ``events`` after the events already yielded; later events are dropped.
  public func finish() { continuation.finish() }

  // MARK: - Deciding under the lock, yielding outside it

  /// Runs `body` on the evaluator under the lock, queueing its events; then, unless another
  /// caller is already yielding, yields the queue outside the lock until it is empty.
  private func decide(_ body: (inout ZoneEvaluator, inout [ZoneEvent]) -> Void) {
    let mustDeliver = state.withLock { state in
      body(&state.evaluator, &state.outbox)
      guard !state.outbox.isEmpty, !state.isDelivering else { return false }
      state.isDelivering = true
      return true
    }
    guard mustDeliver else { return }
    while true {
      let batch = state.withLock { state in
        if state.outbox.isEmpty { state.isDelivering = false }
        defer { state.outbox = [] }
        return state.outbox
      }
      if batch.isEmpty { return }
      for event in batch { continuation.yield(event) }
    }
  }
}

/// One `AsyncStream` of events that several monitors yield into.
struct SharedEventStream: Sendable {
  let events: AsyncStream<ZoneEvent>
  let continuation: AsyncStream<ZoneEvent>.Continuation

  init(bufferingPolicy: AsyncStream<ZoneEvent>.Continuation.BufferingPolicy) {
    (events, continuation) = AsyncStream.makeStream(bufferingPolicy: bufferingPolicy)
  }
}
