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

  public init(
    minimumRetriggerTime: Double = 0, dwell: Double? = nil, checkOut: Bool = true,
    initialTrigger: Bool = true, exitHysteresis: Double = 0, exitConfirmations: Int = 1
  ) {
    self.minimumRetriggerTime = minimumRetriggerTime
    self.dwell = dwell
    self.checkOut = checkOut
    self.initialTrigger = initialTrigger
    self.exitHysteresis = exitHysteresis
    self.exitConfirmations = exitConfirmations
  }

  /// The spec's defaults.
  public static let `default` = ZoneRules()
}
