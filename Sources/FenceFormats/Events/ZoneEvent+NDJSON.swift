import FenceEngine
import FenceGeometry

extension ZoneEvent {
  /// The event as one line of NDJSON, without the newline.
  ///
  /// Keys in the spec's order: `id`, `kind`, `time`, `device`, `zone`, `fence`, `trigger`,
  /// `direction`, `lat`, `lon`, `speed`, `course`, `willCheckOut`, `customData`, `checkInTime`,
  /// `dwellSeconds`, `durationSeconds`, `on`, `off`, `reason`; fields that are `nil` are left
  /// out. Times are RFC 3339 UTC (``RFC3339/format(_:)``). Numbers are written by
  /// ``JSONWriter/numberText(_:)`` (`60`, `40.6442`), except `durationSeconds`, which always
  /// shows a fraction (`754.0`), as in the spec's example.
  public var ndjsonLine: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(256)
    appendNDJSON(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the event's NDJSON line (see ``ndjsonLine``) without the newline.
  public func appendNDJSON(to out: inout String) {
    out += ndjsonLine
  }

  /// Appends the UTF-8 bytes of the event's NDJSON line (see ``ndjsonLine``) without the
  /// newline; with `seq`, a `"seq"` member comes first (the form `fenced` serves events in),
  /// and with `partition` too, a `"partition"` member after it (the scaled-out `fenced`'s form,
  /// where seqs are gapless within a partition).
  public func appendNDJSON(to out: inout [UInt8], seq: Int64? = nil, partition: Int32? = nil) {
    func key(_ text: StaticString) { JSONWriter.appendASCII(text, to: &out) }
    if let seq {
      key("{\"seq\":")
      JSONWriter.appendInteger(seq, to: &out)
      if let partition {
        key(",\"partition\":")
        JSONWriter.appendInteger(Int64(partition), to: &out)
      }
      key(",\"id\":")
    } else {
      key("{\"id\":")
    }
    JSONWriter.appendString(id, to: &out)
    key(",\"kind\":\"")
    out.append(contentsOf: kind.rawValue.utf8)
    key("\",\"time\":\"")
    RFC3339.append(time, to: &out)
    key("\",\"device\":")
    JSONWriter.appendString(device, to: &out)
    func string(_ member: StaticString, _ value: String?) {
      guard let value else { return }
      key(member)
      JSONWriter.appendString(value, to: &out)
    }
    func word(_ member: StaticString, _ value: String?) {
      guard let value else { return }
      key(member)
      out.append(UInt8(ascii: "\""))
      out.append(contentsOf: value.utf8)
      out.append(UInt8(ascii: "\""))
    }
    func number(_ member: StaticString, _ value: Double?) {
      guard let value else { return }
      key(member)
      JSONWriter.appendNumber(value, to: &out)
    }
    string(",\"zone\":", zone)
    string(",\"fence\":", fence)
    word(",\"trigger\":", trigger?.rawValue)
    word(",\"direction\":", direction?.rawValue)
    number(",\"lat\":", latitude)
    number(",\"lon\":", longitude)
    number(",\"speed\":", speed)
    number(",\"course\":", course)
    if let willCheckOut { key(willCheckOut ? ",\"willCheckOut\":true" : ",\"willCheckOut\":false") }
    if let customData {
      key(",\"customData\":")
      JSONWriter.append(customData, to: &out)
    }
    if let checkInTime {
      key(",\"checkInTime\":\"")
      RFC3339.append(checkInTime, to: &out)
      out.append(UInt8(ascii: "\""))
    }
    number(",\"dwellSeconds\":", dwellSeconds)
    if let durationSeconds {
      key(",\"durationSeconds\":")
      JSONWriter.appendDecimalNumber(durationSeconds, to: &out)
    }
    if let on {
      key(",\"on\":")
      appendList(on, to: &out)
    }
    if let off {
      key(",\"off\":")
      appendList(off, to: &out)
    }
    string(",\"roamingDevice\":", roamingDevice)
    number(",\"distance\":", distance)
    word(",\"reason\":", reason?.rawValue ?? checkOutReason?.rawValue)
    out.append(UInt8(ascii: "}"))
  }

  private func appendList(_ ids: [String], to out: inout [UInt8]) {
    out.append(UInt8(ascii: "["))
    for (index, id) in ids.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      JSONWriter.appendString(id, to: &out)
    }
    out.append(UInt8(ascii: "]"))
  }

  /// Reads an event from one NDJSON line, as ``ndjsonLine`` writes it (key order does not
  /// matter; unknown keys are ignored).
  ///
  /// - Throws: ``EventReadError`` (with line 0; ``EventReader`` fills in the file and line).
  public init(ndjsonLine line: String) throws {
    var line = line
    let result = line.withUTF8 { ZoneEvent.parse(line: $0) }
    self = try result.mapError { EventReadError(file: "", line: 0, reason: $0.reason) }.get()
  }

  static func parse(line: UnsafeBufferPointer<UInt8>) -> Result<ZoneEvent, RowProblem> {
    let tape: JSONTape
    do {
      tape = try JSONTape(parsing: line)
    } catch {
      return .failure(RowProblem("invalid JSON at column \(error.column): \(error.message)"))
    }
    guard tape.kind(0) == .object else {
      return .failure(RowProblem("expected a JSON object, got \(tape.describe(0))"))
    }
    do throws(RowProblem) {
      return .success(try event(from: tape))
    } catch {
      return .failure(error)
    }
  }

  private static func event(from tape: JSONTape) throws(RowProblem) -> ZoneEvent {
    let members = tape.members(0)
    func node(_ key: String) -> Int? { members.last { $0.key == key }?.value }
    func string(_ key: String) throws(RowProblem) -> String? {
      guard let index = node(key), tape.kind(index) != .null else { return nil }
      guard let s = tape.string(index) else {
        throw RowProblem("\"\(key)\": expected a string, got \(tape.describe(index))")
      }
      return s
    }
    func number(_ key: String) throws(RowProblem) -> Double? {
      guard let index = node(key), tape.kind(index) != .null else { return nil }
      guard let x = tape.number(index) else {
        throw RowProblem("\"\(key)\": expected a number, got \(tape.describe(index))")
      }
      return x
    }
    func timestamp(_ key: String) throws(RowProblem) -> Timestamp? {
      guard let text = try string(key) else { return nil }
      guard let t = TimestampParser.parse(text) else {
        throw RowProblem("\"\(key)\": expected an RFC 3339 time, got \"\(text)\"")
      }
      return t
    }
    func list(_ key: String) throws(RowProblem) -> [String]? {
      guard let index = node(key), tape.kind(index) != .null else { return nil }
      guard tape.kind(index) == .array else {
        throw RowProblem("\"\(key)\": expected an array of strings, got \(tape.describe(index))")
      }
      var ids: [String] = []
      for element in tape.elements(index) {
        guard let s = tape.string(element) else {
          throw RowProblem("\"\(key)\": expected an array of strings, found \(tape.describe(element))")
        }
        ids.append(s)
      }
      return ids
    }
    func enumValue<T: RawRepresentable>(_ key: String, _: T.Type) throws(RowProblem) -> T?
    where T.RawValue == String {
      guard let text = try string(key) else { return nil }
      guard let value = T(rawValue: text) else {
        throw RowProblem("\"\(key)\": unknown value \"\(text)\"")
      }
      return value
    }
    guard let kind = try enumValue("kind", Kind.self) else { throw RowProblem("missing \"kind\"") }
    guard let time = try timestamp("time") else { throw RowProblem("missing \"time\"") }
    guard let device = try string("device") else { throw RowProblem("missing \"device\"") }
    var event = ZoneEvent(kind: kind, time: time, device: device)
    event.id = try string("id") ?? ""
    event.zone = try string("zone")
    event.fence = try string("fence")
    event.trigger = try enumValue("trigger", Trigger.self)
    event.direction = try enumValue("direction", CrossingDirection.self)
    event.latitude = try number("lat")
    event.longitude = try number("lon")
    event.speed = try number("speed")
    event.course = try number("course")
    if let index = node("willCheckOut"), tape.kind(index) != .null {
      guard let b = tape.bool(index) else {
        throw RowProblem("\"willCheckOut\": expected true or false, got \(tape.describe(index))")
      }
      event.willCheckOut = b
    }
    if let index = node("customData"), tape.kind(index) != .null {
      guard tape.kind(index) == .object else {
        throw RowProblem("\"customData\": expected an object, got \(tape.describe(index))")
      }
      event.customData = tape.object(index)
    }
    event.checkInTime = try timestamp("checkInTime")
    event.dwellSeconds = try number("dwellSeconds")
    event.durationSeconds = try number("durationSeconds")
    event.on = try list("on")
    event.off = try list("off")
    event.roamingDevice = try string("roamingDevice")
    event.distance = try number("distance")
    if kind == .rejected {
      event.reason = try enumValue("reason", RejectionReason.self)
    } else {
      event.checkOutReason = try enumValue("reason", CheckOutReason.self)
    }
    return event
  }
}
