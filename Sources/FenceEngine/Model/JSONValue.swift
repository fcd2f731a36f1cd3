/// A JSON value, kept with its object keys in their original order.
///
/// Zones carry their `customData` as a ``JSONObject`` and every event of the zone carries the
/// same value, so a daemon can forward events without looking anything up.
public indirect enum JSONValue: Hashable, Sendable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number (JSON numbers are read as `Double`).
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object, keys in their original order.
  case object(JSONObject)
}

/// A JSON object whose members keep the order they were given in.
///
/// Keys are unique: setting an existing key replaces its value in place.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
  /// The members in their order.
  public private(set) var members: [(key: String, value: JSONValue)]

  /// An empty object.
  public init() { members = [] }

  /// An object of `members`; a repeated key keeps its first position and its last value.
  /// An object from members in order; a repeated key keeps its first position and its last
  /// value (as assigning through the subscript would), in time linear in the member count.
  public init(_ members: [(key: String, value: JSONValue)]) {
    var positions: [String: Int] = [:]
    positions.reserveCapacity(members.count)
    var unique: [(key: String, value: JSONValue)] = []
    unique.reserveCapacity(members.count)
    for member in members {
      if let position = positions[member.key] {
        unique[position].value = member.value
      } else {
        positions[member.key] = unique.count
        unique.append(member)
      }
    }
    self.members = unique
  }

  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self.init(elements.map { (key: $0.0, value: $0.1) })
  }

  /// Whether the object has no members.
  public var isEmpty: Bool { members.isEmpty }
  /// The number of members.
  public var count: Int { members.count }
  /// The keys in their order.
  public var keys: [String] { members.map(\.key) }

  /// The value of `key`; setting `nil` removes the member, setting a new key appends it.
  ///
  /// - Complexity: O(*n*) for *n* members.
  public subscript(key: String) -> JSONValue? {
    get { members.first { $0.key == key }?.value }
    set {
      if let index = members.firstIndex(where: { $0.key == key }) {
        if let newValue { members[index].value = newValue } else { members.remove(at: index) }
      } else if let newValue {
        members.append((key: key, value: newValue))
      }
    }
  }

  public static func == (a: JSONObject, b: JSONObject) -> Bool {
    a.members.count == b.members.count
      && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(members.count)
    for member in members {
      hasher.combine(member.key)
      hasher.combine(member.value)
    }
  }
}
