import FenceEngine

/// A fix's explanation as one NDJSON line (`fencebench explain`, `GET
/// /v1/devices/{id}/explain`) and as a readable table (`--table`); `Docs/Rules.md`, "Explain".
extension FixExplanation {
  /// The explanation as a JSON object:
  /// `{"fix":{…},"outcome":"accepted","candidates":[…],"zones":[…],"events":[…],"reasonForNone":…}`.
  /// Times are RFC 3339, distances metres rounded to the centimetre, events as the engine's
  /// NDJSON objects.
  public var json: JSONValue {
    var fixObject: JSONObject = [
      "device": .string(fix.device), "time": .string(RFC3339.format(fix.time)),
      "lat": .number(fix.latitude), "lon": .number(fix.longitude),
    ]
    if let accuracy = fix.accuracy { fixObject["accuracy"] = .number(accuracy) }
    if let speed = fix.speed { fixObject["speed"] = .number(speed) }
    if let course = fix.course { fixObject["course"] = .number(course) }
    var object: JSONObject = ["fix": .object(fixObject)]
    switch outcome {
    case .accepted: object["outcome"] = .string("accepted")
    case .skipped: object["outcome"] = .string("skipped")
    case .rejected(let reason):
      object["outcome"] = .string("rejected")
      object["rejection"] = .string(reason.rawValue)
    }
    object["candidates"] = .array(
      candidates.map { candidate in
        .object([
          "id": .string(candidate.id), "zone": .string(candidate.zone),
          "kind": .string(candidate.kind.rawValue), "fromIndex": .bool(candidate.fromIndex),
          "predicate": .bool(candidate.predicate),
          "distanceToEdge": Self.metres(candidate.distanceToEdge),
        ])
      })
    object["zones"] = .array(
      zones.map { zone in
        var entry: JSONObject = [
          "zone": .string(zone.zone), "before": Self.json(zone.before),
          "after": Self.json(zone.after), "armed": .bool(zone.armed),
        ]
        entry["conditionsPassed"] = zone.conditionsPassed.map { .bool($0) } ?? .null
        entry["insideNow"] = .bool(zone.insideNow)
        entry["exitHysteresis"] = .number(zone.hysteresis)
        entry["events"] = .array(zone.events.map { .string($0.rawValue) })
        entry["reason"] = .string(zone.reason)
        return .object(entry)
      })
    object["events"] = .array(
      events.map { event in
        (try? JSONReader.parse(event.ndjsonLine)) ?? .string(event.ndjsonLine)
      })
    object["reasonForNone"] = reasonForNone.map { .string($0) } ?? .null
    return .object(object)
  }

  /// The explanation as one line of NDJSON (no newline).
  public var ndjsonLine: String { JSONWriter.string(json) }

  /// The explanation as a few lines of text for people: the fix, one line per candidate and per
  /// zone, and the events or the reason for none.
  public var table: String {
    var lines: [String] = []
    var head = "\(RFC3339.format(fix.time))  \(fix.device)  \(fix.latitude), \(fix.longitude)"
    if let speed = fix.speed { head += "  speed \(speed)" }
    if let course = fix.course { head += "  course \(course)" }
    switch outcome {
    case .accepted: break
    case .skipped: head += "  [skipped]"
    case .rejected(let reason): head += "  [rejected: \(reason.rawValue)]"
    }
    lines.append(head)
    for candidate in candidates {
      let answer = candidate.kind == .geoline
        ? (candidate.predicate ? "crossed" : "not crossed")
        : (candidate.predicate ? "inside" : "outside")
      lines.append(
        "  \(candidate.kind.rawValue) \(candidate.id) (zone \(candidate.zone))\(candidate.fromIndex ? "" : " [zone state]"): \(answer), \(Self.metresText(candidate.distanceToEdge)) m to the edge")
    }
    for zone in zones {
      var flags: [String] = []
      if !zone.armed { flags.append("not armed") }
      if let passed = zone.conditionsPassed { flags.append(passed ? "conditions passed" : "conditions failed") }
      let flagText = flags.isEmpty ? "" : " [\(flags.joined(separator: ", "))]"
      lines.append(
        "  zone \(zone.zone)\(flagText): \(Self.text(zone.before)) -> \(Self.text(zone.after)); \(zone.reason)")
    }
    for event in events {
      lines.append("  event \(event.kind.rawValue) \(event.zone ?? "-") at \(RFC3339.format(event.time))")
    }
    if let reasonForNone { lines.append("  no event: \(reasonForNone)") }
    return lines.joined(separator: "\n")
  }

  static func json(_ state: RuleState) -> JSONValue {
    var object: JSONObject = [
      "presence": .string(state.presence.rawValue), "exitCount": .number(Double(state.exitCount)),
    ]
    object["checkInTime"] = state.checkInTime.map { .string(RFC3339.format($0)) } ?? .null
    object["mrtUntil"] = state.mrtUntil.map { .string(RFC3339.format($0)) } ?? .null
    object["dwellDue"] = state.dwellDue.map { .string(RFC3339.format($0)) } ?? .null
    return .object(object)
  }

  static func text(_ state: RuleState) -> String {
    var text = state.presence.rawValue
    if state.exitCount > 0 { text += " (exit \(state.exitCount))" }
    if let until = state.mrtUntil { text += " (MRT until \(RFC3339.format(until)))" }
    if let due = state.dwellDue { text += " (dwell due \(RFC3339.format(due)))" }
    return text
  }

  static func metres(_ x: Double) -> JSONValue {
    x.isFinite ? .number((x * 100).rounded() / 100) : .null
  }

  static func metresText(_ x: Double) -> String {
    guard x.isFinite else { return "?" }
    return JSONWriter.numberText((x * 100).rounded() / 100)
  }
}
