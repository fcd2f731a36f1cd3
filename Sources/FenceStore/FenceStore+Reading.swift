import FenceEngine
import FenceFormats
import Foundation

extension FenceStore {
  /// The most events one read returns.
  public static let maximumEventsPerRead = 100_000

  /// Events with seq greater than `seq`, at most `limit` (capped at
  /// ``maximumEventsPerRead``), in seq order. Events dropped by ``compact(eventRetention:now:)``
  /// are not returned: the first event may then have a seq above `seq + 1`.
  public func events(after seq: Int64 = 0, limit: Int = 1000) throws -> [StoredEvent] {
    try storage.events(after: max(seq, 0), limit: max(0, min(limit, Self.maximumEventsPerRead)))
  }

  /// ``events(after:limit:)`` off the caller's executor.
  public func events(after seq: Int64 = 0, limit: Int = 1000) async throws -> [StoredEvent] {
    try await withCheckedThrowingContinuation { continuation in
      readQueue.async {
        continuation.resume(with: Result { try self.events(after: seq, limit: limit) })
      }
    }
  }

  /// The last committed event seq (0 before any event).
  public var lastEventSeq: Int64 { head.seq }

  /// Waits until an event with seq greater than `seq` is committed, `timeout` passes, the task
  /// is cancelled or the store closes; returns the last event seq then.
  public func waitForEvents(after seq: Int64, timeout: Duration) async -> Int64 {
    await head.wait(after: seq, timeout: timeout)
  }

  /// Every event after `seq`, then each new one as it is committed, until the task is cancelled
  /// or the store closes. Reads in pages of `pageSize`, only as fast as the consumer pulls.
  public func eventStream(after seq: Int64 = 0, pageSize: Int = 1000) -> EventStream {
    EventStream(store: self, after: seq, pageSize: pageSize)
  }

  /// The loaded zones, sorted by id.
  public var zones: [Zone] { engine.withLock { $0.evaluator.zones } }

  /// Every loaded zone as GeoJSON (``FenceFormats/ZoneSetWriter``), written on the first read
  /// after a zone change: a large zone set is not written (and validated) again per read.
  public func zoneSetGeoJSON() throws -> [UInt8] {
    try engine.withLock { state in
      if state.geoJSONZoneSet?.version != state.zoneVersion {
        state.geoJSONZoneSet = (state.zoneVersion, try ZoneSetWriter.bytes(state.evaluator.zones))
      }
      return state.geoJSONZoneSet!.bytes
    }
  }

  /// The zone with this id, if loaded.
  public func zone(id: String) -> Zone? { engine.withLock { $0.evaluator.zone(id: id) } }

  /// The state of one device, `nil` when the engine never saw it.
  public func deviceStatus(named device: String) -> DeviceStatus? {
    engine.withLock { $0.evaluator.deviceStatus(named: device) }
  }

  /// The earliest pending dwell timer (see ``FenceEngine/ZoneEvaluator/nextDwellDeadline``).
  public var nextDwellDeadline: Timestamp? { engine.withLock { $0.evaluator.nextDwellDeadline } }

  /// The earliest pending timer, dwell or zone clock (see
  /// ``FenceEngine/ZoneEvaluator/nextTimerDeadline``).
  public var nextTimerDeadline: Timestamp? { engine.withLock { $0.evaluator.nextTimerDeadline } }

  /// Counts for metrics and health pages.
  public var statistics: Statistics {
    engine.withLock { state in
      Statistics(
        commandSeq: state.commandSeq, eventSeq: state.eventSeq,
        devices: state.evaluator.deviceCount, zones: state.evaluator.zoneCount,
        elements: state.evaluator.elementCount, acceptedFixes: state.evaluator.acceptedFixCount,
        rejections: state.evaluator.rejections, engineTime: state.evaluator.time,
        lastSnapshotCommandSeq: state.lastSnapshot?.commandSeq,
        lastSnapshotAt: state.lastSnapshot?.takenAt,
        commandsSinceSnapshot: state.commandsSinceSnapshot,
        lastSnapshotSeconds: state.lastSnapshotSeconds)
    }
  }

  /// A moment's counts of a store.
  public struct Statistics: Hashable, Sendable {
    public var commandSeq: Int64
    public var eventSeq: Int64
    public var devices: Int
    public var zones: Int
    /// Fences and GEOLINEs.
    public var elements: Int
    public var acceptedFixes: Int
    public var rejections: RejectionCounts
    public var engineTime: Timestamp?
    public var lastSnapshotCommandSeq: Int64?
    public var lastSnapshotAt: Date?
    public var commandsSinceSnapshot: Int
    /// How long the last snapshot took to make and write (in the background; 0 before the
    /// first). A snapshot holds no request up, but takes a processor for that long.
    public var lastSnapshotSeconds: Double
  }

  // MARK: - Delivery cursors

  /// A named delivery cursor (the last seq a consumer confirmed), `nil` when never set.
  public func cursor(named name: String) throws -> Int64? { try storage.cursor(name) }

  /// Moves a named delivery cursor, durably.
  public func setCursor(named name: String, to seq: Int64) throws {
    try storage.setCursor(name, to: seq)
  }
}

/// The events of a store from a seq on, waiting for new ones (see
/// ``FenceStore/eventStream(after:pageSize:)``).
public struct EventStream: AsyncSequence, Sendable {
  public typealias Element = StoredEvent
  let store: FenceStore
  let after: Int64
  let pageSize: Int

  public func makeAsyncIterator() -> Iterator {
    Iterator(store: store, cursor: after, pageSize: pageSize)
  }

  public struct Iterator: AsyncIteratorProtocol {
    let store: FenceStore
    var cursor: Int64
    let pageSize: Int
    var page: [StoredEvent] = []
    var index = 0

    public mutating func next() async throws -> StoredEvent? {
      while index == page.count {
        if Task.isCancelled || store.head.isClosed { return nil }
        page = try await store.events(after: cursor, limit: pageSize)
        index = 0
        if page.isEmpty { _ = await store.waitForEvents(after: cursor, timeout: .seconds(30)) }
      }
      let event = page[index]
      index += 1
      cursor = event.seq
      return event
    }
  }
}
