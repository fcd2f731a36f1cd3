/// A JSON value is coded as itself: `null`, a boolean, a number, a string, an array or an
/// object.
extension JSONValue: Codable {
  /// Reads whichever of the six kinds the decoder holds, trying them in the order of the cases.
  ///
  /// - Throws: `DecodingError.dataCorrupted` when the value is none of them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else if let object = try? container.decode(JSONObject.self) {
      self = .object(object)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "expected a JSON value")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let bool): try container.encode(bool)
    case .number(let number): try container.encode(number)
    case .string(let string): try container.encode(string)
    case .array(let array): try container.encode(array)
    case .object(let object): try container.encode(object)
    }
  }
}

/// An object is coded as a keyed container of its members.
///
/// Members are encoded in their order, and decoded in the order the decoder lists its keys.
/// Foundation's `JSONEncoder` and `JSONDecoder` keep neither order (they go through
/// dictionaries), so after a round trip through them an object of several members has the
/// same members, maybe in another order, and compares unequal when the order changed
/// (``JSONObject`` compares members in order). FenceFormats' JSON reader and writer keep it.
extension JSONObject: Codable {
  private struct MemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: MemberKey.self)
    var members: [(key: String, value: JSONValue)] = []
    members.reserveCapacity(container.allKeys.count)
    for key in container.allKeys {
      members.append(
        (key: key.stringValue, value: try container.decode(JSONValue.self, forKey: key)))
    }
    self.init(members)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: MemberKey.self)
    for member in members {
      try container.encode(member.value, forKey: MemberKey(stringValue: member.key))
    }
  }
}
