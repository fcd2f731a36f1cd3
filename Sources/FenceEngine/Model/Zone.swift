/// A zone: fences and GEOLINEs that check a device in and out together, with rules and custom
/// data carried on every event of the zone.
public struct Zone: Hashable, Sendable {
  /// Unique among the zones of an evaluator; a load with an existing id replaces that zone.
  public var id: String
  /// Any JSON object; copied onto every event of this zone.
  public var customData: JSONObject
  /// The areas that make the zone inside; a device is inside the zone when any covers it.
  ///
  /// A ``FenceList`` rather than an array so that a zone of one fence (most zones) holds it
  /// inline; it reads and changes like `[Fence]`.
  public var fences: FenceList
  /// The trigger rules; see ``ZoneRules``.
  public var rules: ZoneRules
  /// The name, description and GEOLINEs, when the zone has any: most zones have none, and a
  /// million zones (in a loaded file, and in an evaluator's zone table) then hold 8 bytes each
  /// for them instead of 40.
  private(set) var extras: Extras?

  /// A human-readable name (not used by the engine).
  public var name: String? {
    get { extras?.name }
    set { setExtras(name: newValue, description: description, geolines: geolines) }
  }

  /// A human-readable description (not used by the engine).
  public var description: String? {
    get { extras?.description }
    set { setExtras(name: name, description: newValue, geolines: geolines) }
  }

  /// The lines whose crossings check the zone in.
  public var geolines: [Geoline] {
    get { extras?.geolines ?? [] }
    set { setExtras(name: name, description: description, geolines: newValue) }
  }

  /// A zone; at least one fence or GEOLINE is needed to load it into an evaluator.
  public init(
    id: String, name: String? = nil, description: String? = nil, customData: JSONObject = [:],
    fences: [Fence] = [], geolines: [Geoline] = [], rules: ZoneRules = .default
  ) {
    self.id = id
    self.customData = customData
    self.fences = FenceList(fences)
    self.rules = rules
    setExtras(name: name, description: description, geolines: geolines)
  }

  /// A zone whose fences are another zone's (a ``FenceList``); otherwise as the initializer
  /// that takes an array.
  public init(
    id: String, name: String? = nil, description: String? = nil, customData: JSONObject = [:],
    fences: FenceList, geolines: [Geoline] = [], rules: ZoneRules = .default
  ) {
    self.init(
      id: id, name: name, description: description, customData: customData, geolines: geolines,
      rules: rules)
    self.fences = fences
  }

  public static func == (a: Zone, b: Zone) -> Bool {
    a.id == b.id && a.name == b.name && a.description == b.description
      && a.customData == b.customData && a.fences == b.fences && a.geolines == b.geolines
      && a.rules == b.rules
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
    hasher.combine(name)
    hasher.combine(description)
    hasher.combine(customData)
    hasher.combine(fences)
    hasher.combine(geolines)
    hasher.combine(rules)
  }

  /// A zone from the parts the evaluator keeps apart (its zone table holds the box, not the
  /// three values).
  init(id: String, customData: JSONObject, fences: FenceList, rules: ZoneRules, extras: Extras?) {
    self.id = id
    self.customData = customData
    self.fences = fences
    self.rules = rules
    self.extras = extras
  }

  /// Immutable, so that copies of a zone share it safely; a change makes a new one.
  final class Extras: Sendable {
    let name: String?
    let description: String?
    let geolines: [Geoline]

    init(name: String?, description: String?, geolines: [Geoline]) {
      self.name = name
      self.description = description
      self.geolines = geolines
    }
  }

  private mutating func setExtras(name: String?, description: String?, geolines: [Geoline]) {
    extras =
      name == nil && description == nil && geolines.isEmpty
      ? nil : Extras(name: name, description: description, geolines: geolines)
  }
}
