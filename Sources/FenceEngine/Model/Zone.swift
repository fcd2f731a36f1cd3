/// A zone: fences and GEOLINEs that check a device in and out together, with rules and custom
/// data carried on every event of the zone.
public struct Zone: Hashable, Sendable {
  public var id: String
  public var name: String?
  public var description: String?
  /// Any JSON object; copied onto every event of this zone.
  public var customData: JSONObject
  public var fences: [Fence]
  public var geolines: [Geoline]
  public var rules: ZoneRules

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
