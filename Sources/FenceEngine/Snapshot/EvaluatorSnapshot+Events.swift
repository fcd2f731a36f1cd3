import FenceGeometry

// Events in a snapshot: the check-outs of zone changes made without an event list
// (`exitOnRemove`), which wait in the evaluator until its next call. Their zone may be gone, so
// they are kept whole (custom data included), not as ids to be looked up on restore.

/// The optional fields of an event, one bit each, in the order they are written.
private enum EventField: Int, CaseIterable {
  case zone, fence, trigger, direction, latitude, longitude, speed, course, willCheckOut
  case customData, checkInTime, dwellSeconds, durationSeconds, on, off, reason
  case checkOutReason, roamingDevice, distance

  var bit: UInt64 { 1 << UInt64(rawValue) }
}

/// The tags of ``JSONValue`` cases.
private enum JSONTag: UInt8 {
  case null, falseValue, trueValue, number, string, array, object
}

/// Custom data nested deeper than this is refused on decoding (the engine never writes it: a
/// zone's custom data comes from a JSON parser with the same limit), so that a crafted snapshot
/// cannot exhaust the stack.
let snapshotJSONDepthLimit = 512

extension SnapshotWriter {
  /// An event: its kind, id, device and time, a bit set of the optional fields present, then
  /// those fields in ``EventField`` order. Enumerations are written as their raw text, so that a
  /// case added later cannot change the meaning of an old snapshot.
  mutating func event(_ event: ZoneEvent, base: Int64) {
    string(event.kind.rawValue)
    string(event.id)
    string(event.device)
    time(event.time, base: base)
    var present: UInt64 = 0
    func mark(_ field: EventField, _ isPresent: Bool) { if isPresent { present |= field.bit } }
    mark(.zone, event.zone != nil)
    mark(.fence, event.fence != nil)
    mark(.trigger, event.trigger != nil)
    mark(.direction, event.direction != nil)
    mark(.latitude, event.latitude != nil)
    mark(.longitude, event.longitude != nil)
    mark(.speed, event.speed != nil)
    mark(.course, event.course != nil)
    mark(.willCheckOut, event.willCheckOut != nil)
    mark(.customData, event.customData != nil)
    mark(.checkInTime, event.checkInTime != nil)
    mark(.dwellSeconds, event.dwellSeconds != nil)
    mark(.durationSeconds, event.durationSeconds != nil)
    mark(.on, event.on != nil)
    mark(.off, event.off != nil)
    mark(.reason, event.reason != nil)
    mark(.checkOutReason, event.checkOutReason != nil)
    mark(.roamingDevice, event.roamingDevice != nil)
    mark(.distance, event.distance != nil)
    varint(present)
    if let zone = event.zone { string(zone) }
    if let fence = event.fence { string(fence) }
    if let trigger = event.trigger { string(trigger.rawValue) }
    if let direction = event.direction { string(direction.rawValue) }
    if let latitude = event.latitude { double(latitude) }
    if let longitude = event.longitude { double(longitude) }
    if let speed = event.speed { double(speed) }
    if let course = event.course { double(course) }
    if let willCheckOut = event.willCheckOut { varint(willCheckOut ? 1 : 0) }
    if let data = event.customData { object(data) }
    if let checkInTime = event.checkInTime { time(checkInTime, base: base) }
    if let dwellSeconds = event.dwellSeconds { double(dwellSeconds) }
    if let durationSeconds = event.durationSeconds { double(durationSeconds) }
    if let on = event.on { strings(on) }
    if let off = event.off { strings(off) }
    if let reason = event.reason { string(reason.rawValue) }
    if let checkOutReason = event.checkOutReason { string(checkOutReason.rawValue) }
    if let roamingDevice = event.roamingDevice { string(roamingDevice) }
    if let distance = event.distance { double(distance) }
  }

  private mutating func strings(_ values: [String]) {
    varint(UInt64(values.count))
    for value in values { string(value) }
  }

  private mutating func object(_ object: JSONObject) {
    varint(UInt64(object.count))
    for member in object.members {
      string(member.key)
      json(member.value)
    }
  }

  private mutating func json(_ value: JSONValue) {
    switch value {
    case .null: bytes.append(JSONTag.null.rawValue)
    case .bool(let flag): bytes.append((flag ? JSONTag.trueValue : .falseValue).rawValue)
    case .number(let number):
      bytes.append(JSONTag.number.rawValue)
      double(number)
    case .string(let text):
      bytes.append(JSONTag.string.rawValue)
      string(text)
    case .array(let elements):
      bytes.append(JSONTag.array.rawValue)
      varint(UInt64(elements.count))
      for element in elements { json(element) }
    case .object(let members):
      bytes.append(JSONTag.object.rawValue)
      object(members)
    }
  }
}

extension SnapshotReader {
  /// An event written by ``SnapshotWriter/event(_:base:)``.
  mutating func event(base: Int64) throws -> ZoneEvent {
    let kind = try enumeration(ZoneEvent.Kind.self, "event kind")
    let id = try string()
    let device = try string()
    var event = ZoneEvent(kind: kind, time: try time(base: base), device: device)
    event.id = id
    let present = try varint()
    guard present >> UInt64(EventField.allCases.count) == 0 else {
      throw malformed("event fields \(present) of device \"\(device)\"")
    }
    func has(_ field: EventField) -> Bool { present & field.bit != 0 }
    if has(.zone) { event.zone = try string() }
    if has(.fence) { event.fence = try string() }
    if has(.trigger) { event.trigger = try enumeration(ZoneEvent.Trigger.self, "trigger") }
    if has(.direction) { event.direction = try enumeration(CrossingDirection.self, "direction") }
    if has(.latitude) { event.latitude = try double() }
    if has(.longitude) { event.longitude = try double() }
    if has(.speed) { event.speed = try double() }
    if has(.course) { event.course = try double() }
    if has(.willCheckOut) {
      let flag = try varint()
      guard flag <= 1 else { throw malformed("willCheckOut \(flag)") }
      event.willCheckOut = flag == 1
    }
    if has(.customData) { event.customData = try object(depth: 0) }
    if has(.checkInTime) { event.checkInTime = try time(base: base) }
    if has(.dwellSeconds) { event.dwellSeconds = try double() }
    if has(.durationSeconds) { event.durationSeconds = try double() }
    if has(.on) { event.on = try strings() }
    if has(.off) { event.off = try strings() }
    if has(.reason) { event.reason = try enumeration(RejectionReason.self, "rejection reason") }
    if has(.checkOutReason) {
      event.checkOutReason = try enumeration(CheckOutReason.self, "check-out reason")
    }
    if has(.roamingDevice) { event.roamingDevice = try string() }
    if has(.distance) { event.distance = try double() }
    return event
  }

  private mutating func enumeration<Value: RawRepresentable<String>>(
    _ type: Value.Type, _ what: String
  ) throws -> Value {
    let text = try string()
    guard let value = Value(rawValue: text) else { throw malformed("\(what) \"\(text)\"") }
    return value
  }

  private mutating func strings() throws -> [String] {
    let count = try count(minimumBytesEach: 1)
    var values: [String] = []
    values.reserveCapacity(count)
    for _ in 0..<count { values.append(try string()) }
    return values
  }

  private mutating func object(depth: Int) throws -> JSONObject {
    guard depth < snapshotJSONDepthLimit else {
      throw malformed("custom data nested deeper than \(snapshotJSONDepthLimit)")
    }
    let count = try count(minimumBytesEach: 2)
    var members: [(key: String, value: JSONValue)] = []
    members.reserveCapacity(count)
    for _ in 0..<count {
      let key = try string()
      members.append((key: key, value: try json(depth: depth + 1)))
    }
    let object = JSONObject(members)
    guard object.count == members.count else { throw malformed("custom data with a repeated key") }
    return object
  }

  private mutating func json(depth: Int) throws -> JSONValue {
    guard depth < snapshotJSONDepthLimit else {
      throw malformed("custom data nested deeper than \(snapshotJSONDepthLimit)")
    }
    let tagOffset = offset
    let byte = try raw(1).first!
    guard let tag = JSONTag(rawValue: byte) else {
      throw SnapshotError(.malformed("custom data tag \(byte)"), offset: tagOffset)
    }
    switch tag {
    case .null: return .null
    case .falseValue: return .bool(false)
    case .trueValue: return .bool(true)
    case .number: return .number(try double())
    case .string: return .string(try string())
    case .array:
      let count = try count(minimumBytesEach: 1)
      var elements: [JSONValue] = []
      elements.reserveCapacity(count)
      for _ in 0..<count { elements.append(try json(depth: depth + 1)) }
      return .array(elements)
    case .object: return .object(try object(depth: depth))
    }
  }
}
