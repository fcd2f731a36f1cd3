/// The zone clock (rules v2): zones with a lifetime (`validFrom`, `validUntil`) or a schedule
/// change state at instants of event time, and the engine applies each change as its clock
/// passes it, before the fix (or advance) that moved the clock there.
///
/// A zone that stops being active (its window closes, or its lifetime ends) closes the stays in
/// it at that instant: with a closing window, every checked-in device checks out with the reason
/// `scheduleClosed`; at the end of its lifetime the zone behaves as removed (its device state is
/// dropped, after check-outs with the reason `zoneRemoved` when its rules say `exitOnRemove`).
/// Dwells of the zone are cancelled either way. A zone that becomes active holds every device
/// outside; at `validFrom` it also behaves as added (the next fix of each device inside it is an
/// initial one).
extension ZoneEvaluator {
  /// Applies every zone change due at or before `time`, with the dwells due before each, in
  /// time order. Cheap when nothing is due (one comparison).
  @inline(__always)
  mutating func runZoneClock(upTo time: Timestamp, into events: inout [ZoneEvent]) {
    if !pendingEvents.isEmpty { flushPendingEvents(into: &events) }
    guard let next = zoneClock.nextDeadline, next <= time else { return }
    runDueZoneChanges(upTo: time, into: &events)
  }

  /// Hands out the events of zone changes made without an event list.
  mutating func flushPendingEvents(into events: inout [ZoneEvent]) {
    events.append(contentsOf: pendingEvents)
    pendingEvents.removeAll()
  }

  @inline(never)
  mutating func runDueZoneChanges(upTo time: Timestamp, into events: inout [ZoneEvent]) {
    var changed = false
    while let instant = zoneClock.nextDeadline, instant <= time {
      // The zones due at this instant, each once, for their current version.
      // Entries due "now" are stamped with their change's time: grouped by stamp (a load of
      // many timed zones makes one group of all of them).
      var due: [Timestamp: [Int32]] = [:]
      var seen = Set<UInt64>()
      while let entry = zoneClock.nextDeadline.flatMap({ $0 == instant ? zoneClock.pop() : nil }) {
        guard zoneTimings[entry.zone]?.token == entry.token, seen.insert(entry.token).inserted
        else { continue }
        let stamp = entry.instant == .earliest ? (entry.stamp ?? time) : entry.instant
        due[stamp, default: []].append(entry.zone)
      }
      for stamp in due.keys.sorted() {
        fireDueDwells(upTo: stamp, current: nil, fix: nil, into: &events)
        applyZoneChanges(due[stamp] ?? [], at: stamp, into: &events)
        changed = true
      }
    }
    if changed { zoneGeneration += 1 }
  }

  /// Moves the zones in `zones` to their state at `instant`, closing the stays of those that stop
  /// being active (events sorted by zone id, then device), and queues each zone's next change.
  mutating func applyZoneChanges(_ zones: [Int32], at instant: Timestamp, into events: inout [ZoneEvent]) {
    var closing: [Int32: CheckOutReason?] = [:]
    var expiring: Set<Int32> = []
    // Zones with the same schedule (a whole fleet's opening hours) share its arithmetic, which
    // asks Foundation's time zone for offsets over weeks of dates.
    var armedBySchedule: [Int32: Bool] = [:]
    var nextBySchedule: [Int32: Timestamp?] = [:]
    for zone in zones {
      guard var timing = zoneTimings[zone] else { continue }
      let valid = timing.isValid(at: instant)
      var armed = true
      if let clock = timing.schedule {
        if let known = armedBySchedule[timing.scheduleNumber] {
          armed = known
        } else {
          armed = clock.isArmed(at: instant)
          armedBySchedule[timing.scheduleNumber] = armed
        }
      }
      if timing.isKnown, timing.isActive, !(valid && armed) {
        if !valid {
          expiring.insert(zone)
          closing[zone] = timing.exitOnRemove ? .some(.zoneRemoved) : .some(nil)
        } else {
          closing[zone] = .some(.scheduleClosed)
        }
      }
      if timing.isKnown, !timing.isValid, valid {
        // Comes into existence: behaves as added (initial trigger for devices already inside).
        addSequence += 1
        zoneCores[Int(zone)].addedSequence = addSequence
      }
      timing.isKnown = true
      timing.isValid = valid
      timing.isArmed = armed
      zoneTimings[zone] = timing
      setDormant(zone, !(valid && armed))
      let number = timing.scheduleNumber
      let next = timing.nextChange(after: instant) { clock in
        if let known = nextBySchedule[number] { return known }
        let next = clock.nextChange(after: instant)
        nextBySchedule[number] = next
        return next
      }
      if let next {
        zoneClock.push(ZoneClockEntry(instant: next, stamp: nil, zone: zone, token: timing.token))
      }
    }
    guard !closing.isEmpty else { return }
    closeStays(in: closing, expiring: expiring, at: instant, into: &events)
  }

  /// Sets or clears the dormant gate of a zone and its elements.
  mutating func setDormant(_ zone: Int32, _ dormant: Bool) {
    if dormant {
      zoneCores[Int(zone)].gate.insert(.dormant)
    } else {
      zoneCores[Int(zone)].gate.remove(.dormant)
    }
    let gate = zoneCores[Int(zone)].gate
    // The slots read in place: a plain subscript copies the compiled zone (and retains it).
    let slots = zoneSlots.withUnsafeBufferPointer { $0[Int(zone)]?.slots }
    slots?.forEach { elementCores[Int($0)].gate = gate }
  }

  /// Ends every stay in the zones of `closing` at `instant`: a checked-in device whose stay will
  /// check out gets a check-out with the zone's reason (none for a zone whose lifetime ended
  /// without `exitOnRemove`: then no event); zones in `expiring` also drop their device state
  /// (as a removal does), the others keep their MRT windows. Roaming zones' pairs end the same
  /// way (``closeRoamingStays(in:expiring:at:)``).
  mutating func closeStays(
    in closing: [Int32: CheckOutReason?], expiring: Set<Int32>, at instant: Timestamp,
    into events: inout [ZoneEvent]
  ) {
    var closed: [ZoneEvent] = []
    modifyEveryDevicesRecords { evaluator, d, records in
      var touched = false
      for r in records.indices {
        let zone = records[r].zone
        guard let reason = closing[zone] else { continue }
        touched = true
        let record = records[r]
        if record.presence == .checkedIn, record.willCheckOut, let reason {
          closed.append(evaluator.closingCheckOut(record, device: d, at: instant, reason: reason))
          records[r].windowStart = instant
        }
        evaluator.endStay(device: d, record: &records[r])
      }
      if touched, !expiring.isEmpty {
        records.removeAll { expiring.contains($0.zone) }
      }
    }
    if !roamingRecords.isEmpty {
      closed += closeRoamingStays(in: closing, expiring: expiring, at: instant)
    }
    Self.sortClosings(&closed)
    events.append(contentsOf: closed)
  }

  /// The check-out of a stay ended by the zone rather than the device: stamped `instant`, at the
  /// device's last accepted position, speed and course.
  @inline(__always)  // out of line, its callers copied the whole evaluator to call it
  func closingCheckOut(
    _ record: ZoneRecord, device d: Int, at instant: Timestamp, reason: CheckOutReason
  ) -> ZoneEvent {
    var event = ZoneEvent(kind: .checkOut, time: instant, device: deviceNames[d])
    zoneSlots.withUnsafeBufferPointer { slots in
      event.zone = slots[Int(record.zone)]?.id
      event.customData = slots[Int(record.zone)]?.customData
    }
    event.fence = checkInFence(of: record, device: d)
    event.latitude = devices[d].lastCoordinate.latitude
    event.longitude = devices[d].lastCoordinate.longitude
    event.speed = devices[d].lastSpeed
    event.course = devices[d].lastCourse
    event.checkInTime = record.checkInTime
    event.durationSeconds = instant.seconds(since: record.checkInTime)
    event.checkOutReason = reason
    event.assignDeterministicID()
    return event
  }

  /// Follows the lifetime and schedule of a zone just put in `zone` (added or replaced), whose
  /// rules are `rules`; `previous` is the timing of the version it replaces, if that had one,
  /// and `replaces` whether it replaces a zone. The zone's state is applied at the next clock
  /// step, stamped with the engine's time now, so that closing a stay by a replace gives its
  /// events with the next fix or advance.
  mutating func followTiming(
    of rules: ZoneRules, zone: Int32, previous: ZoneTiming?, replaces: Bool
  ) {
    guard rules.hasLifetime || rules.schedule != nil else {
      // No timing: active. A replaced timed zone that was dormant wakes up now.
      if previous != nil {
        zoneTimings.removeValue(forKey: zone)
        setDormant(zone, false)
      }
      return
    }
    timingTokens += 1
    let shared = rules.schedule.flatMap { scheduleClock(for: $0) }
    var timing = ZoneTiming(
      validFrom: rules.validFrom, validUntil: rules.validUntil, schedule: shared?.clock,
      exitOnRemove: rules.exitOnRemove, token: timingTokens)
    timing.scheduleNumber = shared?.number ?? -1
    if let previous {
      timing.isKnown = previous.isKnown
      timing.isValid = previous.isValid
      timing.isArmed = previous.isArmed
    } else if replaces {
      // The replaced version was always active.
      timing.isKnown = true
      timing.isValid = true
      timing.isArmed = true
    }
    zoneTimings[zone] = timing
    // Until the clock step, a new zone counts for no fix; a replaced one keeps its state.
    setDormant(zone, !(timing.isKnown && timing.isActive))
    zoneClock.push(ZoneClockEntry(instant: .earliest, stamp: time, zone: zone, token: timing.token))
  }
}

extension ZoneEvaluator {
  /// Rebuilds every timed zone's state at the engine's time and the clock's queue (after a
  /// restore): the state a live evaluator has after its clock passed that time.
  ///
  /// A snapshot taken after a clock step holds no stay in a zone that is not active then. One
  /// taken between a zone change and the next call may (a zone replaced by a version whose
  /// schedule is closed or whose lifetime ended): those stays are closed here as that call's
  /// clock step would have closed them, and their check-outs wait in `pendingEvents` after the
  /// snapshot's own.
  mutating func restartZoneClock() {
    zoneClock.removeAll()
    // Without timed zones nothing changes (and restored safe discs stay valid).
    guard !zoneTimings.isEmpty else { return }
    var closing: [Int32: CheckOutReason?] = [:]
    var expiring: Set<Int32> = []
    for zone in zoneTimings.keys.sorted() {
      guard var timing = zoneTimings[zone] else { continue }
      timingTokens += 1
      timing.token = timingTokens
      if let time {
        timing.isKnown = true
        timing.isValid = timing.isValid(at: time)
        timing.isArmed = timing.isArmed(at: time)
        if let next = timing.nextChange(after: time) {
          zoneClock.push(ZoneClockEntry(instant: next, stamp: nil, zone: zone, token: timing.token))
        }
      } else {
        timing.isKnown = false
        zoneClock.push(ZoneClockEntry(instant: .earliest, stamp: nil, zone: zone, token: timing.token))
      }
      zoneTimings[zone] = timing
      setDormant(zone, !(timing.isKnown && timing.isActive))
      if timing.isKnown, !timing.isValid {
        expiring.insert(zone)
        closing[zone] = timing.exitOnRemove ? .some(.zoneRemoved) : .some(nil)
      } else if timing.isKnown, !timing.isArmed {
        closing[zone] = .some(.scheduleClosed)
      }
    }
    if !closing.isEmpty, let time {
      var closed: [ZoneEvent] = []
      closeStays(in: closing, expiring: expiring, at: time, into: &closed)
      pendingEvents.append(contentsOf: closed)
    }
    zoneGeneration += 1
  }
}

extension ZoneEvaluator {
  /// Appends the events the zone changes made since the last fix or advance caused, stamped with
  /// the engine's time at each change: check-outs of zones removed with `exitOnRemove`, and of
  /// zones replaced by a version whose lifetime or schedule has ended or closed. Without this
  /// call they come first in the next ``process(_:into:)`` or ``advance(to:into:)``; a host that
  /// stores each change with its events (as `FenceStore` does) calls it right after the change.
  public mutating func emitZoneChangeEvents(into events: inout [ZoneEvent]) {
    if !pendingEvents.isEmpty { flushPendingEvents(into: &events) }
    if let time { runZoneClock(upTo: time, into: &events) }
  }
}

extension ZoneEvaluator {
  /// The clock of a schedule, made once per distinct schedule (its time zone resolved once):
  /// a million zones with the same opening hours share one. The schedule was validated with its
  /// zone (`validateRules`), so the clock is made.
  mutating func scheduleClock(for schedule: ZoneSchedule) -> (clock: ScheduleClock, number: Int32)? {
    if let number = scheduleNumbers[schedule] {
      return (scheduleClockList[Int(number)], number)
    }
    guard let clock = try? ScheduleClock(schedule) else { return nil }
    let number = Int32(scheduleClockList.count)
    scheduleClockList.append(clock)
    scheduleNumbers[schedule] = number
    return (clock, number)
  }
}
