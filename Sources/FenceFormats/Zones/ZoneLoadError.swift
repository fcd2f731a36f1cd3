/// Why a zones file was not loaded, naming the file, the feature (index and id) or entry of
/// the top-level `zones` member, the property, and what was expected.
///
/// `feature 3 (id "dock-2", zone "docks"): property "radius": expected a number of metres > 0, got "abc"`
public struct ZoneLoadError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file's path, when loading from a file.
  public var file: String?
  /// 0-based index of the feature in `features`.
  public var featureIndex: Int?
  /// The feature's fence id, when known.
  public var featureID: String?
  /// The entry of the top-level `zones` member, when the problem is there; for a feature, the
  /// zone it belongs to, when its `zone` property names one other than its id.
  public var zone: String?
  /// The property (or member, such as `geometry`) at fault.
  public var property: String?
  /// What is wrong and what was expected.
  public var message: String

  public init(
    file: String? = nil, featureIndex: Int? = nil, featureID: String? = nil,
    zone: String? = nil, property: String? = nil, message: String
  ) {
    self.file = file
    self.featureIndex = featureIndex
    self.featureID = featureID
    self.zone = zone
    self.property = property
    self.message = message
  }

  public var description: String {
    var parts: [String] = []
    if let file { parts.append(file) }
    if let featureIndex {
      var named: [String] = []
      if let featureID { named.append("id \(quoted(featureID))") }
      if let zone { named.append("zone \(quoted(zone))") }
      parts.append(
        named.isEmpty
          ? "feature \(featureIndex)" : "feature \(featureIndex) (\(named.joined(separator: ", ")))")
    } else if let zone {
      parts.append("zones member \(quoted(zone))")
    }
    if let property { parts.append("property \(quoted(property))") }
    parts.append(message)
    return parts.joined(separator: ": ")
  }
}

/// A string as a JSON literal, for messages.
func quoted(_ s: String) -> String {
  var out = ""
  JSONWriter.appendString(s, to: &out)
  return out
}
