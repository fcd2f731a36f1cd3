/// The rules of `rules-v2.md` as zone settings: `schedule`, `validFrom`, `validUntil`,
/// `exitOnRemove` and `conditions`, read and written as JSON values by every format that carries
/// zones (zone files, the store's zone sets, `Codable`), so that they agree.
extension ZoneRules {
  /// The setting names of rules v2, in the order they are written.
  public static let v2SettingNames = [
    "schedule", "validFrom", "validUntil", "exitOnRemove", "conditions", "roam",
  ]

  /// Whether any rule of v2 differs from its default.
  public var hasRulesV2: Bool {
    schedule != nil || validFrom != nil || validUntil != nil || exitOnRemove || conditions != nil
      || roam != nil
  }

  /// The v2 rules that differ from their defaults, as zone settings (times in RFC 3339).
  public var rulesV2JSON: JSONObject {
    var object = JSONObject()
    if let schedule { object["schedule"] = schedule.json }
    if let validFrom { object["validFrom"] = .string(RFC3339.format(validFrom)) }
    if let validUntil { object["validUntil"] = .string(RFC3339.format(validUntil)) }
    if exitOnRemove { object["exitOnRemove"] = .bool(true) }
    if let conditions { object["conditions"] = conditions.json }
    if let roam { object["roam"] = roam.json }
    return object
  }

  /// Sets the v2 rule `name` (one of ``v2SettingNames``) from its JSON value.
  ///
  /// - Throws: ``RuleSettingError`` saying what was expected, with the path inside the setting
  ///   for schedules and conditions.
  public mutating func setRuleV2(_ name: String, _ value: JSONValue) throws(RuleSettingError) {
    switch name {
    case "schedule":
      do throws(ScheduleError) {
        schedule = try ZoneSchedule(json: value)
      } catch {
        throw RuleSettingError(setting: name, path: error.path, message: error.message)
      }
    case "validFrom", "validUntil":
      guard case .string(let text) = value, let instant = RFC3339.parse(text) else {
        throw RuleSettingError(
          setting: name, message: "expected an RFC 3339 time such as \"2026-12-24T18:00:00Z\", got \(value.kindName)")
      }
      if name == "validFrom" { validFrom = instant } else { validUntil = instant }
    case "exitOnRemove":
      guard case .bool(let flag) = value else {
        throw RuleSettingError(setting: name, message: "expected true or false, got \(value.kindName)")
      }
      exitOnRemove = flag
    case "conditions":
      do throws(ConditionsError) {
        conditions = try ZoneConditions(json: value)
      } catch {
        throw RuleSettingError(setting: name, path: error.path, message: error.message)
      }
    case "roam":
      roam = try RoamingFence(json: value)
    default:
      throw RuleSettingError(setting: name, message: "not a rule of rules v2")
    }
  }
}

/// A rules-v2 setting the engine refuses: which setting, where inside it, and why.
public struct RuleSettingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// `schedule`, `validFrom`, `validUntil`, `exitOnRemove` or `conditions`.
  public var setting: String
  /// The member inside the setting (`windows[0].days[1]`), empty for the setting itself.
  public var path: String
  /// What was expected and what was found.
  public var message: String

  public init(setting: String, path: String = "", message: String) {
    self.setting = setting
    self.path = path
    self.message = message
  }

  public var description: String {
    path.isEmpty ? "\(setting): \(message)" : "\(setting).\(path): \(message)"
  }
}
