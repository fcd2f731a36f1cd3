/// The trigger rules of one zone, with the spec's defaults.
///
/// Held in one shared box (8 bytes in a ``Zone``, which holds 48 bytes instead of 88): copies
/// share it, a change makes a copy of the box unless it is the only reference (copy on write),
/// and rules equal to the defaults share one box, so a million zones loaded with the defaults
/// hold one box between them.
public struct ZoneRules: Hashable, Sendable {
  /// Seconds after a window start (check-out, or the check-in itself when no check-out will
  /// follow) during which a new check-in of the same device is suppressed. Default 0.
  public var minimumRetriggerTime: Double {
    get { box.values.minimumRetriggerTime }
    set { update { $0.minimumRetriggerTime = newValue } }
  }
  /// Seconds inside after which a dwell event fires; `nil` means no dwell events.
  public var dwell: Double? {
    get { box.values.dwell }
    set { update { $0.dwell = newValue } }
  }
  /// Whether check-outs are reported (default true).
  public var checkOut: Bool {
    get { box.values.checkOut }
    set { update { $0.checkOut = newValue } }
  }
  /// Whether a device first seen already inside checks in (default true).
  public var initialTrigger: Bool {
    get { box.values.initialTrigger }
    set { update { $0.initialTrigger = newValue } }
  }
  /// Rules v2: when the zone is removed (by a change, by ``validUntil``, or replaced by a zone
  /// no fence of which holds the device), every device checked in to it checks out at that
  /// instant with the reason `zoneRemoved`, instead of its state being dropped silently.
  public var exitOnRemove: Bool {
    get { box.values.exitOnRemove }
    set { update { $0.exitOnRemove = newValue } }
  }
  /// Metres beyond a fence's edge within which a checked-in device still counts as inside
  /// (default 0).
  public var exitHysteresis: Double {
    get { box.values.exitHysteresis }
    set { update { $0.exitHysteresis = newValue } }
  }
  /// Consecutive accepted fixes outside needed to check out (default 1).
  public var exitConfirmations: Int {
    get { box.values.exitConfirmations }
    set { update { $0.exitConfirmations = newValue } }
  }
  /// The rules v2 values below, held behind one reference (`nil` when none is set), so that a
  /// zone without them (most of a million) carries 8 bytes for them instead of 144.
  private(set) var extensions: Extensions? {
    get { box.values.extensions }
    set { update { $0.extensions = newValue } }
  }

  /// Every value, as the box holds them.
  private struct Values: Equatable {
    var minimumRetriggerTime: Double = 0
    var dwell: Double? = nil
    var checkOut = true
    var initialTrigger = true
    var exitOnRemove = false
    var exitHysteresis: Double = 0
    var exitConfirmations = 1
    var extensions: Extensions? = nil

    static func == (a: Values, b: Values) -> Bool {
      a.minimumRetriggerTime == b.minimumRetriggerTime && a.dwell == b.dwell
        && a.checkOut == b.checkOut && a.initialTrigger == b.initialTrigger
        && a.exitHysteresis == b.exitHysteresis && a.exitConfirmations == b.exitConfirmations
        && a.exitOnRemove == b.exitOnRemove
        && (a.extensions === b.extensions || a.extensions?.values == b.extensions?.values)
    }
  }

  /// The box of the values. Its `values` change only while the box is the one reference to it
  /// (``update(_:)``), so no two threads ever see it change: sendable as an immutable value.
  private final class Box: @unchecked Sendable {
    var values: Values
    init(_ values: Values) { self.values = values }
  }

  private var box: Box

  /// The one box of the defaults.
  private static let defaultBox = Box(Values())

  /// Rules holding `values`: the defaults' shared box when they are the defaults.
  ///
  /// (The box is private, and a private class's default description carries its address: see
  /// ``customMirror``.)
  private init(values: Values) {
    box = values == Values() ? Self.defaultBox : Box(values)
  }

  /// Changes the values: in place when this is the box's only reference, else in a new box.
  private mutating func update(_ change: (inout Values) -> Void) {
    if isKnownUniquelyReferenced(&box) {
      change(&box.values)
    } else {
      var values = box.values
      change(&values)
      box = Box(values)
    }
  }

  /// Rules v2: what a fix must pass to count for the zone (speed, course, device tags); `nil`
  /// for none. See ``ZoneConditions``.
  public var conditions: ZoneConditions? {
    get { extensions?.values.conditions }
    set { update(\.conditions, newValue) }
  }
  /// Rules v2: the instant (event time) from which the zone exists; it behaves as added then.
  public var validFrom: Timestamp? {
    get { extensions?.values.validFrom }
    set { update(\.validFrom, newValue) }
  }
  /// Rules v2: the instant (event time) at which the zone stops existing; it behaves as removed
  /// then. Must be after ``validFrom`` when both are set.
  public var validUntil: Timestamp? {
    get { extensions?.values.validUntil }
    set { update(\.validUntil, newValue) }
  }
  /// Rules v2: the weekly windows in which the zone is armed; `nil` for always. See
  /// ``ZoneSchedule``.
  public var schedule: ZoneSchedule? {
    get { extensions?.values.schedule }
    set { update(\.schedule, newValue) }
  }
  /// Rules v2: a circle that moves with devices instead of fixed fences (a zone with `roam` has
  /// no fences or GEOLINEs). See ``RoamingFence``.
  public var roam: RoamingFence? {
    get { extensions?.values.roam }
    set { update(\.roam, newValue) }
  }

  public init(
    minimumRetriggerTime: Double = 0, dwell: Double? = nil, checkOut: Bool = true,
    initialTrigger: Bool = true, exitHysteresis: Double = 0, exitConfirmations: Int = 1,
    conditions: ZoneConditions? = nil, validFrom: Timestamp? = nil, validUntil: Timestamp? = nil,
    exitOnRemove: Bool = false, schedule: ZoneSchedule? = nil, roam: RoamingFence? = nil
  ) {
    self.init(
      minimumRetriggerTime: minimumRetriggerTime, dwell: dwell, checkOut: checkOut,
      initialTrigger: initialTrigger, exitHysteresis: exitHysteresis,
      exitConfirmations: exitConfirmations, exitOnRemove: exitOnRemove,
      extensions: Extensions.holding(
        Extensions.Values(
          conditions: conditions, validFrom: validFrom, validUntil: validUntil,
          schedule: schedule, roam: roam)))
  }

  /// Whether the zone's existence depends on event time (``validFrom``, ``validUntil``).
  public var hasLifetime: Bool { validFrom != nil || validUntil != nil }

  /// The spec's defaults.
  public static let `default` = ZoneRules()

  /// Sets one rules v2 value (a new box: boxes are shared between copies and never change).
  private mutating func update<Value>(
    _ member: WritableKeyPath<Extensions.Values, Value>, _ value: Value
  ) {
    var values = extensions?.values ?? Extensions.Values()
    values[keyPath: member] = value
    extensions = Extensions.holding(values)
  }

  public static func == (a: ZoneRules, b: ZoneRules) -> Bool {
    a.box === b.box || a.box.values == b.box.values
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(minimumRetriggerTime)
    hasher.combine(dwell)
    hasher.combine(checkOut)
    hasher.combine(initialTrigger)
    hasher.combine(exitHysteresis)
    hasher.combine(exitConfirmations)
    hasher.combine(exitOnRemove)
    hasher.combine(extensions?.values)
  }

  /// The rules with these values: how the evaluator makes a zone's rules again from its zone
  /// core (every value but these two) and its zone table (`exitOnRemove`, the rules v2 box).
  init(
    minimumRetriggerTime: Double, dwell: Double?, checkOut: Bool, initialTrigger: Bool,
    exitHysteresis: Double, exitConfirmations: Int, exitOnRemove: Bool, extensions: Extensions?
  ) {
    self.init(
      values: Values(
        minimumRetriggerTime: minimumRetriggerTime, dwell: dwell, checkOut: checkOut,
        initialTrigger: initialTrigger, exitOnRemove: exitOnRemove,
        exitHysteresis: exitHysteresis, exitConfirmations: exitConfirmations,
        extensions: extensions))
  }

  /// The rules v2 values of a zone that has any, immutable and shared by copies of its rules.
  final class Extensions: Sendable {
    struct Values: Hashable, Sendable {
      var conditions: ZoneConditions?
      var validFrom: Timestamp?
      var validUntil: Timestamp?
      var schedule: ZoneSchedule?
      var roam: RoamingFence?

      var isEmpty: Bool {
        conditions == nil && validFrom == nil && validUntil == nil && schedule == nil && roam == nil
      }
    }

    let values: Values

    private init(_ values: Values) { self.values = values }

    /// A box for `values`, or `nil` when none is set (rules equal whichever way they were made).
    static func holding(_ values: Values) -> Extensions? {
      values.isEmpty ? nil : Extensions(values)
    }
  }
}

extension ZoneRules: CustomReflectable {
  /// The values as the children, in the order the rules declare them: what `print` and
  /// `String(describing:)` show, the same text whichever box holds them and in every process
  /// (a daemon's zone files' digest includes the load options' description, defaults included).
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "minimumRetriggerTime": minimumRetriggerTime as Any, "dwell": dwell as Any,
        "checkOut": checkOut as Any, "initialTrigger": initialTrigger as Any,
        "exitOnRemove": exitOnRemove as Any, "exitHysteresis": exitHysteresis as Any,
        "exitConfirmations": exitConfirmations as Any, "extensions": extensions as Any,
      ],
      displayStyle: .struct)
  }
}

