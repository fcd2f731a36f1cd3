/// When a zone is *armed*: weekly windows of local time in one time zone, minus whole dates.
///
/// The `schedule` rule of a zone's settings (rules-v2), for example
///
/// ```json
/// "schedule": {"timeZone": "America/New_York",
///              "windows": [{"days": ["mon","tue","wed","thu","fri"], "from": "07:00", "to": "19:00"},
///                          {"days": ["sat"], "from": "22:00", "to": "02:00"}],
///              "except": ["2020-12-25"]}
/// ```
///
/// What it means, exactly (``ScheduleClock`` computes it):
///
/// - Each window *opens* on every local date `D` whose weekday is one of its ``Window/days``
///   and which is not one of ``exceptions``. On such a date it is the interval of instants
///   `[open, close)` with `open` = the instant of local (`D`, `from`) and `close` = the instant
///   of local (`D`, `to`) when `to` is after `from`, else of local (`D + 1`, `to`): a window
///   whose `to` is at or before its `from` runs past midnight into the next day, and one with
///   `from == to` lasts 24 hours of local time. The day named is the day the window opens.
/// - A local wall time becomes an instant through the rules of ``timeZone`` (the system's tz
///   database, as Foundation's `TimeZone` reads it). A time that does not exist (skipped by a
///   spring-forward gap) is the first instant after the gap, that is the transition instant;
///   a time that occurs twice (repeated by a fall-back fold) is its first occurrence.
/// - The zone is armed at instant `t` when `t` lies in any window's interval. Intervals that
///   overlap or touch merge: two windows `07:00`–`12:00` and `12:00`–`19:00` arm the zone
///   from 07:00 to 19:00 with no change at 12:00.
/// - On an `except` date no window opens. A window that opened the day before, on a date that
///   is not excepted, and runs past midnight into the excepted date still runs to its end.
///
/// So an interval can be shorter or longer than its local length (23 or 25 hours for a 24-hour
/// window across a DST change), and empty when both ends fall in one gap (a window on a date the
/// time zone skips entirely never opens).
///
/// Values read from JSON (``init(json:)``) are valid; ones built in code are checked by
/// ``validate()`` (``ScheduleClock/init(_:)`` calls it).
public struct ZoneSchedule: Hashable, Sendable {
  /// The IANA name of the time zone the windows' times and the except dates are in, such as
  /// `"America/New_York"`; kept as written (Foundation may know it under another identifier,
  /// `"UTC"` as `"GMT"` for example).
  public var timeZone: String
  /// The weekly windows; at least one.
  public var windows: [Window]
  /// The local dates on which no window opens (JSON member `except`), in the order given.
  public var exceptions: [LocalDate]

  /// A schedule of `windows` in `timeZone`, none opening on `exceptions`.
  public init(timeZone: String, windows: [Window], exceptions: [LocalDate] = []) {
    self.timeZone = timeZone
    self.windows = windows
    self.exceptions = exceptions
  }
}

extension ZoneSchedule {
  /// A day of the week, written as its three-letter lowercase English abbreviation.
  ///
  /// The cases are in the order of the week starting on Sunday (the order of `allCases`).
  public enum Weekday: String, CaseIterable, Hashable, Sendable {
    case sun, mon, tue, wed, thu, fri, sat

    /// The weekday of a date given as days since 1970-01-01 (a Thursday).
    static func of(daysSinceEpoch day: Int64) -> Weekday {
      switch (day % 7 + 7 + 4) % 7 {
      case 0: return .sun
      case 1: return .mon
      case 2: return .tue
      case 3: return .wed
      case 4: return .thu
      case 5: return .fri
      default: return .sat
      }
    }

    /// The position of this day in the week starting on Sunday, 0 to 6.
    var index: Int {
      switch self {
      case .sun: return 0
      case .mon: return 1
      case .tue: return 2
      case .wed: return 3
      case .thu: return 4
      case .fri: return 5
      case .sat: return 6
      }
    }
  }

  /// A local time of day to the minute, `00:00` to `23:59`.
  public struct LocalTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Minutes since local midnight, 0 to 1439.
    public let minutesSinceMidnight: Int

    /// The time `minutesSinceMidnight` minutes after midnight, or `nil` outside 0 to 1439.
    public init?(minutesSinceMidnight: Int) {
      guard (0..<1440).contains(minutesSinceMidnight) else { return nil }
      self.minutesSinceMidnight = minutesSinceMidnight
    }

    /// The time `hour:minute`, or `nil` unless the hour is 0 to 23 and the minute 0 to 59.
    public init?(hour: Int, minute: Int) {
      guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
      self.minutesSinceMidnight = hour * 60 + minute
    }

    /// The time written `HH:MM`, exactly two digits each, `00:00` to `23:59`; `nil` for
    /// anything else (`"7:00"`, `"24:00"`, `"07:00:00"`, `"07:60"`).
    public init?(parsing text: String) {
      let bytes = Array(text.utf8)
      guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"),
        let hour = decimal(bytes[0..<2]), let minute = decimal(bytes[3..<5])
      else { return nil }
      self.init(hour: hour, minute: minute)
    }

    /// The hour, 0 to 23.
    public var hour: Int { minutesSinceMidnight / 60 }
    /// The minute, 0 to 59.
    public var minute: Int { minutesSinceMidnight % 60 }

    /// `HH:MM`.
    public var description: String { twoDigits(hour) + ":" + twoDigits(minute) }

    public static func < (a: LocalTime, b: LocalTime) -> Bool {
      a.minutesSinceMidnight < b.minutesSinceMidnight
    }
  }

  /// A date of the proleptic Gregorian calendar, years 0000 to 9999, with no time zone of its
  /// own (a schedule's dates are in its ``ZoneSchedule/timeZone``).
  public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The year, 0 to 9999.
    public let year: Int
    /// The month, 1 to 12.
    public let month: Int
    /// The day of the month, 1 to 31.
    public let day: Int

    /// The date `year`-`month`-`day`, or `nil` when no such date exists (2021-02-29) or the
    /// year is outside 0 to 9999.
    public init?(year: Int, month: Int, day: Int) {
      guard (0...9999).contains(year), (1...12).contains(month), day >= 1 else { return nil }
      let civil = RFC3339.civilDate(
        daysSinceEpoch: RFC3339.daysSinceEpoch(
          year: Int64(year), month: Int64(month), day: Int64(day)))
      guard civil.month == Int64(month), civil.day == Int64(day) else { return nil }
      self.year = year
      self.month = month
      self.day = day
    }

    /// The date written `YYYY-MM-DD`, exactly four, two and two digits; `nil` for anything
    /// else, and for dates that do not exist.
    public init?(parsing text: String) {
      let bytes = Array(text.utf8)
      guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
        let year = decimal(bytes[0..<4]), let month = decimal(bytes[5..<7]),
        let day = decimal(bytes[8..<10])
      else { return nil }
      self.init(year: year, month: month, day: day)
    }

    /// The date as days since 1970-01-01.
    var daysSinceEpoch: Int64 {
      RFC3339.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day))
    }

    /// The day of the week of this date.
    public var weekday: Weekday { Weekday.of(daysSinceEpoch: daysSinceEpoch) }

    /// `YYYY-MM-DD`.
    public var description: String {
      let yearText = String(year)
      return String(repeating: "0", count: 4 - yearText.count) + yearText + "-"
        + twoDigits(month) + "-" + twoDigits(day)
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool {
      (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }
  }

  /// A weekly window: on each of ``days``, local time from ``from`` (included) to ``to``
  /// (excluded), running past midnight into the next day when `to` is at or before `from`.
  public struct Window: Hashable, Sendable {
    /// The days the window opens on; at least one. A day listed twice counts once.
    public var days: [Weekday]
    /// The local time the window opens at.
    public var from: LocalTime
    /// The local time the window closes at: on the day it opens when after ``from``, else on
    /// the next day (equal to ``from``: 24 hours of local time later).
    public var to: LocalTime

    /// A window on `days` from `from` to `to`.
    public init(days: [Weekday], from: LocalTime, to: LocalTime) {
      self.days = days
      self.from = from
      self.to = to
    }

    /// Whether the window runs past midnight: `to` at or before `from`.
    public var runsPastMidnight: Bool { to <= from }
  }
}

/// The value of ASCII decimal digits only (no sign, no spaces), or `nil`.
private func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
  var value = 0
  for byte in digits {
    let digit = byte &- UInt8(ascii: "0")
    guard digit <= 9 else { return nil }
    value = value * 10 + Int(digit)
  }
  return value
}

/// `value` (0 to 99) as two decimal digits.
private func twoDigits(_ value: Int) -> String {
  value < 10 ? "0" + String(value) : String(value)
}
