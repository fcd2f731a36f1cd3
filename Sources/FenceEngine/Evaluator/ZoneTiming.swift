/// The lifetime (`validFrom`, `validUntil`) and schedule of one zone as the evaluator follows
/// them over event time, in `zoneTimings` by zone slot.
///
/// The zone is *active* while it is valid (inside its lifetime) and armed (inside one of its
/// schedule's windows, or it has no schedule). The state here is the one last applied by the
/// zone clock (`ZoneEvaluator+ZoneClock.swift`); the clock compares it with the state at each
/// instant it reaches to know what changed.
struct ZoneTiming {
  var validFrom: Timestamp?
  var validUntil: Timestamp?
  var schedule: ScheduleClock?
  /// The schedule's number among the evaluator's distinct schedules (see
  /// `ZoneEvaluator.scheduleClock(for:)`), so that zones sharing it share its arithmetic.
  var scheduleNumber: Int32 = -1
  /// The zone's `exitOnRemove` rule.
  var exitOnRemove: Bool
  /// Changes whenever the zone is added, replaced or removed, so that clock entries made for an
  /// earlier version are recognised and dropped.
  var token: UInt64
  /// Whether the state below was ever applied: a zone added before the engine had a time (or
  /// just added) gets its first state at the next clock step, without events.
  var isKnown = false
  var isValid = false
  var isArmed = false

  var isActive: Bool { isValid && isArmed }

  /// Whether the zone exists at `time` (its lifetime holds it).
  func isValid(at time: Timestamp) -> Bool {
    if let validFrom, time < validFrom { return false }
    if let validUntil, time >= validUntil { return false }
    return true
  }

  /// Whether the zone's schedule arms it at `time` (always, without a schedule).
  func isArmed(at time: Timestamp) -> Bool {
    schedule?.isArmed(at: time) ?? true
  }

  /// The first instant after `time` at which the zone's validity or arming may change, if any.
  func nextChange(after time: Timestamp) -> Timestamp? {
    nextChange(after: time) { $0.nextChange(after: time) }
  }

  /// ``nextChange(after:)`` with the schedule's next change after `time` given by
  /// `scheduleChange` (which may share it among zones of the same schedule).
  func nextChange(
    after time: Timestamp, scheduleChange: (ScheduleClock) -> Timestamp?
  ) -> Timestamp? {
    var next: Timestamp?
    func consider(_ instant: Timestamp?) {
      guard let instant, instant > time else { return }
      if next.map({ instant < $0 }) ?? true { next = instant }
    }
    consider(validFrom)
    consider(validUntil)
    // The schedule matters only while the zone exists: before `validFrom` the clock looks
    // again at `validFrom`, and after `validUntil` never.
    if let schedule, isValid(at: time) { consider(scheduleChange(schedule)) }
    return next
  }
}

/// One moment at which the zone clock looks at a zone again.
struct ZoneClockEntry {
  /// When the entry is due; `Timestamp.earliest` for "at the next clock step" (a zone just
  /// added or replaced).
  var instant: Timestamp
  /// The instant events of the entry are stamped with, for entries due at the next clock step
  /// (the engine's time when the zone changed; `nil` for the step's own time).
  var stamp: Timestamp?
  var zone: Int32
  /// The ``ZoneTiming/token`` of the zone version the entry was made for.
  var token: UInt64
}

/// When the timed zones change next: a min-heap of zone clock entries by instant (ties in any
/// order: the clock sorts the zones due at one instant by id).
typealias ZoneClockQueue = DeadlineHeap<ZoneClockEntry>

extension ZoneClockEntry: Deadlined {
  var deadline: Timestamp { instant }
}

extension Timestamp {
  /// The earliest instant a timestamp can hold: a zone clock entry due at the next step.
  static let earliest = Timestamp(microsecondsSinceEpoch: .min)
}
