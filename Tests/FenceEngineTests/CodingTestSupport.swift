import FenceEngine
import FenceFormats
import Foundation

/// Helpers for the `Codable` tests: Foundation's coders keep no object member order, so their
/// output is compared with the project's own JSON as values with members sorted.
enum CodingTestSupport {
  /// The JSON value of `text` (read by FenceFormats' reader) with every object's members sorted
  /// by key, so that two texts compare equal when they hold the same JSON in any member order.
  static func canonicalJSON(_ text: String) throws -> JSONValue {
    sortingMembers(try JSONReader.parse(text))
  }

  /// `value` with every object's members sorted by key, at every depth.
  static func sortingMembers(_ value: JSONValue) -> JSONValue {
    switch value {
    case .array(let elements): return .array(elements.map(sortingMembers))
    case .object(let object): return .object(sortingMembers(object))
    case .null, .bool, .number, .string: return value
    }
  }

  /// `object` with its members sorted by key, at every depth.
  static func sortingMembers(_ object: JSONObject) -> JSONObject {
    JSONObject(
      object.members.map { (key: $0.key, value: sortingMembers($0.value)) }
        .sorted { $0.key < $1.key })
  }

  /// `event` with its custom data's members sorted: what survives Foundation's coders exactly.
  static func sortingCustomData(_ event: ZoneEvent) -> ZoneEvent {
    var event = event
    event.customData = event.customData.map(sortingMembers)
    return event
  }

  /// The UTF-8 text of `value` encoded by a `JSONEncoder` with `formatting`.
  static func encodedText(
    _ value: some Encodable, formatting: JSONEncoder.OutputFormatting = []
  ) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  /// `text` decoded by a `JSONDecoder`.
  static func decoded<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
    try JSONDecoder().decode(type, from: Data(text.utf8))
  }
}
