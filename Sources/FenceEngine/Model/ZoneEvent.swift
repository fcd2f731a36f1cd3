import FenceGeometry

/// One event of the engine: a check-in, check-out, dwell, monitored-set change, or (as a
/// diagnostic) a rejected fix.
///
/// A self-contained value: it carries the zone's custom data, the fix's position, speed and
/// course, and everything of the spec's NDJSON examples, so a daemon can forward it as it is.
/// Fields that do not apply to a kind are `nil`.
public struct ZoneEvent: Hashable, Sendable {
  /// What happened.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// A device entered a zone (through a fence) or crossed one of its GEOLINEs.
    case checkIn
    /// A checked-in device left a zone whose rules check out.
    case checkOut
    /// A checked-in device stayed in a zone for the zone's dwell time.
    case dwell
    /// A device's set of monitored fences and GEOLINEs changed (proximity monitoring).
    case monitoredSetChanged
    /// A fix was rejected (diagnostics only).
    case rejected
  }

  /// What caused a check-in.
  public enum Trigger: String, Hashable, Sendable {
    /// The device was found inside a fence.
    case fence
    /// The device's movement crossed a GEOLINE.
    case geoline
  }

  /// Deterministic from (device, zone, fence, kind, time): a replay gives the same ids.
  ///
  /// Any text may be set; an id of 16 lowercase hex digits (every id the engine assigns) is kept
  /// as its 64-bit value and written out when read, so that making an event allocates no id
  /// string. Events compare by the id's text either way.
  public var id: String {
    get {
      switch idStorage {
      case .hash(let value): return FNV1a64(value: value).hexDigits
      case .text(let text): return text
      }
    }
    set { idStorage = IDStorage(newValue) }
  }
  /// The id as the engine keeps it (see ``id``).
  var idStorage: IDStorage
  /// What happened.
  public var kind: Kind
  /// When: the fix's time, a dwell's deadline, the first outside fix of a confirmed exit, or
  /// the interpolated time of a GEOLINE crossing.
  public var time: Timestamp
  /// The device's identifier, as on its fixes.
  public var device: String
  /// The zone's id (zone events only).
  public var zone: String?
  /// The fence or GEOLINE id.
  public var fence: String?
  /// What caused a check-in (check-ins only).
  public var trigger: Trigger?
  /// The crossing's direction, for GEOLINE check-ins.
  public var direction: CrossingDirection?
  /// The fix's position (the crossing point for GEOLINE check-ins).
  public var latitude: Double?
  /// See ``latitude``.
  public var longitude: Double?
  /// Metres per second, copied from the fix when it has one.
  public var speed: Double?
  /// Degrees clockwise from true north, copied from the fix when it has one.
  public var course: Double?
  /// Whether a check-out will follow this check-in (check-ins only).
  public var willCheckOut: Bool?
  /// The zone's custom data (zone events only).
  public var customData: JSONObject?
  /// When the stay began (dwell and check-out).
  public var checkInTime: Timestamp?
  /// The zone's dwell time in seconds (dwell).
  public var dwellSeconds: Double?
  /// Check-out time minus check-in time, in seconds (check-out).
  public var durationSeconds: Double?
  /// Newly monitored ids, sorted (monitoredSetChanged).
  public var on: [String]?
  /// No longer monitored ids, sorted (monitoredSetChanged).
  public var off: [String]?
  /// Why the fix was rejected (rejected).
  public var reason: RejectionReason?
  /// Why a check-out happened without the device leaving (check-outs of rules v2: a schedule
  /// that closed, a zone removed with `exitOnRemove`); written as `reason` like ``reason``.
  public var checkOutReason: CheckOutReason?
  /// The device a roaming fence moves with (events of roaming zones, rules v2).
  public var roamingDevice: String?
  /// Metres from the roaming device's latest fix to this fix (events of roaming zones).
  public var distance: Double?

  /// An event with only its kind, time and device set; the id is filled by ``withDeterministicID()``.
  public init(kind: Kind, time: Timestamp, device: String) {
    self.idStorage = .text("")
    self.kind = kind
    self.time = time
    self.device = device
  }
}

/// An event id: a 64-bit hash shown as 16 lowercase hex digits, or any other text. An id text
/// of exactly 16 lowercase hex digits is always stored as `.hash`, so equal texts are equal
/// storage (the synthesized `Hashable` stays consistent with the text).
enum IDStorage: Hashable, Sendable {
  case hash(UInt64)
  case text(String)

  init(_ text: String) {
    if let value = IDStorage.hexValue(of: text) {
      self = .hash(value)
    } else {
      self = .text(text)
    }
  }

  /// The value of exactly 16 lowercase hex digits, else nil.
  static func hexValue(of text: String) -> UInt64? {
    var value: UInt64 = 0
    var count = 0
    for byte in text.utf8 {
      count += 1
      guard count <= 16 else { return nil }
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(byte - 48)
      case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(byte - 87)
      default: return nil
      }
    }
    return count == 16 ? value : nil
  }
}
