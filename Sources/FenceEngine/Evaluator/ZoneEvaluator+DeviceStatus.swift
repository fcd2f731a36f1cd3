/// What an evaluator knows about one device, for a daemon's device endpoint or a dashboard.
public struct DeviceStatus: Hashable, Sendable {
  /// The last accepted fix, as the engine keeps it (no accuracy: the engine does not keep it).
  public struct LastFix: Hashable, Sendable {
    public var time: Timestamp
    public var latitude: Double
    public var longitude: Double
    public var speed: Double?
    public var course: Double?
  }

  /// A zone the device is inside.
  public struct Presence: Hashable, Sendable {
    public var zone: String
    /// Whether the stay was checked in; `false` when the device is inside without a check-in
    /// (initial trigger off, or the zone's minimum retrigger time suppressed it).
    public var checkedIn: Bool
    /// The check-in's time and fence, when ``checkedIn``.
    public var checkInTime: Timestamp?
    public var checkInFence: String?
    /// Whether a check-out is pending confirmation (exit confirmations).
    public var exitPending: Bool
  }

  public var device: String
  /// `nil` when every fix of the device was rejected.
  public var lastFix: LastFix?
  /// Sorted by zone id.
  public var inside: [Presence]
  /// Fence and GEOLINE ids of the monitored set (proximity monitoring), sorted.
  public var monitored: [String]
  /// The device's tags (rules v2 `deviceTags` conditions), sorted.
  public var tags: [String] = []
}

extension ZoneEvaluator {
  /// The state of the device named `device`, or `nil` when the evaluator never saw it.
  ///
  /// - Complexity: O(*r* log *r*) for the *r* zones the device has state with.
  public func deviceStatus(named device: String) -> DeviceStatus? {
    guard let slot = deviceSlot(named: device) else { return nil }
    let state = snapshotDevice(slot: Int(slot))
    let lastFix = state.lastFix.map {
      DeviceStatus.LastFix(
        time: $0.time, latitude: $0.latitude, longitude: $0.longitude, speed: $0.speed,
        course: $0.course)
    }
    var inside: [DeviceStatus.Presence] = []
    for record in state.records where record.presence != .outside {
      let checkedIn = record.presence == .checkedIn
      inside.append(
        .init(
          zone: record.zone, checkedIn: checkedIn,
          checkInTime: checkedIn ? record.checkInTime : nil,
          checkInFence: checkedIn ? record.checkInFence : nil, exitPending: record.exit != nil))
    }
    return DeviceStatus(
      device: device, lastFix: lastFix, inside: inside, monitored: state.monitored,
      tags: state.tags)
  }

  /// The earliest pending dwell timer, if any: advancing the engine to it fires at least that
  /// dwell, unless its stay has since ended (a stale timer, which fires nothing). A daemon with
  /// a wall clock advances when this is due instead of every second.
  public var nextDwellDeadline: Timestamp? { dwellQueue.nextDeadline }

  /// The earliest instant at which moving the engine's time on does something: a dwell timer
  /// (``nextDwellDeadline``) or a zone's lifetime or schedule change (rules v2). A daemon with a
  /// wall clock advances when this is due, so that a window closing at 19:00 checks devices out
  /// at 19:00 even when no fix arrives.
  public var nextTimerDeadline: Timestamp? {
    var next = dwellQueue.nextDeadline
    if let clock = zoneClock.nextDeadline {
      // A change waiting for the next step is due now.
      let due = clock == .earliest ? (time ?? clock) : clock
      if next.map({ due < $0 }) ?? true { next = due }
    }
    return next
  }
}
