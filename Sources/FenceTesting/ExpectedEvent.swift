/// An event a test expects, naming only the fields that matter to it.
///
/// The kind, zone and time are always compared; the fence, device, direction, duration,
/// monitored ids and rejection reason only when given. Times are exact (to the microsecond)
/// unless ``within(_:)`` allows a tolerance; durations are compared to within a microsecond.
///
/// ```swift
/// .checkIn("depot", at: "10:00:00")
/// .dwell("depot", at: "10:05:00", device: "truck")
/// .checkOut("depot", at: "10:07:00", duration: 420)
/// .checkIn("gate", at: "10:00:10", direction: .leftToRight)
/// .monitoredSetChanged(on: ["a", "b"], off: [], at: "10:00:00")
/// ```
public struct ExpectedEvent: Hashable, Sendable {
  public var kind: ZoneEvent.Kind
  /// The zone's id (`nil` for kinds without a zone: monitored-set changes, rejections).
  public var zone: String?
  public var time: ScenarioTime
  /// Seconds the actual time may differ by (default 0: exact).
  public var timeTolerance: Double = 0
  /// The fence or GEOLINE id, compared when given.
  public var fence: String?
  /// The device, compared when given.
  public var device: String?
  /// A GEOLINE crossing's direction, compared when given.
  public var direction: CrossingDirection?
  /// A check-out's duration in seconds, compared when given.
  public var durationSeconds: Double?
  /// Newly monitored ids, compared when given.
  public var on: [String]?
  /// No longer monitored ids, compared when given.
  public var off: [String]?
  /// A rejection's reason, compared when given.
  public var reason: RejectionReason?
  /// A check-out's reason (rules v2: `scheduleClosed`, `zoneRemoved`), compared when given.
  public var checkOutReason: CheckOutReason?

  public init(
    kind: ZoneEvent.Kind, zone: String?, at time: ScenarioTime, fence: String? = nil,
    device: String? = nil, direction: CrossingDirection? = nil, durationSeconds: Double? = nil,
    on: [String]? = nil, off: [String]? = nil, reason: RejectionReason? = nil,
    checkOutReason: CheckOutReason? = nil
  ) {
    self.kind = kind
    self.zone = zone
    self.time = time
    self.fence = fence
    self.device = device
    self.direction = direction
    self.durationSeconds = durationSeconds
    self.on = on
    self.off = off
    self.reason = reason
    self.checkOutReason = checkOutReason
  }

  /// A check-in of `zone`; give `direction` for a GEOLINE crossing.
  public static func checkIn(
    _ zone: String, at time: ScenarioTime, fence: String? = nil, device: String? = nil,
    direction: CrossingDirection? = nil
  ) -> ExpectedEvent {
    ExpectedEvent(
      kind: .checkIn, zone: zone, at: time, fence: fence, device: device, direction: direction)
  }

  /// A check-out of `zone`, optionally with its duration in seconds and its reason (a check-out
  /// the zone caused: a schedule that closed, a removal with `exitOnRemove`).
  public static func checkOut(
    _ zone: String, at time: ScenarioTime, duration: Double? = nil, fence: String? = nil,
    device: String? = nil, reason: CheckOutReason? = nil
  ) -> ExpectedEvent {
    ExpectedEvent(
      kind: .checkOut, zone: zone, at: time, fence: fence, device: device,
      durationSeconds: duration, checkOutReason: reason)
  }

  /// A dwell in `zone`.
  public static func dwell(
    _ zone: String, at time: ScenarioTime, fence: String? = nil, device: String? = nil
  ) -> ExpectedEvent {
    ExpectedEvent(kind: .dwell, zone: zone, at: time, fence: fence, device: device)
  }

  /// A change of the monitored set (ids sorted, as the engine reports them).
  public static func monitoredSetChanged(
    on: [String], off: [String], at time: ScenarioTime, device: String? = nil
  ) -> ExpectedEvent {
    ExpectedEvent(
      kind: .monitoredSetChanged, zone: nil, at: time, device: device, on: on, off: off)
  }

  /// A rejected fix (only reported when ``ZoneEvaluator/Configuration/reportsRejections`` is on).
  public static func rejected(
    _ reason: RejectionReason, at time: ScenarioTime, device: String? = nil
  ) -> ExpectedEvent {
    ExpectedEvent(kind: .rejected, zone: nil, at: time, device: device, reason: reason)
  }

  /// This expectation, allowing the actual time to differ by up to `seconds`.
  public func within(_ seconds: Double) -> ExpectedEvent {
    var copy = self
    copy.timeTolerance = seconds
    return copy
  }
}

extension ExpectedEvent {
  /// The fields of an expectation that an actual event does not match (empty when it matches),
  /// by their names in the diff: `time`, `kind`, `zone`, `fence`, ...
  func mismatches(_ event: ZoneEvent, expectedTime: Timestamp) -> [String] {
    var fields: [String] = []
    let slack = Int64((max(0, timeTolerance) * 1_000_000).rounded())
    if abs(event.time.microsecondsSinceEpoch - expectedTime.microsecondsSinceEpoch) > slack {
      fields.append("time")
    }
    if event.kind != kind { fields.append("kind") }
    if event.zone != zone { fields.append("zone") }
    if let fence, event.fence != fence { fields.append("fence") }
    if let device, event.device != device { fields.append("device") }
    if let direction, event.direction != direction { fields.append("direction") }
    if let durationSeconds {
      if let actual = event.durationSeconds, abs(actual - durationSeconds) <= 1e-6 {
      } else {
        fields.append("duration")
      }
    }
    if let on, event.on != on { fields.append("on") }
    if let off, event.off != off { fields.append("off") }
    if let reason, event.reason != reason { fields.append("reason") }
    if let checkOutReason, event.checkOutReason != checkOutReason { fields.append("reason") }
    return fields
  }
}
