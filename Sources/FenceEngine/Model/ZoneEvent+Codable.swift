import FenceGeometry

/// An event is coded as one line of the events NDJSON: the same members as
/// `FenceFormats`' `ndjsonLine`, in the same order when the encoder keeps order, with the
/// members that are `nil` left out (never written as `null`).
///
/// `id`, `kind`, `time` and `device` always; then `zone`, `fence`, `trigger`, `direction`,
/// `lat`, `lon`, `speed`, `course`, `willCheckOut`, `customData`, `checkInTime`,
/// `dwellSeconds`, `durationSeconds`, `on`, `off` and `reason` when set. Times are RFC 3339
/// text (see ``Timestamp``); kinds, triggers, directions and reasons are their raw values.
///
/// Decoding reads what `ZoneEvent(ndjsonLine:)` reads, except that times must be RFC 3339:
/// members in any order, unknown ones ignored (so the `seq` of the daemon's event lines is
/// skipped), `null` for a member that may be absent, and a missing `id` as the empty id.
/// Numbers are the encoder's: `JSONEncoder` writes a check-out's duration of 754 s as `754`
/// where `ndjsonLine` writes `754.0`, the same JSON number.
extension ZoneEvent: Codable {
  private enum CodingKeys: String, CodingKey {
    case id, kind, time, device, zone, fence, trigger, direction
    case lat, lon, speed, course, willCheckOut, customData
    case checkInTime, dwellSeconds, durationSeconds, on, off, reason, roamingDevice, distance
  }

  /// Reads an event line's members.
  ///
  /// - Throws: `DecodingError` when `kind`, `time` or `device` is missing, or a member has the
  ///   wrong type or an unknown raw value.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      kind: try container.decode(Kind.self, forKey: .kind),
      time: try container.decode(Timestamp.self, forKey: .time),
      device: try container.decode(String.self, forKey: .device))
    id = try container.decodeIfPresent(String.self, forKey: .id) ?? ""
    zone = try container.decodeIfPresent(String.self, forKey: .zone)
    fence = try container.decodeIfPresent(String.self, forKey: .fence)
    trigger = try container.decodeIfPresent(Trigger.self, forKey: .trigger)
    direction = try container.decodeIfPresent(CrossingDirection.self, forKey: .direction)
    latitude = try container.decodeIfPresent(Double.self, forKey: .lat)
    longitude = try container.decodeIfPresent(Double.self, forKey: .lon)
    speed = try container.decodeIfPresent(Double.self, forKey: .speed)
    course = try container.decodeIfPresent(Double.self, forKey: .course)
    willCheckOut = try container.decodeIfPresent(Bool.self, forKey: .willCheckOut)
    customData = try container.decodeIfPresent(JSONObject.self, forKey: .customData)
    checkInTime = try container.decodeIfPresent(Timestamp.self, forKey: .checkInTime)
    dwellSeconds = try container.decodeIfPresent(Double.self, forKey: .dwellSeconds)
    durationSeconds = try container.decodeIfPresent(Double.self, forKey: .durationSeconds)
    on = try container.decodeIfPresent([String].self, forKey: .on)
    off = try container.decodeIfPresent([String].self, forKey: .off)
    roamingDevice = try container.decodeIfPresent(String.self, forKey: .roamingDevice)
    distance = try container.decodeIfPresent(Double.self, forKey: .distance)
    if kind == .rejected {
      reason = try container.decodeIfPresent(RejectionReason.self, forKey: .reason)
    } else {
      checkOutReason = try container.decodeIfPresent(CheckOutReason.self, forKey: .reason)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(kind, forKey: .kind)
    try container.encode(time, forKey: .time)
    try container.encode(device, forKey: .device)
    try container.encodeIfPresent(zone, forKey: .zone)
    try container.encodeIfPresent(fence, forKey: .fence)
    try container.encodeIfPresent(trigger, forKey: .trigger)
    try container.encodeIfPresent(direction, forKey: .direction)
    try container.encodeIfPresent(latitude, forKey: .lat)
    try container.encodeIfPresent(longitude, forKey: .lon)
    try container.encodeIfPresent(speed, forKey: .speed)
    try container.encodeIfPresent(course, forKey: .course)
    try container.encodeIfPresent(willCheckOut, forKey: .willCheckOut)
    try container.encodeIfPresent(customData, forKey: .customData)
    try container.encodeIfPresent(checkInTime, forKey: .checkInTime)
    try container.encodeIfPresent(dwellSeconds, forKey: .dwellSeconds)
    try container.encodeIfPresent(durationSeconds, forKey: .durationSeconds)
    try container.encodeIfPresent(on, forKey: .on)
    try container.encodeIfPresent(off, forKey: .off)
    try container.encodeIfPresent(roamingDevice, forKey: .roamingDevice)
    try container.encodeIfPresent(distance, forKey: .distance)
    try container.encodeIfPresent(reason, forKey: .reason)
    if reason == nil { try container.encodeIfPresent(checkOutReason, forKey: .reason) }
  }
}

/// A kind is coded as its raw value (`"checkIn"`, `"checkOut"`, …).
extension ZoneEvent.Kind: Codable {}

/// A trigger is coded as its raw value (`"fence"`, `"geoline"`).
extension ZoneEvent.Trigger: Codable {}
