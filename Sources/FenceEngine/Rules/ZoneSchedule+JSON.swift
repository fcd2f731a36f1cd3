/// A schedule's JSON form:
/// `{"timeZone": "…", "windows": [{"days": […], "from": "HH:MM", "to": "HH:MM"}, …],
/// "except": ["YYYY-MM-DD", …]}`, `except` optional.
extension ZoneSchedule {
  /// The members a schedule object may have, in the order ``json`` writes them.
  static let memberNames = ["timeZone", "windows", "except"]
  /// The members a window object may have, in the order ``json`` writes them.
  static let windowMemberNames = ["days", "from", "to"]

  /// Reads a schedule from its JSON value, strictly.
  ///
  /// Refused, with the place and what was expected: a value that is not an object; a member
  /// other than `timeZone`, `windows` and `except`; a missing `timeZone`, one that is not a
  /// string, or one the system's tz database does not know; a missing `windows`, one that is
  /// not an array, or an empty one; a window that is not an object, has a member other than
  /// `days`, `from` and `to`, has no `days` or an empty one, a day that is not one of `sun`,
  /// `mon`, `tue`, `wed`, `thu`, `fri`, `sat`, or a `from` or `to` that is not `HH:MM`
  /// (`00:00` to `23:59`); an `except` that is not an array of real dates `YYYY-MM-DD`.
  /// Members are checked in the order `timeZone`, `windows`, `except` after unknown members,
  /// and only the first problem is reported.
  ///
  /// - Throws: ``ScheduleError``.
  public init(json: JSONValue) throws(ScheduleError) {
    guard case .object(let object) = json else {
      throw ScheduleError(
        pathElements: [],
        message: "expected a schedule object with timeZone, windows and except, got "
          + Self.describe(json))
    }
    for key in object.keys where !Self.memberNames.contains(key) {
      throw .unknownMember(key, at: [], expected: "timeZone, windows or except")
    }

    guard case .string(let timeZone)? = object["timeZone"] else {
      throw ScheduleError(
        pathElements: [.member("timeZone")],
        message: "expected an IANA time zone name, got \(Self.describe(object["timeZone"]))")
    }
    guard ScheduleClock.isKnownTimeZone(timeZone) else { throw .unknownTimeZone(timeZone) }

    guard case .array(let windowValues)? = object["windows"] else {
      throw ScheduleError(
        pathElements: [.member("windows")],
        message: "expected an array of windows, got \(Self.describe(object["windows"]))")
    }
    guard !windowValues.isEmpty else { throw .noWindows }
    var windows: [Window] = []
    windows.reserveCapacity(windowValues.count)
    for (index, value) in windowValues.enumerated() {
      windows.append(try Window(json: value, path: [.member("windows"), .index(index)]))
    }

    var exceptions: [LocalDate] = []
    if let exceptValue = object["except"] {
      guard case .array(let dateValues) = exceptValue else {
        throw ScheduleError(
          pathElements: [.member("except")],
          message: "expected an array of dates YYYY-MM-DD, got \(Self.describe(exceptValue))")
      }
      exceptions.reserveCapacity(dateValues.count)
      for (index, value) in dateValues.enumerated() {
        guard case .string(let text) = value, let date = LocalDate(parsing: text) else {
          throw ScheduleError(
            pathElements: [.member("except"), .index(index)],
            message: "expected a date YYYY-MM-DD, got \(Self.describe(value))")
        }
        exceptions.append(date)
      }
    }
    self.init(timeZone: timeZone, windows: windows, exceptions: exceptions)
  }

  /// The JSON value of the schedule: members `timeZone`, `windows` (each window's members
  /// `days`, `from`, `to`) and `except`, in that order, `except` left out when there are no
  /// exceptions. ``init(json:)`` reads it back to an equal schedule.
  public var json: JSONValue {
    var object: JSONObject = [
      "timeZone": .string(timeZone),
      "windows": .array(windows.map(\.json)),
    ]
    if !exceptions.isEmpty {
      object["except"] = .array(exceptions.map { .string($0.description) })
    }
    return .object(object)
  }

  /// A short description of a JSON value for messages: strings quoted, numbers and literals
  /// as themselves, `an array` / `an object`, `nothing` when there is no value.
  static func describe(_ value: JSONValue?) -> String {
    switch value {
    case nil: return "nothing"
    case .null?: return "null"
    case .bool(let bool)?: return bool ? "true" : "false"
    case .number(let number)?: return "\(number)"
    case .string(let text)?: return ScheduleError.quoted(text)
    case .array?: return "an array"
    case .object?: return "an object"
    }
  }
}

extension ZoneSchedule.Window {
  /// Reads a window object found at `path` of the schedule.
  init(json: JSONValue, path: [ScheduleError.PathElement]) throws(ScheduleError) {
    guard case .object(let object) = json else {
      throw ScheduleError(
        pathElements: path,
        message: "expected a window object with days, from and to, got "
          + ZoneSchedule.describe(json))
    }
    for key in object.keys where !ZoneSchedule.windowMemberNames.contains(key) {
      throw .unknownMember(key, at: path, expected: "days, from or to")
    }
    let daysPath = path + [.member("days")]
    guard case .array(let dayValues)? = object["days"] else {
      throw ScheduleError(
        pathElements: daysPath,
        message: "expected an array of day names, got \(ZoneSchedule.describe(object["days"]))")
    }
    guard !dayValues.isEmpty else {
      throw ScheduleError(pathElements: daysPath, message: "expected at least one day name")
    }
    var days: [ZoneSchedule.Weekday] = []
    days.reserveCapacity(dayValues.count)
    for (index, value) in dayValues.enumerated() {
      guard case .string(let name) = value, let day = ZoneSchedule.Weekday(rawValue: name) else {
        throw ScheduleError(
          pathElements: daysPath + [.index(index)],
          message: "expected a day name (sun, mon, tue, wed, thu, fri, sat), got "
            + ZoneSchedule.describe(value))
      }
      days.append(day)
    }
    func time(_ member: String) throws(ScheduleError) -> ZoneSchedule.LocalTime {
      guard case .string(let text)? = object[member],
        let time = ZoneSchedule.LocalTime(parsing: text)
      else {
        throw ScheduleError(
          pathElements: path + [.member(member)],
          message: "expected a time HH:MM from 00:00 to 23:59, got "
            + ZoneSchedule.describe(object[member]))
      }
      return time
    }
    let from = try time("from")
    let to = try time("to")
    self.init(days: days, from: from, to: to)
  }

  /// `{"days": […], "from": "HH:MM", "to": "HH:MM"}`.
  var json: JSONValue {
    .object([
      "days": .array(days.map { .string($0.rawValue) }),
      "from": .string(from.description),
      "to": .string(to.description),
    ])
  }
}

/// A schedule is coded as its ``ZoneSchedule/json`` value.
extension ZoneSchedule: Codable {
  /// Reads a JSON value and then the schedule from it, as ``init(json:)``.
  ///
  /// - Throws: `DecodingError.dataCorrupted` whose coding path goes on from the decoder's to
  ///   the place of the problem (`windows`, `1`, `days`, `2`) and whose description is the
  ///   ``ScheduleError``'s message; the decoder's own errors when there is no JSON value.
  public init(from decoder: any Decoder) throws {
    let value = try JSONValue(from: decoder)
    do {
      try self.init(json: value)
    } catch {
      let keys = error.pathElements.map { element -> any CodingKey in
        switch element {
        case .member(let name): return ScheduleCodingKey(stringValue: name)
        case .index(let index): return ScheduleCodingKey(intValue: index)
        }
      }
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath + keys, debugDescription: error.message))
    }
  }

  /// Writes ``json``.
  public func encode(to encoder: any Encoder) throws {
    try json.encode(to: encoder)
  }
}

/// The coding keys of a ``ScheduleError``'s path in a `DecodingError`.
private struct ScheduleCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}
