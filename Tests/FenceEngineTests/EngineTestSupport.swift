import FenceEngine
import FenceGeometry

// Small local helpers so that the zone-rule tests read as timelines: fixes at `t(seconds)` at
// positions given in metres north and east of an origin in New York Harbor.

/// 2020-06-30T00:00:00Z, in seconds since the epoch.
let epochOfTests: Int64 = 1_593_475_200

/// The instant `seconds` after 2020-06-30T00:00:00Z.
func t(_ seconds: Double) -> Timestamp {
  Timestamp(microsecondsSinceEpoch: epochOfTests * 1_000_000 + Int64((seconds * 1e6).rounded()))
}

/// Seconds from 2020-06-30T00:00:00Z to `time`.
func secondsOf(_ time: Timestamp) -> Double {
  Double(time.microsecondsSinceEpoch - epochOfTests * 1_000_000) / 1e6
}

let originLatitude = 40.6
let originLongitude = -74.0
/// Metres per degree near the origin (approximate: tests keep well clear of boundaries, or
/// place points on shapes built from the same conversion).
let metresPerDegreeLatitude = 111_034.0
let metresPerDegreeLongitude = 84_535.0

/// A position `north` and `east` metres from the origin.
func at(north: Double = 0, east: Double = 0) -> Coordinate {
  Coordinate(
    uncheckedLatitude: originLatitude + north / metresPerDegreeLatitude,
    longitude: originLongitude + east / metresPerDegreeLongitude)
}

/// A fix of `device` at `seconds`, `north`/`east` metres from the origin.
func fix(
  _ seconds: Double, north: Double = 0, east: Double = 0, device: String = "a",
  accuracy: Double? = nil, speed: Double? = nil, course: Double? = nil
) -> LocationFix {
  let c = at(north: north, east: east)
  return LocationFix(
    device: device, time: t(seconds), latitude: c.latitude, longitude: c.longitude,
    accuracy: accuracy, speed: speed, course: course)
}

/// A zone of one circle fence (`fence` defaults to the zone id + "-fence").
func circleZone(
  _ id: String, fence: String? = nil, north: Double = 0, east: Double = 0, radius: Double = 100,
  rules: ZoneRules = .default, customData: JSONObject = [:]
) throws -> Zone {
  Zone(
    id: id, customData: customData,
    fences: [try .circle(id: fence ?? "\(id)-fence", center: at(north: north, east: east), radius: radius)],
    rules: rules)
}

/// A GEOLINE through positions given in metres from the origin.
func geoline(
  _ id: String, _ points: [(north: Double, east: Double)],
  direction: Geoline.DirectionFilter = .both
) throws -> Geoline {
  Geoline(
    id: id, line: try Polyline(points.map { at(north: $0.north, east: $0.east) }),
    direction: direction)
}

/// Runs fixes through the evaluator and returns every event described on one line.
func run(_ evaluator: inout ZoneEvaluator, _ fixes: [LocationFix]) -> [String] {
  var events: [ZoneEvent] = []
  for fix in fixes { evaluator.process(fix, into: &events) }
  return events.map(describe)
}

/// Runs a recorded stream through the evaluator, then advances it to `extra` seconds after the
/// last fix (so that pending dwells fire), and returns every event.
func replayEvents(
  _ fixes: [LocationFix], through evaluator: inout ZoneEvaluator, advancingBy extra: Double = 0
) -> [ZoneEvent] {
  var events: [ZoneEvent] = []
  for fix in fixes { evaluator.process(fix, into: &events) }
  if let last = fixes.last { evaluator.advance(to: last.time.adding(seconds: extra), into: &events) }
  return events
}

/// Advances the evaluator and returns the events described on one line.
func advance(_ evaluator: inout ZoneEvaluator, to seconds: Double) -> [String] {
  var events: [ZoneEvent] = []
  evaluator.advance(to: t(seconds), into: &events)
  return events.map(describe)
}

/// One line per event: time (seconds after the tests' epoch), kind, device, zone/fence, then the
/// kind's own fields. Position, speed, course, custom data and id are checked separately.
func describe(_ e: ZoneEvent) -> String {
  var parts = [number(secondsOf(e.time)), e.kind.rawValue, e.device]
  if e.zone != nil || e.fence != nil { parts.append("\(e.zone ?? "-")/\(e.fence ?? "-")") }
  if let trigger = e.trigger, trigger == .geoline { parts.append("geoline") }
  if let direction = e.direction { parts.append(direction.rawValue) }
  if let willCheckOut = e.willCheckOut, !willCheckOut { parts.append("noCheckOut") }
  if let checkInTime = e.checkInTime { parts.append("in=\(number(secondsOf(checkInTime)))") }
  if let dwell = e.dwellSeconds { parts.append("dwell=\(number(dwell))") }
  if let duration = e.durationSeconds { parts.append("duration=\(number(duration))") }
  if let on = e.on { parts.append("on=\(on)") }
  if let off = e.off { parts.append("off=\(off)") }
  if let reason = e.reason { parts.append(reason.rawValue) }
  return parts.joined(separator: " ")
}

func number(_ value: Double) -> String {
  value == value.rounded() ? String(Int64(value)) : String(value)
}
