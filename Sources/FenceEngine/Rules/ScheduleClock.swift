import FoundationEssentials
import FoundationInternationalization

/// Answers when a ``ZoneSchedule`` arms its zone: whether at an instant, and when that next
/// changes.
///
/// Made once per schedule (it resolves the time zone once) and cheap to keep. The meaning is
/// the one ``ZoneSchedule`` states: each window opening on a local date `D` (its weekday one
/// of the window's days, `D` not an except date) is the interval of instants `[open, close)`,
/// `open` = the instant of local (`D`, `from`), `close` = the instant of local (`D`, `to`), or
/// of local (`D + 1`, `to`) when `to` is at or before `from`; the zone is armed at `t` when
/// `t` lies in any of these intervals.
///
/// Local wall times become instants through Foundation's `TimeZone` (the tz database; on
/// Linux, the copy in the toolchain's ICU data, `zoneinfo64`, not `/usr/share/zoneinfo`), but
/// not through `Calendar`, whose handling of skipped times is not the one the rule asks for.
/// With `L` the wall time read as if it were UTC, each offset in force about a day before, at
/// and a day after `L` gives a candidate `L − offset`, valid when that offset is the one in
/// force at the candidate:
/// - one valid candidate: that instant;
/// - two (a fall-back fold repeats the wall time): the earlier, the first occurrence;
/// - none (a spring-forward gap or a base-offset change skips the wall time): the transition
///   instant that ends the gap, found by binary search on whole seconds between the candidates
///   (`nextDaylightSavingTimeTransition` is not used: it may miss base-offset changes).
///
/// All transitions of the tz database fall on whole seconds, so every interval end is a whole
/// second; instants are compared to the microsecond.
public struct ScheduleClock: Sendable {
  /// The schedule this clock answers for.
  public let schedule: ZoneSchedule

  /// The resolved time zone.
  private let zone: TimeZone
  /// For each weekday (0 = Sunday), the windows that open on it, as wall-clock seconds after
  /// the local midnight that starts the opening date (`to` up to 86,400 seconds after `from`,
  /// past 86,400 for windows that run past midnight).
  private let spansByWeekday: [[Span]]
  /// The except dates as days since 1970-01-01, sorted, without repeats.
  private let exceptionDays: [Int64]

  /// A window on its opening date, in wall-clock seconds after that date's midnight.
  private struct Span: Hashable, Sendable {
    var from: Int64
    var to: Int64
  }

  /// An interval of instants `[open, close)` in whole seconds since the epoch.
  private struct Interval {
    var open: Int64
    var close: Int64
  }

  /// A clock for `schedule`.
  ///
  /// - Throws: ``ScheduleError`` when the schedule is not valid (see
  ///   ``ZoneSchedule/validate()``): an unknown time zone, no windows, a window with no days.
  public init(_ schedule: ZoneSchedule) throws(ScheduleError) {
    try schedule.validate()
    guard let zone = TimeZone(identifier: schedule.timeZone) else {
      throw .unknownTimeZone(schedule.timeZone)
    }
    self.schedule = schedule
    self.zone = zone
    var spans = [[Span]](repeating: [], count: 7)
    for window in schedule.windows {
      let from = Int64(window.from.minutesSinceMidnight) * 60
      var to = Int64(window.to.minutesSinceMidnight) * 60
      if to <= from { to += 86_400 }
      let span = Span(from: from, to: to)
      for day in window.days where !spans[day.index].contains(span) {
        spans[day.index].append(span)
      }
    }
    spansByWeekday = spans
    exceptionDays = Array(Set(schedule.exceptions.map(\.daysSinceEpoch))).sorted()
  }

  /// Whether the system's tz database, as Foundation's `TimeZone` reads it, knows `name`.
  ///
  /// Names are case-sensitive (`"america/new_york"` is unknown). Foundation also accepts
  /// some names that are not tz database entries, such as `"GMT+0530"`: they are fixed
  /// offsets and accepted too.
  static func isKnownTimeZone(_ name: String) -> Bool {
    TimeZone(identifier: name) != nil
  }

  // MARK: - Questions

  /// Whether the zone is armed at `t`: `t` lies in the interval of some window.
  ///
  /// Each interval includes its opening instant and excludes its closing one.
  public func isArmed(at t: Timestamp) -> Bool {
    let micros = t.microsecondsSinceEpoch
    let today = localDay(ofSecond: Self.floorDiv(micros, 1_000_000))
    // Windows last at most 24 hours of wall time, so only those opening a few days around
    // the local date of `t` can hold it (the margin covers time zones that repeat or skip a
    // whole day, and folds that straddle midnight).
    for day in (today - 3)...(today + 1) where !isException(day) {
      let midnight = day * 86_400
      for span in spansByWeekday[ZoneSchedule.Weekday.of(daysSinceEpoch: day).index] {
        guard Self.micros(instant(wall: midnight + span.from)) <= micros else { continue }
        if micros < Self.micros(instant(wall: midnight + span.to)) { return true }
      }
    }
    return false
  }

  /// The first instant strictly after `t` at which ``isArmed(at:)`` changes, or `nil` when it
  /// never changes again.
  ///
  /// At the returned instant `c`, `isArmed(at: c) != isArmed(at: t)`, and the state is that
  /// of `t` at every instant from `t` up to `c`. Windows that overlap or touch make no change
  /// where they meet.
  ///
  /// `nil` means the zone stays as it is at `t` forever, as far as the tz database's rules go
  /// (they project today's rules into the future): a schedule that arms the zone at all times
  /// (such as every day `00:00`–`00:00`) once its last except date is behind, or one none of
  /// whose windows can open any more. An instant the microsecond count cannot hold
  /// (beyond ``Timestamp``'s range) is not returned either.
  ///
  /// The search goes date by date from the local date of `t` and is bounded: it ends at the
  /// first change, or after three weeks of local dates without an except date and without a
  /// change, when the weekly pattern has shown that nothing changes until the next except
  /// date (where it resumes; only an always-armed zone gets there) or ever. A change is
  /// usually found within a week; the most dates it looks at are about three weeks past each
  /// run of except dates it meets.
  public func nextChange(after t: Timestamp) -> Timestamp? {
    let armed = isArmed(at: t)
    var start = t.microsecondsSinceEpoch
    var pending: [Interval] = []
    var candidates: [Int64] = []
    while true {
      switch sweep(after: start, armed: armed, pending: &pending, candidates: &candidates) {
      case .change(let second):
        return Timestamp(microsecondsSinceEpoch: Self.micros(second))
      case .steady(let lastDay):
        // Nothing changed for three weeks of ordinary dates: the weekly pattern repeats until
        // the windows an except date removes. Only an armed zone can lose anything to one.
        guard armed, let exception = firstException(after: lastDay) else { return nil }
        // No window of the excepted date would have opened before the start of the date
        // before it, in any time zone; until then the zone stays armed.
        let resume = Self.micros((exception - 1) * 86_400 - 1)
        guard resume > start else { return nil }
        start = resume
      }
    }
  }

  // MARK: - The search

  /// What a sweep found.
  private enum SweepResult {
    /// The state changes at this second.
    case change(Int64)
    /// No change through the intervals of opening dates up to this day, the last three weeks
    /// of them ordinary dates: the state is the same from then on until an except date.
    case steady(lastDay: Int64)
  }

  /// Follows the intervals opening on the local dates from a little before `start`'s, in date
  /// order, and returns the first interval end strictly after `start` at which the state is
  /// not `armed`.
  ///
  /// After the intervals of date `D` are added, no later date's interval opens before
  /// `D × 86,400` (the earliest instant local midnight of `D + 1` can be, offsets being under
  /// a day), so every interval end before that has all the intervals that can hold it: the
  /// state there is known, and ends are examined in that order, once each.
  private func sweep(
    after start: Int64, armed: Bool, pending: inout [Interval], candidates: inout [Int64]
  ) -> SweepResult {
    pending.removeAll(keepingCapacity: true)
    let startDay = localDay(ofSecond: Self.floorDiv(start, 1_000_000))
    var day = startDay - 3
    var examinedFrom = Int64.min
    var ordinaryDays = 0
    while true {
      if isException(day) {
        ordinaryDays = 0
      } else {
        ordinaryDays += 1
        let midnight = day * 86_400
        for span in spansByWeekday[ZoneSchedule.Weekday.of(daysSinceEpoch: day).index] {
          let open = instant(wall: midnight + span.from)
          let close = instant(wall: midnight + span.to)
          // Empty intervals (both ends in one gap) never arm anything; ones that end by
          // `start` cannot hold or end after it.
          if open < close, Self.micros(close) > start {
            pending.append(Interval(open: open, close: close))
          }
        }
      }
      let horizon = day * 86_400
      // Ends not yet examined whose state is now known, after `start`, and representable.
      func isCandidate(_ end: Int64) -> Bool {
        end >= examinedFrom && end < horizon && end <= Self.lastSecond && Self.micros(end) > start
      }
      candidates.removeAll(keepingCapacity: true)
      for interval in pending {
        if isCandidate(interval.open) { candidates.append(interval.open) }
        if isCandidate(interval.close) { candidates.append(interval.close) }
      }
      candidates.sort()
      var previous: Int64?
      for end in candidates where end != previous {
        previous = end
        let armedThere = pending.contains { $0.open <= end && end < $0.close }
        if armedThere != armed { return .change(end) }
      }
      // Ends still to come are at or after the horizon: intervals closing before it cannot
      // hold them.
      pending.removeAll { $0.close < horizon }
      examinedFrom = horizon
      // Three weeks: the dates from `start`'s on hold every weekday twice, whole, with
      // the dates before each (whose windows can run into it) ordinary too.
      if ordinaryDays >= 21 && day >= startDay + 17 { return .steady(lastDay: day) }
      day += 1
    }
  }

  // MARK: - Local time

  /// The instant (whole seconds since the epoch) of a local wall time, given as seconds since
  /// 1970-01-01T00:00 of local wall-clock time: the only one; the first of two (a fold); the
  /// end of the gap when the wall time was skipped.
  private func instant(wall: Int64) -> Int64 {
    let offsetBefore = offset(at: wall - 86_400)
    let offsetNear = offset(at: wall)
    let offsetAfter = offset(at: wall + 86_400)
    var earliest = Int64.max
    func consider(_ candidateOffset: Int64) {
      let candidate = wall - candidateOffset
      if candidate < earliest && offset(at: candidate) == candidateOffset {
        earliest = candidate
      }
    }
    consider(offsetBefore)
    if offsetNear != offsetBefore { consider(offsetNear) }
    if offsetAfter != offsetBefore && offsetAfter != offsetNear { consider(offsetAfter) }
    if earliest != .max { return earliest }

    // A gap: the wall time is skipped. Before the transition local time is behind `wall`,
    // from it on ahead of it; the transition is the first second whose local time is at or
    // after `wall`.
    var low = wall - max(offsetBefore, offsetNear, offsetAfter)
    var high = wall - min(offsetBefore, offsetNear, offsetAfter)
    // The candidates bracket the transition; widen if the tz database says otherwise.
    for _ in 0..<4 where low + offset(at: low) >= wall { low -= 86_400 }
    for _ in 0..<4 where high + offset(at: high) < wall { high += 86_400 }
    while high - low > 1 {
      let middle = low + (high - low) / 2
      if middle + offset(at: middle) >= wall {
        high = middle
      } else {
        low = middle
      }
    }
    return high
  }

  /// The offset from UTC in force at an instant (whole seconds since the epoch), in seconds.
  private func offset(at second: Int64) -> Int64 {
    Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(second))))
  }

  /// The local date (days since 1970-01-01) of an instant given in whole seconds.
  private func localDay(ofSecond second: Int64) -> Int64 {
    Self.floorDiv(second + offset(at: second), 86_400)
  }

  /// Whether no window opens on this local date (days since 1970-01-01).
  private func isException(_ day: Int64) -> Bool {
    let index = firstExceptionIndex(notBefore: day)
    return index < exceptionDays.count && exceptionDays[index] == day
  }

  /// The first except date after `day`, if any.
  private func firstException(after day: Int64) -> Int64? {
    let index = firstExceptionIndex(notBefore: day + 1)
    return index < exceptionDays.count ? exceptionDays[index] : nil
  }

  /// The index of the first except date at or after `day` (binary search).
  private func firstExceptionIndex(notBefore day: Int64) -> Int {
    var low = 0
    var high = exceptionDays.count
    while low < high {
      let middle = (low + high) / 2
      if exceptionDays[middle] < day { low = middle + 1 } else { high = middle }
    }
    return low
  }

  // MARK: - Arithmetic

  /// The last whole second whose microseconds fit in a ``Timestamp``.
  private static let lastSecond = Int64.max / 1_000_000

  /// Whole seconds as microseconds, at the ends of `Int64` when they do not fit.
  private static func micros(_ seconds: Int64) -> Int64 {
    let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
    guard overflow else { return product }
    return seconds < 0 ? .min : .max
  }

  /// `a / b` rounded down (`b > 0`).
  private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let quotient = a / b
    return a % b < 0 ? quotient - 1 : quotient
  }
}
