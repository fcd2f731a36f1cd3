/// Rules are coded as the rule members of a zone's GeoJSON settings (a feature's `properties`
/// or a zone's entry in the top-level `zones` member): `minimumRetriggerTime`, `dwell`,
/// `checkOut`, `initialTrigger`, `exitHysteresis` and `exitConfirmations`.
///
/// Encoding writes every rule, `dwell` as `null` when there is none, as `FenceFormats`'
/// `ZoneSetWriter` does: a missing rule means "the loader's default", which the loader's options
/// can change (`--dwell 300`), so leaving one out would not say what these rules are.
///
/// Decoding takes a missing rule as the spec's default (``ZoneRules/default``), `null` for
/// `dwell` as no dwell events, ignores other members (`zoneName`, `customData`, …), and
/// accepts what the zone loader accepts: times and distances finite and >= 0,
/// `exitConfirmations` a whole number from 1 to 1,000,000 (`3.0` too).
extension ZoneRules: Codable {
  private enum CodingKeys: String, CodingKey {
    case minimumRetriggerTime, dwell, checkOut, initialTrigger, exitHysteresis, exitConfirmations
    case schedule, validFrom, validUntil, exitOnRemove, conditions, roam
  }

  /// Reads the rule members.
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the rule for a value the zone loader
  ///   refuses; `DecodingError.typeMismatch` for a value of the wrong JSON type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func amount(_ key: CodingKeys, _ unit: String) throws -> Double? {
      guard let value = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
      guard value.isFinite, value >= 0 else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container,
          debugDescription: "expected a number of \(unit) >= 0, got \(value)")
      }
      return value
    }
    self.init()
    minimumRetriggerTime = try amount(.minimumRetriggerTime, "seconds") ?? minimumRetriggerTime
    dwell = try amount(.dwell, "seconds")
    checkOut = try container.decodeIfPresent(Bool.self, forKey: .checkOut) ?? checkOut
    initialTrigger =
      try container.decodeIfPresent(Bool.self, forKey: .initialTrigger) ?? initialTrigger
    exitHysteresis = try amount(.exitHysteresis, "metres") ?? exitHysteresis
    if let confirmations = try container.decodeIfPresent(Double.self, forKey: .exitConfirmations) {
      guard (1...1_000_000).contains(confirmations), confirmations == confirmations.rounded() else {
        throw DecodingError.dataCorruptedError(
          forKey: .exitConfirmations, in: container,
          debugDescription: "expected a whole number from 1 to 1000000, got \(confirmations)")
      }
      exitConfirmations = Int(confirmations)
    }
    for key in [CodingKeys.schedule, .validFrom, .validUntil, .exitOnRemove, .conditions, .roam] {
      guard let value = try container.decodeIfPresent(JSONValue.self, forKey: key) else { continue }
      do throws(RuleSettingError) {
        try setRuleV2(key.stringValue, value)
      } catch {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container, debugDescription: error.description)
      }
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(minimumRetriggerTime, forKey: .minimumRetriggerTime)
    if let dwell {
      try container.encode(dwell, forKey: .dwell)
    } else {
      try container.encodeNil(forKey: .dwell)
    }
    try container.encode(checkOut, forKey: .checkOut)
    try container.encode(initialTrigger, forKey: .initialTrigger)
    try container.encode(exitHysteresis, forKey: .exitHysteresis)
    try container.encode(exitConfirmations, forKey: .exitConfirmations)
    // Rules v2 only when set: their absence is their default, which no loader option changes.
    for (key, value) in rulesV2JSON.members {
      guard let codingKey = CodingKeys(stringValue: key) else { continue }
      try container.encode(value, forKey: codingKey)
    }
  }
}
