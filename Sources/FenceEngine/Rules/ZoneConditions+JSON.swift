/// A `conditions` value the engine refuses: where in it (`minSpeed`, `course.from`,
/// `deviceTags.any[1]`) and what was wrong.
public struct ConditionsError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The member's path inside `conditions` (empty for the value itself).
  public var path: String
  /// What was expected and what was found.
  public var message: String

  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }

  public var description: String { path.isEmpty ? "conditions: \(message)" : "conditions.\(path): \(message)" }
}

extension ZoneConditions {
  /// The members `conditions` may have.
  static let memberNames = ["minSpeed", "maxSpeed", "course", "deviceTags"]

  /// Reads the spec's `conditions` object: `minSpeed`, `maxSpeed` (m/s), `course` (`from`, `to`
  /// in degrees 0-360) and `deviceTags` (`any`, `none`: non-empty strings); every member is
  /// optional, and an unknown member is an error (a misspelt condition would otherwise be
  /// ignored and change what triggers).
  public init(json: JSONValue) throws(ConditionsError) {
    guard case .object(let object) = json else {
      throw ConditionsError(path: "", message: "expected an object, got \(json.kindName)")
    }
    self.init()
    for (key, value) in object.members {
      switch key {
      case "minSpeed": minimumSpeed = try Self.speed(value, key)
      case "maxSpeed": maximumSpeed = try Self.speed(value, key)
      case "course": course = try CourseBand(json: value)
      case "deviceTags": deviceTags = try TagCondition(json: value)
      default:
        throw ConditionsError(
          path: key,
          message: "unknown condition: expected one of \(Self.memberNames.joined(separator: ", "))")
      }
    }
    try validate()
  }

  /// Checks values made in code as ``init(json:)`` checks a file's: speeds from 0 to the speed
  /// of light, `minSpeed` at most `maxSpeed`, course ends from 0 to 360, tags non-empty and
  /// `any` not empty when given.
  public func validate() throws(ConditionsError) {
    for (key, speed) in [("minSpeed", minimumSpeed), ("maxSpeed", maximumSpeed)] {
      if let speed, !ValidRange.speed.contains(speed) {
        throw ConditionsError(
          path: key,
          message: "expected metres per second \(ValidRange.describe(ValidRange.speed)), got \(speed)")
      }
    }
    if let minimumSpeed, let maximumSpeed, minimumSpeed > maximumSpeed {
      throw ConditionsError(
        path: "minSpeed",
        message: "minSpeed \(ValidRange.plain(minimumSpeed)) is above maxSpeed \(ValidRange.plain(maximumSpeed))")
    }
    if let course {
      for (key, value) in [("from", course.from), ("to", course.to)] where !(0...360).contains(value) {
        throw ConditionsError(
          path: "course.\(key)", message: "expected degrees from 0 to 360, got \(value)")
      }
    }
    if let deviceTags {
      if deviceTags.any.isEmpty, deviceTags.none.isEmpty {
        throw ConditionsError(path: "deviceTags", message: "expected any or none tags")
      }
      for (key, tags) in [("any", deviceTags.any), ("none", deviceTags.none)] {
        if let k = tags.firstIndex(of: "") {
          throw ConditionsError(path: "deviceTags.\(key)[\(k)]", message: "expected a non-empty tag")
        }
      }
    }
  }

  /// The conditions as the spec's JSON object (members in the order of ``memberNames``, only
  /// those set): ``init(json:)`` reads it back equal.
  public var json: JSONValue {
    var object = JSONObject()
    if let minimumSpeed { object["minSpeed"] = .number(minimumSpeed) }
    if let maximumSpeed { object["maxSpeed"] = .number(maximumSpeed) }
    if let course { object["course"] = .object(["from": .number(course.from), "to": .number(course.to)]) }
    if let deviceTags {
      var tags = JSONObject()
      if !deviceTags.any.isEmpty { tags["any"] = .array(deviceTags.any.map { .string($0) }) }
      if !deviceTags.none.isEmpty { tags["none"] = .array(deviceTags.none.map { .string($0) }) }
      object["deviceTags"] = .object(tags)
    }
    return .object(object)
  }

  private static func speed(_ value: JSONValue, _ key: String) throws(ConditionsError) -> Double {
    guard case .number(let x) = value else {
      throw ConditionsError(path: key, message: "expected metres per second, got \(value.kindName)")
    }
    return x
  }
}

extension ZoneConditions.CourseBand {
  /// Reads `{"from": degrees, "to": degrees}`; both are required.
  init(json: JSONValue) throws(ConditionsError) {
    guard case .object(let object) = json else {
      throw ConditionsError(path: "course", message: "expected an object with from and to, got \(json.kindName)")
    }
    var from: Double?
    var to: Double?
    for (key, value) in object.members {
      guard key == "from" || key == "to" else {
        throw ConditionsError(path: "course.\(key)", message: "unknown member: expected from or to")
      }
      guard case .number(let x) = value else {
        throw ConditionsError(path: "course.\(key)", message: "expected degrees, got \(value.kindName)")
      }
      if key == "from" { from = x } else { to = x }
    }
    guard let from else { throw ConditionsError(path: "course.from", message: "missing") }
    guard let to else { throw ConditionsError(path: "course.to", message: "missing") }
    self.init(from: from, to: to)
  }
}

extension ZoneConditions.TagCondition {
  /// Reads `{"any": [tags], "none": [tags]}`; either may be left out.
  init(json: JSONValue) throws(ConditionsError) {
    guard case .object(let object) = json else {
      throw ConditionsError(path: "deviceTags", message: "expected an object with any and none, got \(json.kindName)")
    }
    self.init()
    for (key, value) in object.members {
      guard key == "any" || key == "none" else {
        throw ConditionsError(path: "deviceTags.\(key)", message: "unknown member: expected any or none")
      }
      guard case .array(let items) = value else {
        throw ConditionsError(path: "deviceTags.\(key)", message: "expected an array of tags, got \(value.kindName)")
      }
      var tags: [String] = []
      for (k, item) in items.enumerated() {
        guard case .string(let tag) = item else {
          throw ConditionsError(path: "deviceTags.\(key)[\(k)]", message: "expected a tag string, got \(item.kindName)")
        }
        tags.append(tag)
      }
      if key == "any" { any = tags } else { none = tags }
    }
  }
}

extension JSONValue {
  /// The value's JSON kind, for error messages: `"null"`, `"a boolean"`, `"a number"`,
  /// `"a string"`, `"an array"`, `"an object"`.
  var kindName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}
