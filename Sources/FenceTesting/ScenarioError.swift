/// A scenario that cannot be run: a time or day that does not parse, or a script step that
/// cannot be followed, naming the device and the step.
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Fault: Hashable, Sendable {
    /// A day is not `YYYY-MM-DD`.
    case invalidDay(String)
    /// A time is neither `HH:MM[:SS[.ffffff]]` nor RFC 3339 UTC (`2026-01-05T10:00:00Z`), nor a
    /// finite number of seconds.
    case invalidTime(String)
    /// A movement, stay or crossing came before the script's first position (use `start`).
    case noStartingPoint
    /// A speed is not a finite number of metres per second above 0.
    case invalidSpeed(Double)
    /// A fix interval is not a finite number of seconds above 0.
    case invalidInterval(Double)
    /// A duration is not a finite number of seconds >= 0.
    case invalidDuration(Double)
    /// A distance (jitter radius, crossing offset) is not a finite number of metres above 0.
    case invalidDistance(Double)
    /// A crossing names a segment the line does not have, or a fraction outside [0, 1].
    case invalidCrossing(String)
    /// A duplicate or out-of-order fix came before any fix to repeat.
    case nothingToRepeat
  }

  /// The device whose script is at fault, if one is.
  public var device: String?
  /// The step's position in its script (0 for the first step), if a step is at fault.
  public var step: Int?
  /// What is wrong.
  public var fault: Fault

  public init(device: String? = nil, step: Int? = nil, fault: Fault) {
    self.device = device
    self.step = step
    self.fault = fault
  }

  public var description: String {
    var place = ""
    if let device { place += "device \"\(device)\"" }
    if let step { place += (place.isEmpty ? "" : ", ") + "step \(step + 1)" }
    return place.isEmpty ? faultDescription : "\(place): \(faultDescription)"
  }

  /// The fault alone, as a sentence fragment that says what to do.
  public var faultDescription: String {
    switch fault {
    case .invalidDay(let text):
      return "\"\(text)\" is not a day; write it as YYYY-MM-DD, such as \"2026-01-05\""
    case .invalidTime(let text):
      return "\"\(text)\" is not a time; write a time of the scenario's day (\"10:00:00\", "
        + "\"10:00:00.5\"), an RFC 3339 UTC instant (\"2026-01-05T10:00:00Z\") or seconds after "
        + "the origin"
    case .noStartingPoint:
      return "the device has no position yet; begin its script with start(at:_:) or fix(at:_:)"
    case .invalidSpeed(let value):
      return "speed must be a finite number of metres per second above 0, got \(value)"
    case .invalidInterval(let value):
      return "the fix interval must be a finite number of seconds above 0, got \(value)"
    case .invalidDuration(let value):
      return "a duration must be a finite number of seconds >= 0, got \(value)"
    case .invalidDistance(let value):
      return "a distance must be a finite number of metres above 0, got \(value)"
    case .invalidCrossing(let message):
      return message
    case .nothingToRepeat:
      return "a duplicate or out-of-order fix needs an earlier fix of the device to repeat"
    }
  }
}
