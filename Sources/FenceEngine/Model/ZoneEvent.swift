import FenceGeometry

/// One event of the engine: a check-in, check-out, dwell, monitored-set change, or (as a
/// diagnostic) a rejected fix.
///
/// A self-contained value: it carries the zone's custom data, the fix's position, speed and
/// course, and everything of the spec's NDJSON examples, so a daemon can forward it as it is.
/// Fields that do not apply to a kind are `nil`.
public struct ZoneEvent: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    case checkIn, checkOut, dwell, monitoredSetChanged, rejected
  }

  /// What caused a check-in.
  public enum Trigger: String, Hashable, Sendable {
    case fence, geoline
  }

  /// Deterministic from (device, zone, fence, kind, time): a replay gives the same ids.
  public var id: String
  public var kind: Kind
  public var time: Timestamp
  public var device: String
  public var zone: String?
  /// The fence or GEOLINE id.
  public var fence: String?
  public var trigger: Trigger?
  /// The crossing's direction, for GEOLINE check-ins.
  public var direction: CrossingDirection?
  /// The fix's position (the crossing point for GEOLINE check-ins).
  public var latitude: Double?
  public var longitude: Double?
  public var speed: Double?
  public var course: Double?
  public var willCheckOut: Bool?
  public var customData: JSONObject?
  public var checkInTime: Timestamp?
  public var dwellSeconds: Double?
  public var durationSeconds: Double?
  /// Newly monitored ids, sorted (monitoredSetChanged).
  public var on: [String]?
  /// No longer monitored ids, sorted (monitoredSetChanged).
  public var off: [String]?
  public var reason: RejectionReason?

  /// An event with only its kind, time and device set; the id is filled by ``withDeterministicID()``.
  public init(kind: Kind, time: Timestamp, device: String) {
    self.id = ""
    self.kind = kind
    self.time = time
    self.device = device
  }
}
