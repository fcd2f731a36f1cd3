/// A zone's `roam` setting (rules v2, "Roaming fences"): a circle that moves with each device
/// matching `around`, centred on that device's latest accepted fix; devices matching `targets`
/// check in when their fix is within the radius of such a device.
///
/// ```json
/// "roam": {"radius": 500, "around": {"tags": ["tug"]}, "targets": {"tags": ["barge"]}}
/// ```
///
/// State, MRT and dwell are per (target, roaming device) pair; events name the roaming device
/// and the distance. Only the target's fixes are evaluated against the moving circles.
public struct RoamingFence: Hashable, Sendable {
  /// Metres, above 0.
  public var radius: Double
  /// The devices that carry the circle.
  public var around: DeviceSelector
  /// The devices that check in; `nil`: every device (never the carrier itself).
  public var targets: DeviceSelector?

  public init(radius: Double, around: DeviceSelector, targets: DeviceSelector? = nil) {
    self.radius = radius
    self.around = around
    self.targets = targets
  }

  /// A set of devices, by tag: those that carry at least one of `tags`.
  public struct DeviceSelector: Hashable, Sendable {
    /// Non-empty tags; a device matches when it carries any of them.
    public var tags: [String]

    public init(tags: [String]) { self.tags = tags }

    /// Whether a device with `tags` (sorted, unique) matches.
    public func matches(_ deviceTags: [String]) -> Bool {
      tags.contains { sortedContains(deviceTags, $0) }
    }
  }
}

extension RoamingFence {
  /// Reads the spec's `roam` object: `radius` (metres above 0, at most 10,000 km), `around`
  /// (`{"tags": [...]}`, required) and `targets` (the same, optional).
  public init(json: JSONValue) throws(RuleSettingError) {
    func fail(_ path: String, _ message: String) -> RuleSettingError {
      RuleSettingError(setting: "roam", path: path, message: message)
    }
    guard case .object(let object) = json else {
      throw fail("", "expected an object with radius, around and targets, got \(json.kindName)")
    }
    var radius: Double?
    var around: DeviceSelector?
    var targets: DeviceSelector?
    for (key, value) in object.members {
      switch key {
      case "radius":
        let expected =
          "expected metres above 0 and at most \(ValidRange.plain(ValidRange.distance.upperBound))"
        guard case .number(let x) = value else { throw fail(key, "\(expected), got \(value.kindName)") }
        guard x > 0, ValidRange.distance.contains(x) else {
          throw fail(key, "\(expected), got \(ValidRange.plain(x))")
        }
        radius = x
      case "around", "targets":
        let selector = try DeviceSelector(json: value, path: key)
        if key == "around" { around = selector } else { targets = selector }
      default:
        throw fail(key, "unknown member: expected radius, around or targets")
      }
    }
    guard let radius else { throw fail("radius", "missing") }
    guard let around else { throw fail("around", "missing") }
    self.init(radius: radius, around: around, targets: targets)
  }

  /// The setting as the spec's JSON object; ``init(json:)`` reads it back equal.
  public var json: JSONValue {
    var object: JSONObject = ["radius": .number(radius), "around": around.json]
    if let targets { object["targets"] = targets.json }
    return .object(object)
  }
}

extension RoamingFence.DeviceSelector {
  init(json: JSONValue, path: String) throws(RuleSettingError) {
    func fail(_ member: String, _ message: String) -> RuleSettingError {
      RuleSettingError(setting: "roam", path: member, message: message)
    }
    guard case .object(let object) = json else {
      throw fail(path, "expected an object with tags, got \(json.kindName)")
    }
    var tags: [String]?
    for (key, value) in object.members {
      guard key == "tags" else { throw fail("\(path).\(key)", "unknown member: expected tags") }
      guard case .array(let items) = value, !items.isEmpty else {
        throw fail("\(path).tags", "expected a non-empty array of tags")
      }
      var list: [String] = []
      for (k, item) in items.enumerated() {
        guard case .string(let tag) = item, !tag.isEmpty else {
          throw fail("\(path).tags[\(k)]", "expected a non-empty tag string")
        }
        list.append(tag)
      }
      tags = list
    }
    guard let tags else { throw fail("\(path).tags", "missing") }
    self.init(tags: tags)
  }

  var json: JSONValue { .object(["tags": .array(tags.map { .string($0) })]) }
}
