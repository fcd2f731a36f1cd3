/// A zone that cannot be loaded, naming the zone, the fence or GEOLINE when one is at fault,
/// and what is wrong.
///
/// A load that throws changes nothing: the evaluator validates every zone of a load before it
/// applies any of them.
public struct ZoneError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Fault: Hashable, Sendable {
    /// The zone's id is the empty string.
    case emptyZoneID
    /// Two zones of one load have this id.
    case duplicateZoneID
    /// The zone has neither fences nor GEOLINEs.
    case noFencesOrGeolines
    /// A fence or GEOLINE id is the empty string.
    case emptyFenceID
    /// The fence or GEOLINE id is already used by a fence or GEOLINE of `otherZone` (fence and
    /// GEOLINE ids share one namespace across the evaluator).
    case duplicateFenceID(otherZone: String)
    /// `minimumRetriggerTime` is outside ``ValidRange/duration`` (or NaN).
    case invalidMinimumRetriggerTime(Double)
    /// `dwell` is outside ``ValidRange/duration`` (or NaN).
    case invalidDwell(Double)
    /// `exitHysteresis` is outside ``ValidRange/distance`` (or NaN).
    case invalidExitHysteresis(Double)
    /// `exitConfirmations` is outside ``ValidRange/exitConfirmations``.
    case invalidExitConfirmations(Int)
    /// The predicate backend could not prepare the fence's shape (GEOS's message).
    case unpreparableShape(String)
    /// `conditions` holds a value the engine refuses.
    case invalidConditions(ConditionsError)
    /// `schedule` holds a value the engine refuses (an unknown time zone, say).
    case invalidSchedule(ScheduleError)
    /// `roam` holds a value the engine refuses.
    case invalidRoaming(String)
    /// A roaming zone (`roam`) also has fences or GEOLINEs.
    case roamingZoneWithFences
    /// `validUntil` is not after `validFrom`.
    case invalidLifetime(validFrom: Timestamp, validUntil: Timestamp)
  }

  /// The zone's id.
  public var zone: String
  /// The fence or GEOLINE at fault, if the fault is one of them.
  public var fence: String?
  /// What is wrong.
  public var fault: Fault

  /// An error about `zone`, and `fence` (a fence or GEOLINE id) when one is at fault.
  public init(zone: String, fence: String? = nil, fault: Fault) {
    self.zone = zone
    self.fence = fence
    self.fault = fault
  }

  public var description: String {
    let place = fence.map { "zone \"\(zone)\", fence \"\($0)\"" } ?? "zone \"\(zone)\""
    return "\(place): \(faultDescription)"
  }

  /// The fault alone, as a sentence fragment.
  public var faultDescription: String {
    switch fault {
    case .emptyZoneID:
      return "the zone id is empty; give every zone a unique, non-empty id"
    case .duplicateZoneID:
      return "two zones of this load have the same id; zone ids must be unique"
    case .noFencesOrGeolines:
      return "the zone has no fences and no GEOLINEs; give it at least one"
    case .emptyFenceID:
      return "a fence or GEOLINE id is empty; give each a unique, non-empty id"
    case .duplicateFenceID(let other):
      return "the id is already used by a fence or GEOLINE of zone \"\(other)\"; fence and GEOLINE ids must be unique across the engine"
    case .invalidMinimumRetriggerTime(let value):
      return "minimumRetriggerTime must be a number of seconds \(ValidRange.describe(ValidRange.duration)), got \(value)"
    case .invalidDwell(let value):
      return "dwell must be a number of seconds \(ValidRange.describe(ValidRange.duration)), got \(value)"
    case .invalidExitHysteresis(let value):
      return "exitHysteresis must be a number of metres \(ValidRange.describe(ValidRange.distance)), got \(value)"
    case .invalidExitConfirmations(let value):
      return "exitConfirmations must be a whole number \(ValidRange.describe(ValidRange.exitConfirmations)), got \(value)"
    case .unpreparableShape(let message):
      return "the shape could not be prepared: \(message)"
    case .invalidConditions(let error):
      return error.description
    case .invalidSchedule(let error):
      return error.description
    case .invalidRoaming(let message):
      return "roam: \(message)"
    case .roamingZoneWithFences:
      return "a roaming zone (roam) has no fences or GEOLINEs of its own; put them in another zone"
    case .invalidLifetime(let from, let until):
      return "validUntil (\(until)) must be after validFrom (\(from))"
    }
  }
}
