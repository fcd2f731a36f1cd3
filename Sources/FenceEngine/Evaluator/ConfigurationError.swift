/// An engine setting outside its valid range (``ZoneEvaluator/Configuration/validate()``).
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The setting's name in ``ZoneEvaluator/Configuration`` (`proximity.count`).
  public var setting: String
  /// What the setting must be, as a sentence fragment.
  public var reason: String
  /// The value given, as text.
  public var value: String

  public init(setting: String, reason: String, value: String) {
    self.setting = setting
    self.reason = reason
    self.value = value
  }

  /// `proximity.count must be a whole number from 1 to 1000000, got 0`.
  public var description: String { "\(setting) \(reason), got \(value)" }
}
