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
  /// Any text may be set; an id of 16 lowercase hex digits is kept as its 64-bit value and
  /// written out when read, so that making an event allocates no id string. The id the engine
  /// assigns (``assignDeterministicID()``) is not even hashed until it is read: the event keeps
  /// only a mark, and reading `id` hashes the device, zone, fence (or roaming device), kind and
  /// time the event holds. Changing one of those six fields afterwards first fixes the id as it
  /// was (the fields' observers), so an assigned id never changes. Events compare by the id's
  /// text either way.
  ///
  /// - Complexity: O(1) for a set id; O(*n*) in the UTF-8 length of the device, zone and fence
  ///   ids for an assigned one, at every read (read it once where it is needed many times).
  public var id: String {
    get {
      switch idStorage {
      case .hash(let value): return FNV1a64(value: value).hexDigits
      case .text(let text): return text
      case .ofContent: return FNV1a64(value: contentIDHash).hexDigits
      }
    }
    set { idStorage = IDStorage(newValue) }
  }
  /// The id as the engine keeps it (see ``id``).
  var idStorage: IDStorage
  // The one-byte fields next, in the padding after the id's tag byte; then the eight-byte
  // ones. The optional numbers are kept as plain values with a bit each in `present` (an
  // optional `Double` takes 16 bytes in a row of them): 184 bytes instead of 264, which the
  // per-fix path writes for every event and moves into the caller's array.
  /// What happened.
  public var kind: Kind {
    willSet { freezeContentID() }
  }
  /// What caused a check-in (check-ins only).
  public var trigger: Trigger?
  /// The crossing's direction, for GEOLINE check-ins.
  public var direction: CrossingDirection?
  /// Whether a check-out will follow this check-in (check-ins only).
  public var willCheckOut: Bool?
  /// Why the fix was rejected (rejected).
  public var reason: RejectionReason?
  /// Why a check-out happened without the device leaving (check-outs of rules v2: a schedule
  /// that closed, a zone removed with `exitOnRemove`); written as `reason` like ``reason``.
  public var checkOutReason: CheckOutReason?
  /// Which of the optional numbers are set (``Present``); an unset one's value is 0, so that
  /// the synthesized equality and hash see only the set ones.
  private var present: Present = []
  /// When: the fix's time, a dwell's deadline, the first outside fix of a confirmed exit, or
  /// the interpolated time of a GEOLINE crossing.
  public var time: Timestamp {
    willSet { freezeContentID() }
  }
  /// The device's identifier, as on its fixes.
  public var device: String {
    willSet { freezeContentID() }
  }
  /// The zone's id (zone events only).
  public var zone: String? {
    get { zoneStorage }
    set {
      freezeContentID()
      zoneStorage = newValue
    }
  }
  /// ``zone``, stored without an observer, so that ``initializeZoneFields(zone:customData:fence:)``
  /// can write it in place.
  private var zoneStorage: String?
  /// The fence or GEOLINE id.
  public var fence: String? {
    get { fenceStorage }
    set {
      freezeContentID()
      fenceStorage = newValue
    }
  }
  /// ``fence``, stored without an observer (see ``zoneStorage``).
  private var fenceStorage: String?
  private var latitudeValue = 0.0
  private var longitudeValue = 0.0
  private var speedValue = 0.0
  private var courseValue = 0.0
  private var checkInMicroseconds: Int64 = 0
  private var dwellValue = 0.0
  private var durationValue = 0.0
  private var distanceValue = 0.0
  /// The zone's custom data (zone events only).
  public var customData: JSONObject?
  /// Newly monitored ids, sorted (monitoredSetChanged).
  public var on: [String]?
  /// No longer monitored ids, sorted (monitoredSetChanged).
  public var off: [String]?
  /// The device a roaming fence moves with (events of roaming zones, rules v2).
  public var roamingDevice: String? {
    willSet { freezeContentID() }
  }

  /// Which optional numbers of an event are set.
  private struct Present: OptionSet, Hashable, Sendable {
    let rawValue: UInt8
    static let latitude = Present(rawValue: 1)
    static let longitude = Present(rawValue: 2)
    static let speed = Present(rawValue: 4)
    static let course = Present(rawValue: 8)
    static let checkInTime = Present(rawValue: 16)
    static let dwell = Present(rawValue: 32)
    static let duration = Present(rawValue: 64)
    static let distance = Present(rawValue: 128)
  }

  @inline(__always)
  private func value(_ value: Double, if member: Present) -> Double? {
    present.contains(member) ? value : nil
  }

  /// Stores `newValue` (0 when nil) and its bit.
  @inline(__always)
  private static func store(
    _ newValue: Double?, in value: inout Double, _ member: Present, of present: inout Present
  ) {
    if let newValue {
      value = newValue
      present.insert(member)
    } else {
      value = 0
      present.remove(member)
    }
  }

  /// The fix's position (the crossing point for GEOLINE check-ins).
  public var latitude: Double? {
    @inline(__always) get { value(latitudeValue, if: .latitude) }
    @inline(__always) set { Self.store(newValue, in: &latitudeValue, .latitude, of: &present) }
  }
  /// See ``latitude``.
  public var longitude: Double? {
    @inline(__always) get { value(longitudeValue, if: .longitude) }
    @inline(__always) set { Self.store(newValue, in: &longitudeValue, .longitude, of: &present) }
  }
  /// Metres per second, copied from the fix when it has one.
  public var speed: Double? {
    @inline(__always) get { value(speedValue, if: .speed) }
    @inline(__always) set { Self.store(newValue, in: &speedValue, .speed, of: &present) }
  }
  /// Degrees clockwise from true north, copied from the fix when it has one.
  public var course: Double? {
    @inline(__always) get { value(courseValue, if: .course) }
    @inline(__always) set { Self.store(newValue, in: &courseValue, .course, of: &present) }
  }
  /// When the stay began (dwell and check-out).
  public var checkInTime: Timestamp? {
    @inline(__always) get {
      present.contains(.checkInTime)
        ? Timestamp(microsecondsSinceEpoch: checkInMicroseconds) : nil
    }
    @inline(__always) set {
      checkInMicroseconds = newValue?.microsecondsSinceEpoch ?? 0
      if newValue == nil { present.remove(.checkInTime) } else { present.insert(.checkInTime) }
    }
  }
  /// The zone's dwell time in seconds (dwell).
  public var dwellSeconds: Double? {
    @inline(__always) get { value(dwellValue, if: .dwell) }
    @inline(__always) set { Self.store(newValue, in: &dwellValue, .dwell, of: &present) }
  }
  /// Check-out time minus check-in time, in seconds (check-out).
  public var durationSeconds: Double? {
    @inline(__always) get { value(durationValue, if: .duration) }
    @inline(__always) set { Self.store(newValue, in: &durationValue, .duration, of: &present) }
  }
  /// Metres from the roaming device's latest fix to this fix (events of roaming zones).
  public var distance: Double? {
    @inline(__always) get { value(distanceValue, if: .distance) }
    @inline(__always) set { Self.store(newValue, in: &distanceValue, .distance, of: &present) }
  }

  /// An event with only its kind, time and device set; the id is filled by ``withDeterministicID()``.
  public init(kind: Kind, time: Timestamp, device: String) {
    self.idStorage = .text("")
    self.kind = kind
    self.time = time
    self.device = device
  }

  /// An event with only its kind, time and device set, for the per-fix step, which sets the
  /// rest where the event lies in its array and then assigns the id
  /// (``assignDeterministicID()``). Its placeholder id is a hash, not text: replacing it
  /// releases nothing.
  init(placeholderKind kind: Kind, time: Timestamp, device: String) {
    self.idStorage = .hash(0)
    self.kind = kind
    self.time = time
    self.device = device
  }

  /// Gives a placeholder (``init(placeholderKind:time:device:)``) its zone, custom data and
  /// fence, where it lies in the per-fix step's array of events.
  ///
  /// The three are `nil` in a placeholder, which holds no reference for them: they are
  /// initialized over, not assigned. Assignments released each `nil` they replaced and ran the
  /// id's observer, with retains and releases around them: 5.5 % of the instructions a fix on
  /// tracks with two events a fix (`Benchmarks/Scripts/count-instructions`; Docs/Scaling.md,
  /// "What is left", item 2). A whole event made first and then appended is copied field by
  /// field, retains included, into the array instead of moved.
  @inline(__always)
  mutating func initializeZoneFields(zone: String?, customData: JSONObject?, fence: String?) {
    assert(zoneStorage == nil && self.customData == nil && fenceStorage == nil)
    withUnsafeMutablePointer(to: &zoneStorage) { $0.initialize(to: zone) }
    withUnsafeMutablePointer(to: &self.customData) { $0.initialize(to: customData) }
    withUnsafeMutablePointer(to: &fenceStorage) { $0.initialize(to: fence) }
  }

  /// ``assignDeterministicID()`` for a placeholder whose id is still the blank hash it was made
  /// with (``init(placeholderKind:time:device:)``): the mark is written over it, which holds no
  /// reference, without destroying it first. An assignment destroys the old id through a call
  /// (it may be text), and the compiler kept the event's fence id retained across that call:
  /// about 40 instructions an event.
  @inline(__always)
  mutating func assignDeterministicIDOverPlaceholder() {
    assert(idStorage == .hash(0))
    withUnsafeMutablePointer(to: &idStorage) { $0.initialize(to: .ofContent) }
  }
}

extension ZoneEvent {
  /// Field by field, as a synthesized equality would, but with the ids resolved
  /// (``resolvedIDStorage``): an id assigned from the content equals the same id set as text.
  /// The ids are compared last, since resolving one hashes the content.
  ///
  /// Every stored property is compared; `ZoneEventStorageTests` counts them, so a new one
  /// must be added here.
  public static func == (a: ZoneEvent, b: ZoneEvent) -> Bool {
    guard a.kind == b.kind, a.time == b.time, a.device == b.device, a.zone == b.zone,
      a.fence == b.fence, a.trigger == b.trigger, a.direction == b.direction,
      a.willCheckOut == b.willCheckOut, a.reason == b.reason,
      a.checkOutReason == b.checkOutReason, a.present == b.present,
      a.latitudeValue == b.latitudeValue, a.longitudeValue == b.longitudeValue,
      a.speedValue == b.speedValue, a.courseValue == b.courseValue,
      a.checkInMicroseconds == b.checkInMicroseconds, a.dwellValue == b.dwellValue,
      a.durationValue == b.durationValue, a.distanceValue == b.distanceValue,
      a.customData == b.customData, a.on == b.on, a.off == b.off,
      a.roamingDevice == b.roamingDevice
    else { return false }
    if case .ofContent = a.idStorage, case .ofContent = b.idStorage {
      // The same content (compared above) gives the same id.
      return true
    }
    return a.resolvedIDStorage == b.resolvedIDStorage
  }

  /// The fields an assigned id is made of: equal events (``==(_:_:)``) hash alike, and an
  /// assigned id is not hashed for it (it is a function of these fields or equal to a stored
  /// one only when they are equal too).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
    hasher.combine(time)
    hasher.combine(device)
    hasher.combine(zone)
    hasher.combine(fence)
  }
}

/// An event id: a 64-bit hash shown as 16 lowercase hex digits, any other text, or the mark
/// that it is the deterministic id of the event's own content, hashed when read. An id text of
/// exactly 16 lowercase hex digits is always stored as `.hash`, so equal texts are equal
/// storage once `.ofContent` is resolved (``ZoneEvent/resolvedIDStorage``); events compare the
/// resolved storage.
enum IDStorage: Hashable, Sendable {
  case hash(UInt64)
  case text(String)
  /// ``ZoneEvent/deterministicID(device:zone:fence:kind:time:)`` of the event's own device,
  /// zone, fence (or roaming device), kind and time: what ``ZoneEvent/assignDeterministicID()``
  /// sets, without hashing anything until the id is read.
  case ofContent

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
