/// A zone: fences and GEOLINEs that check a device in and out together, with rules and custom
/// data carried on every event of the zone.
public struct Zone: Hashable, Sendable {
  /// Unique among the zones of an evaluator; a load with an existing id replaces that zone.
  public var id: String
  /// A human-readable name (not used by the engine).
  public var name: String?
  /// A human-readable description (not used by the engine).
  public var description: String?
  /// Any JSON object; copied onto every event of this zone.
  public var customData: JSONObject
  /// The areas that make the zone inside; a device is inside the zone when any covers it.
  public var fences: [Fence]
  /// The lines whose crossings check the zone in.
  public var geolines: [Geoline]
  /// The trigger rules; see ``ZoneRules``.
  public var rules: ZoneRules

  /// A zone; at least one fence or GEOLINE is needed to load it into an evaluator.
  public init(
    id: String, name: String? = nil, description: String? = nil, customData: JSONObject = [:],
    fences: [Fence] = [], geolines: [Geoline] = [], rules: ZoneRules = .default
  ) {
    self.id = id
    self.name = name
    self.description = description
    self.customData = customData
    self.fences = fences
    self.geolines = geolines
    self.rules = rules
  }
}
