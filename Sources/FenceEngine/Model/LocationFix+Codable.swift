/// A fix is coded as one object of the NDJSON track format and the daemon's wire format:
/// `{"device":…,"time":…,"lat":…,"lon":…}`, then `accuracy`, `speed` and `course` when
/// reported (left out, not `null`, when not).
///
/// `time` is RFC 3339 text (see ``Timestamp``). Decoding takes members in any order, ignores
/// unknown ones, and reads `null` for an optional member as not reported. Like the type, it
/// keeps coordinates as given: the engine rejects impossible ones with a reason.
extension LocationFix: Codable {
  private enum CodingKeys: String, CodingKey {
    case device, time, lat, lon, accuracy, speed, course
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      device: try container.decode(String.self, forKey: .device),
      time: try container.decode(Timestamp.self, forKey: .time),
      latitude: try container.decode(Double.self, forKey: .lat),
      longitude: try container.decode(Double.self, forKey: .lon),
      accuracy: try container.decodeIfPresent(Double.self, forKey: .accuracy),
      speed: try container.decodeIfPresent(Double.self, forKey: .speed),
      course: try container.decodeIfPresent(Double.self, forKey: .course))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(device, forKey: .device)
    try container.encode(time, forKey: .time)
    try container.encode(latitude, forKey: .lat)
    try container.encode(longitude, forKey: .lon)
    try container.encodeIfPresent(accuracy, forKey: .accuracy)
    try container.encodeIfPresent(speed, forKey: .speed)
    try container.encodeIfPresent(course, forKey: .course)
  }
}
