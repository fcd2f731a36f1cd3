/// The trigger rules of one zone, with the spec's defaults.
public struct ZoneRules: Hashable, Sendable {
  /// Seconds after a window start (check-out, or the check-in itself when no check-out will
  /// follow) during which a new check-in of the same device is suppressed. Default 0.
  public var minimumRetriggerTime: Double
  /// Seconds inside after which a dwell event fires; `nil` means no dwell events.
  public var dwell: Double?
  /// Whether check-outs are reported (default true).
  public var checkOut: Bool
  /// Whether a device first seen already inside checks in (default true).
  public var initialTrigger: Bool
  /// Metres beyond a fence's edge within which a checked-in device still counts as inside
  /// (default 0).
  public var exitHysteresis: Double
  /// Consecutive accepted fixes outside needed to check out (default 1).
  public var exitConfirmations: Int
  /// Rules v2: what a fix must pass to count for the zone (speed, course, device tags); `nil`
  /// for none. See ``ZoneConditions``.
  public var conditions: ZoneConditions?
  /// Rules v2: the instant (event time) from which the zone exists; it behaves as added then.
  public var validFrom: Timestamp?
  /// Rules v2: the instant (event time) at which the zone stops existing; it behaves as removed
  /// then. Must be after ``validFrom`` when both are set.
  public var validUntil: Timestamp?
  /// Rules v2: when the zone is removed (by a change, by ``validUntil``, or replaced by a zone
  /// no fence of which holds the device), every device checked in to it checks out at that
  /// instant with the reason `zoneRemoved`, instead of its state being dropped silently.
  public var exitOnRemove: Bool
  /// Rules v2: the weekly windows in which the zone is armed; `nil` for always. See
  /// ``ZoneSchedule``.
  public var schedule: ZoneSchedule?
  /// Rules v2: a circle that moves with devices instead of fixed fences (a zone with `roam` has
  /// no fences or GEOLINEs). See ``RoamingFence``.
  public var roam: RoamingFence?

  public init(
    minimumRetriggerTime: Double = 0, dwell: Double? = nil, checkOut: Bool = true,
    initialTrigger: Bool = true, exitHysteresis: Double = 0, exitConfirmations: Int = 1,
    conditions: ZoneConditions? = nil, validFrom: Timestamp? = nil, validUntil: Timestamp? = nil,
    exitOnRemove: Bool = false, schedule: ZoneSchedule? = nil, roam: RoamingFence? = nil
  ) {
    self.minimumRetriggerTime = minimumRetriggerTime
    self.dwell = dwell
    self.checkOut = checkOut
    self.initialTrigger = initialTrigger
    self.exitHysteresis = exitHysteresis
    self.exitConfirmations = exitConfirmations
    self.conditions = conditions
    self.validFrom = validFrom
    self.validUntil = validUntil
    self.exitOnRemove = exitOnRemove
    self.schedule = schedule
    self.roam = roam
  }

  /// Whether the zone's existence depends on event time (``validFrom``, ``validUntil``).
  public var hasLifetime: Bool { validFrom != nil || validUntil != nil }

  /// The spec's defaults.
  public static let `default` = ZoneRules()
}
