import FenceEngine

/// Reads one fix per line: `{"device":…,"time":…,"lat":…,"lon":…}` with optional `accuracy`,
/// `speed` (m/s) and `course` (degrees).
///
/// `device` is a string or a number (written as an integer when whole); `time` is an RFC 3339
/// string (any form ``TimestampParser`` accepts) or epoch seconds as a number (milliseconds
/// above 1e11). Other members are ignored; `null` for an optional member means absent. Blank
/// lines are skipped.
final class NDJSONTrackParser: TrackParser {
  private let input: ByteInput
  /// Reused from line to line, so steady-state parsing allocates only what the fix keeps.
  private var tape = JSONTape()

  init(input: ByteInput) {
    self.input = input
  }

  func next(_ log: inout IssueLog) throws(TrackReadError) -> LocationFix? {
    while true {
      let optionalLine: UnsafeMutableBufferPointer<UInt8>?
      do {
        optionalLine = try input.nextLine()
      } catch {
        throw error.trackReadError
      }
      guard let line = optionalLine else { return nil }
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      let lineNumber = input.recordLine
      switch Self.fix(fromLine: UnsafeBufferPointer(line), tape: &tape) {
      case .success(let fix): return fix
      case .failure(let problem): try log.skip(line: lineNumber, problem.reason)
      }
    }
  }

  /// The fix of one NDJSON line, or the reason it is not one.
  ///
  /// Lines in the usual flat shape are read by ``SimpleFixLine`` without a tape; the others
  /// (and every line with a problem) by the full JSON parse, which gives the same fixes.
  static func fix(fromLine line: UnsafeBufferPointer<UInt8>, tape: inout JSONTape)
    -> Result<LocationFix, RowProblem>
  {
    if let fix = SimpleFixLine.fix(line) { return .success(fix) }
    return fullyParsedFix(fromLine: line, tape: &tape)
  }

  /// The fix of one NDJSON line read through the full JSON parse, or the reason it is not one.
  static func fullyParsedFix(fromLine line: UnsafeBufferPointer<UInt8>, tape: inout JSONTape)
    -> Result<LocationFix, RowProblem>
  {
    do {
      try tape.reparse(line)
    } catch {
      return .failure(RowProblem("invalid JSON at column \(error.column): \(error.message)"))
    }
    return fix(fromDocumentIn: tape)
  }

  /// The fix of the JSON value parsed into `tape` (its node 0), or the reason it is not one:
  /// the rules of one NDJSON line after its JSON parsed, shared with ``FixBatchReader``.
  static func fix(fromDocumentIn tape: JSONTape) -> Result<LocationFix, RowProblem> {
    guard tape.kind(0) == .object else {
      return .failure(RowProblem("expected a JSON object, got \(tape.describe(0))"))
    }
    var device: String?
    var time: Timestamp?
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var speed: Double?
    var course: Double?
    var problem: RowProblem?
    tape.forEachMember(0) { key, value in
      guard problem == nil else { return }
      func fail(_ reason: String) { problem = RowProblem(reason) }
      switch key {
      case "device":
        if let s = tape.string(value) {
          device = s
        } else if let x = tape.number(value) {
          device = JSONWriter.numberText(x)
        } else {
          return fail("\"device\": expected a string or a number, got \(tape.describe(value))")
        }
      case "time":
        if let s = tape.string(value) {
          time = TimestampParser.parse(s)
          if time == nil {
            return fail("\"time\": expected an RFC 3339 time, got \(tape.describe(value))")
          }
        } else if let x = tape.number(value) {
          time = TimestampParser.fromEpochNumber(x)
          if time == nil {
            return fail("\"time\": epoch number out of range: \(tape.describe(value))")
          }
        } else {
          return fail("\"time\": expected an RFC 3339 string or epoch seconds, got \(tape.describe(value))")
        }
      case "lat", "lon", "accuracy", "speed", "course":
        let number: Double?
        if let x = tape.number(value) {
          number = x
        } else if tape.kind(value) == .null, key != "lat", key != "lon" {
          number = nil
        } else {
          return fail("\"\(key)\": expected a number, got \(tape.describe(value))")
        }
        switch key {
        case "lat": latitude = number
        case "lon": longitude = number
        case "accuracy": accuracy = number
        case "speed": speed = number
        default: course = number
        }
      default:
        return
      }
    }
    if let problem { return .failure(problem) }
    guard let device else { return .failure(RowProblem("missing \"device\"")) }
    guard let time else { return .failure(RowProblem("missing \"time\"")) }
    guard let latitude else { return .failure(RowProblem("missing \"lat\"")) }
    guard let longitude else { return .failure(RowProblem("missing \"lon\"")) }
    return .success(
      LocationFix(
        device: device, time: time, latitude: latitude, longitude: longitude,
        accuracy: accuracy, speed: speed, course: course))
  }
}

/// Why one row could not be read.
struct RowProblem: Error {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}
