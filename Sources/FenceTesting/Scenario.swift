/// A zone-rule test in a few lines: zones, the scripted movement of one or more devices, and
/// changes over time, run through a real ``ZoneEvaluator``.
///
/// ```swift
/// var scenario = Scenario(day: "2026-01-05")
/// scenario.add(try .circle("depot", center: depot, radius: 100, rules: .init(dwell: 300)))
/// scenario.add(DeviceScript("truck").start(at: depot, "10:00:00").fix(at: away, "10:07:00"))
/// let result = try scenario.run()
/// result.expectEvents([
///   .checkIn("depot", at: "10:00:00"),
///   .dwell("depot", at: "10:05:00"),
///   .checkOut("depot", at: "10:07:00", duration: 420),
/// ])
/// ```
///
/// ## Order of the feed
///
/// Every device's fixes keep their script order; scripts are merged by time (a k-way merge, so
/// an out-of-order fix is fed right after the fix it follows in its script). At equal times,
/// scheduled changes (``at(_:_:)``, ``advance(to:)``) come before fixes, and fixes of scripts
/// added earlier come before those of scripts added later.
public struct Scenario: Sendable {
  /// A change to the engine at a scheduled time.
  public enum Change: Sendable {
    /// Adds zones; a zone whose id is loaded replaces it (device state kept).
    case add([Zone])
    /// Replaces every loaded zone (see ``ZoneEvaluator/replaceAll(with:)``).
    case replaceAll([Zone])
    /// Removes a zone by id (device state dropped, no event).
    case remove(zoneID: String)
    /// Moves the engine's time forward (``ZoneEvaluator/advance(to:into:)``), firing due dwells.
    case advance
    /// Sets a device's tags (``ZoneEvaluator/setTags(_:forDevice:)``), read by zones'
    /// `deviceTags` conditions from the device's next fix.
    case setTags(device: String, tags: [String])

    /// Adds one zone, or replaces the zone with its id.
    public static func add(_ zone: Zone) -> Change { .add([zone]) }
  }

  /// The scenario's day (`YYYY-MM-DD`, UTC): `"10:00:00"` means that time of this day.
  public var day: String
  /// The time of `day` that number literals count from (default midnight).
  public var origin: String
  /// How the evaluator is configured.
  public var configuration: ZoneEvaluator.Configuration
  /// The zones loaded before the first fix.
  public var zones: [Zone]
  /// The device scripts, in the order they were added.
  public var scripts: [DeviceScript] = []
  /// Scheduled changes, in the order they were added.
  public var changes: [(time: ScenarioTime, change: Change)] = []
  /// Device tags set before the first fix (rules v2 `deviceTags` conditions).
  public var deviceTags: [String: [String]] = [:]

  /// An empty scenario on `day`, whose number literals count seconds from `origin`.
  public init(
    day: String = "2026-01-05", origin: String = "00:00:00",
    configuration: ZoneEvaluator.Configuration = .default, zones: [Zone] = []
  ) {
    self.day = day
    self.origin = origin
    self.configuration = configuration
    self.zones = zones
  }

  /// Loads a zone before the first fix.
  public mutating func add(_ zone: Zone) {
    zones.append(zone)
  }

  /// Adds a device's script.
  public mutating func add(_ script: DeviceScript) {
    scripts.append(script)
  }

  /// Schedules a change of the zones (or an advance) at `time`.
  public mutating func at(_ time: ScenarioTime, _ change: Change) {
    changes.append((time, change))
  }

  /// Schedules an explicit advance of the engine's time to `time`.
  public mutating func advance(to time: ScenarioTime) {
    changes.append((time, .advance))
  }

  /// The clock of this scenario's day and origin.
  ///
  /// - Throws: ``ScenarioError`` when the day or origin does not parse.
  public func clock() throws -> ScenarioClock {
    try ScenarioClock(day: day, origin: origin)
  }

  /// Every fix of every script, in the order they are fed to the engine (see the type's
  /// discussion of the feed's order).
  public func feed() throws -> [LocationFix] {
    try timeline(clock()).compactMap {
      if case .fix(let fix) = $0.entry { return fix }
      return nil
    }
  }

  /// Runs the scenario through a fresh ``ZoneEvaluator``: loads ``zones`` and ``deviceTags``,
  /// feeds the timeline, then, when `end` is given, advances the engine's time to it.
  ///
  /// The events a zone change causes (rules v2: check-outs of `exitOnRemove` zones, of a
  /// replaced zone whose schedule is closed) follow the change, stamped with the engine's time
  /// then (the last fix or advance); schedule an ``advance(to:)`` at the change's time first to
  /// stamp them there.
  ///
  /// - Throws: ``ScenarioError`` for a time, day or script step that cannot be followed;
  ///   ``ZoneError`` for a zone the engine refuses.
  public func run(until end: ScenarioTime? = nil) throws -> ScenarioResult {
    let clock = try clock()
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones)
    for device in deviceTags.keys.sorted() {
      evaluator.setTags(deviceTags[device] ?? [], forDevice: device)
    }
    var events: [ZoneEvent] = []
    var fed: [LocationFix] = []
    for item in try timeline(clock) {
      switch item.entry {
      case .fix(let fix):
        evaluator.process(fix, into: &events)
        fed.append(fix)
      case .change(.add(let zones)):
        try evaluator.add(zones)
        evaluator.emitZoneChangeEvents(into: &events)
      case .change(.replaceAll(let zones)):
        try evaluator.replaceAll(with: zones)
        evaluator.emitZoneChangeEvents(into: &events)
      case .change(.remove(let id)):
        evaluator.remove(zoneID: id)
        evaluator.emitZoneChangeEvents(into: &events)
      case .change(.advance):
        evaluator.advance(to: item.time, into: &events)
      case .change(.setTags(let device, let tags)):
        evaluator.setTags(tags, forDevice: device)
      }
    }
    if let end { evaluator.advance(to: try clock.timestamp(end), into: &events) }
    return ScenarioResult(
      events: events, rejections: evaluator.rejections,
      acceptedFixCount: evaluator.acceptedFixCount, fixes: fed, clock: clock)
  }

  // MARK: - Timeline

  struct TimelineItem {
    enum Entry {
      case fix(LocationFix)
      case change(Change)
    }
    var time: Timestamp
    var entry: Entry
  }

  /// Scheduled changes (stably sorted by time) and every script's fixes, merged by time.
  func timeline(_ clock: ScenarioClock) throws -> [TimelineItem] {
    var queues: [[TimelineItem]] = []
    var scheduled: [TimelineItem] = []
    for (time, change) in changes {
      scheduled.append(TimelineItem(time: try clock.timestamp(time), entry: .change(change)))
    }
    // A stable sort: equal times keep the order the changes were scheduled in.
    let order = scheduled.indices.sorted {
      (scheduled[$0].time, $0) < (scheduled[$1].time, $1)
    }
    queues.append(order.map { scheduled[$0] })
    for script in scripts {
      queues.append(
        try script.fixes(on: clock).map { TimelineItem(time: $0.time, entry: .fix($0)) })
    }
    // k-way merge: always take the earliest head; ties go to the queue added first.
    var heads = Array(repeating: 0, count: queues.count)
    var merged: [TimelineItem] = []
    merged.reserveCapacity(queues.reduce(0) { $0 + $1.count })
    while true {
      var best: Int?
      for q in queues.indices where heads[q] < queues[q].count {
        if let b = best, queues[b][heads[b]].time <= queues[q][heads[q]].time { continue }
        best = q
      }
      guard let q = best else { break }
      merged.append(queues[q][heads[q]])
      heads[q] += 1
    }
    return merged
  }
}
