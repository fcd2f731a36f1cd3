/// A `schedule` rule that cannot be used: where in it the problem is and what is wrong.
///
/// ``path`` names the place inside the schedule (`"timeZone"`, `"windows[1].days[2]"`,
/// `"except[0]"`; empty for the schedule value itself) and ``message`` says what was expected
/// and what was found. The loader adds the zone's name when it reports one.
public struct ScheduleError: Error, Hashable, Sendable, CustomStringConvertible {
  /// One step of a ``ScheduleError/path``: an object member or an array position.
  public enum PathElement: Hashable, Sendable {
    /// The member of an object with this name.
    case member(String)
    /// The element of an array at this 0-based position.
    case index(Int)
  }

  /// Where the problem is, from the schedule value down.
  public var pathElements: [PathElement]
  /// What was expected and what was found, e.g. `unknown time zone "Mars/Olympus"`.
  public var message: String

  /// An error at `pathElements` (empty: the schedule value itself) saying `message`.
  public init(pathElements: [PathElement], message: String) {
    self.pathElements = pathElements
    self.message = message
  }

  /// ``pathElements`` written as `windows[1].days[2]`; empty for the schedule itself.
  public var path: String {
    var text = ""
    for element in pathElements {
      switch element {
      case .member(let name):
        if !text.isEmpty { text += "." }
        text += name
      case .index(let index):
        text += "[\(index)]"
      }
    }
    return text
  }

  /// `schedule.windows[1].days[2]: expected a day name (…), got "monday"`, or
  /// `schedule: …` when the schedule value itself is at fault.
  public var description: String {
    let path = path
    return path.isEmpty ? "schedule: \(message)" : "schedule.\(path): \(message)"
  }
}

extension ScheduleError {
  /// An unknown member of an object at `path`.
  static func unknownMember(_ name: String, at path: [PathElement], expected: String)
    -> ScheduleError
  {
    ScheduleError(
      pathElements: path + [.member(name)],
      message: "unknown member \"\(name)\" (expected \(expected))")
  }

  /// The name of the time zone `name` is not one the system's tz database knows.
  static func unknownTimeZone(_ name: String) -> ScheduleError {
    ScheduleError(
      pathElements: [.member("timeZone")], message: "unknown time zone \(quoted(name))")
  }

  /// The `windows` array is empty.
  static let noWindows = ScheduleError(
    pathElements: [.member("windows")], message: "expected at least one window")

  /// The `days` array of window `index` is empty.
  static func noDays(window index: Int) -> ScheduleError {
    ScheduleError(
      pathElements: [.member("windows"), .index(index), .member("days")],
      message: "expected at least one day name")
  }

  /// `text` in double quotes, with `"` and `\` escaped (control characters as `\u`), as in
  /// JSON.
  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}

extension ZoneSchedule {
  /// Checks what the types do not: that the time zone is one the system's tz database knows,
  /// that there is at least one window, and that every window has at least one day.
  ///
  /// Times and dates are valid by construction (``LocalTime`` and ``LocalDate`` refuse
  /// invalid values). ``init(json:)`` checks all of this too, so only values built in code
  /// need it; ``ScheduleClock/init(_:)`` calls it.
  ///
  /// - Throws: ``ScheduleError`` for the first problem found, in the order above.
  public func validate() throws(ScheduleError) {
    guard ScheduleClock.isKnownTimeZone(timeZone) else {
      throw .unknownTimeZone(timeZone)
    }
    guard !windows.isEmpty else { throw .noWindows }
    for (index, window) in windows.enumerated() where window.days.isEmpty {
      throw .noDays(window: index)
    }
  }
}
