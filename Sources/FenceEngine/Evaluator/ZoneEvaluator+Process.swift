import FenceGEOS
import FenceGeometry
import FenceIndex

/// One admitted GEOLINE crossing of the current movement.
struct CrossingHit {
  var fraction: Double
  var zone: Int32
  var element: Int32
  var point: Coordinate
  var direction: CrossingDirection
}

/// Which monitored set, if any, restricts what a fix can trigger (see
/// ``ZoneEvaluator/allows(_:_:)``).
struct MonitoredFilter {
  /// Whether fences and GEOLINEs outside the monitored set are ignored.
  var isOn: Bool
  /// Whether the set is the one computed at this fix (a device's first fix) rather than at the
  /// previous one.
  var usesCurrent: Bool
  /// The device slot whose previous set is read.
  var device: Int
}

/// Whether an ascending array holds `value` (binary search): monitored sets, device tags.
func sortedContains<Value: Comparable>(_ values: [Value], _ value: Value) -> Bool {
  var low = 0
  var high = values.count
  while low < high {
    let mid = (low + high) / 2
    if values[mid] < value { low = mid + 1 } else { high = mid }
  }
  return low < values.count && values[low] == value
}

extension ZoneEvaluator {
  /// Whether the element in `slot` may trigger under `filter`. During a fix's step the set
  /// computed at this fix is in `scratchMonitored` and the previous one still in the device's
  /// `monitored`; both are read in place.
  @inline(__always)
  func allows(_ slot: Int32, _ filter: MonitoredFilter) -> Bool {
    guard filter.isOn else { return true }
    if filter.usesCurrent { return sortedContains(scratchMonitored, slot) }
    return monitoredSets.withUnsafeBufferPointer { sets in
      filter.device < sets.count && sortedContains(sets[filter.device], slot)
    }
  }

  /// The per-fix step (``process(at:slot:into:)``) on `fix`.
  @inline(__always)
  mutating func process(_ fix: FixReading, slot d: Int, into events: inout [ZoneEvent]) {
    withUnsafePointer(to: fix) { process(at: $0, slot: d, into: &events) }
  }

  /// The whole per-fix step for the device in slot `d` (see ``process(_:into:)``), as the
  /// spec's steps in order; each named step below says what it reads and leaves behind.
  ///
  /// The fix is read from `reading`, not passed as a value: the batch loop fills its reading a
  /// fix ahead (see `processAhead`), so the step's loads find values long written. A value
  /// argument is copied by the caller just before the call, and the step's 16-byte loads
  /// spanned the copy's narrower stores: each waited for them to reach the cache (a failed
  /// store-to-load forward, 17 % of the step's own samples with a million devices).
  ///
  /// `cellKey` is the fix's key in the cell cache when the batch loop made it a fix ahead
  /// (``ContainmentCellCache/prefetchProbe(latitude:longitude:)``), else
  /// ``ContainmentCellCache/unknownKey``.
  mutating func process(
    at reading: UnsafePointer<FixReading>, slot d: Int,
    cellKey: UInt64 = ContainmentCellCache.unknownKey, into events: inout [ZoneEvent]
  ) {
    let fix = reading.pointee
    if !pendingEvents.isEmpty { flushPendingEvents(into: &events) }
    // 0. Rejection.
    if let reason = rejectionReason(for: fix, device: d) {
      reject(fix, reason, device: d, into: &events)
      return
    }
    acceptedFixCount += 1
    let t = fix.time
    // Zones whose lifetime or schedule changed state since the clock last moved (rules v2).
    runZoneClock(upTo: t, into: &events)
    let coordinate = Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude)
    // Whether some zone has conditions (rules v2). What they judge the fix on is made after
    // the skips, which need none of it (kept alive across them, it lengthened every fix's
    // step, conditions or not).
    let hasConditions = conditionedZoneCount > 0
    // The fix's ECEF vector costs trigonometry: it is made only when a test needs it (the
    // skip test, proximity, a circle or hysteresis test, the safe radius).
    var position: Position?
    if skipsUnchanged(
      fix, coordinate, hasConditions: hasConditions, device: d, position: &position,
      into: &events)
    {
      return
    }
    // The cell cache's lists for the fix's cell (nil: the index answers). A device settled in
    // the cell its memo names, which still answers, can change nothing at this fix if the
    // cell's fences to test answer it as they did the fix that settled it, and (rules v2) the
    // zones it would check in to still fail their conditions.
    let cell = cellEntry(
      latitude: fix.latitude, longitude: fix.longitude, knownKey: cellKey, device: d)
    if cell.fromMemo, roaming.isEmpty, let entry = cell.entry {
      let settled = devices.withUnsafeBufferPointer { $0[d].settledInCell }
      if settled.isSettled,
        entry.testCount == 0
          || testAnswers(of: entry, at: coordinate, position: &position) == settled.answers,
        !hasConditions
          || conditionsKeepSettled(in: entry, answers: settled.answers, fix, coordinate, device: d)
      {
        skip(fix, coordinate, device: d, settled: true, into: &events)
        return
      }
    }
    // What zones with conditions judge this fix on (rules v2); nil while no zone has any.
    let context = conditionContext(for: fix, coordinate, device: d)
    let isFirst = !devices[d].hasFix
    let filter = monitoringFilter(at: coordinate, isFirst: isFirst, device: d, position: &position)

    // The device's records are worked on outside `devices` (one unique buffer, no nested
    // uniqueness checks), and put back whenever other code may read them.
    var records = takeRecords(ofDevice: d)
    let measuresSafeRadius = configuration.skipsUnchangedFixes && configuration.proximity == nil
    var testAnswers: UInt32 = 0
    let insideBoundary = markInside(
      at: coordinate, cell: cell.entry, device: d, position: &position, records: &records,
      filter: filter, context: context, measuringBoundary: measuresSafeRadius,
      testAnswers: &testAnswers)
    let hasCrossings = findCrossings(
      to: coordinate, isFirst: isFirst, device: d, filter: filter, context: context,
      records: &records)
    // 1. Timers due.
    fireDueDwells(upTo: t, fix: fix, device: d, records: &records, into: &events)
    // 2-4. Check-outs, GEOLINE check-ins, area check-ins.
    checkOutAndIn(
      fix: fix, context: context, isFirst: isFirst, hasCrossings: hasCrossings, device: d,
      records: &records, into: &events)
    // Roaming fences (rules v2), measured against the circles of other devices.
    if !roaming.isEmpty {
      evaluateRoaming(fix, coordinate, isFirst: isFirst, context: context, device: d, into: &events)
    }
    // 5. Monitored-set change.
    reportMonitoredSetChange(at: t, device: d, into: &events)

    // The device's new last fix, and its records put back.
    if measuresSafeRadius {
      noteSafeRadius(
        around: position ?? Position(coordinate), device: d, records: records,
        insideBoundary: insideBoundary, isFirst: isFirst)
    }
    let settled = settledState(
      coordinate, cell: cell.entry, testAnswers: testAnswers, records: records)
    recordLastFix(fix, coordinate, device: d, records: &records, settledInCell: settled)
    if !roaming.isEmpty { moveRoamingCircles(of: d, to: coordinate) }
  }

  // MARK: - The steps of `process`

  /// Whether the fix was skipped (and recorded as the device's last) because it provably cannot
  /// change anything (``Configuration/skipsUnchangedFixes``): the test in degrees first, so that
  /// a skipped fix pays no trigonometry, then the one on the fix's `position`, made here. A fix
  /// is never skipped while some zone has conditions (`hasConditions`): its speed, course or
  /// tags may differ from the last fix's.
  @inline(__always)
  mutating func skipsUnchanged(
    _ fix: FixReading, _ coordinate: Coordinate, hasConditions: Bool, device d: Int,
    position: inout Position?, into events: inout [ZoneEvent]
  ) -> Bool {
    guard !hasConditions, roaming.isEmpty else { return false }
    if canSkipInDegrees(coordinate, device: d) {
      skip(fix, coordinate, device: d, into: &events)
      return true
    }
    guard configuration.skipsUnchangedFixes else { return false }
    let known = Position(coordinate)
    position = known
    guard canSkip(known, device: d) else { return false }
    skip(fix, coordinate, device: d, into: &events)
    return true
  }

  /// Which monitored set restricts what this fix can trigger. With proximity monitoring, the set
  /// around the fix goes to `scratchMonitored`; the one registered before it stays in the
  /// device's `monitored` until step 5 (``reportMonitoredSetChange(at:device:into:)``), which
  /// swaps them (the previous set's storage becomes the next fix's scratch). Without proximity
  /// no array is touched: every local array would cost a release per fix.
  @inline(__always)
  mutating func monitoringFilter(
    at coordinate: Coordinate, isFirst: Bool, device d: Int, position: inout Position?
  ) -> MonitoredFilter {
    var filter = MonitoredFilter(isOn: false, usesCurrent: isFirst, device: d)
    guard let proximity = configuration.proximity else { return filter }
    var monitoredNow: [Int32] = []
    swap(&monitoredNow, &scratchMonitored)
    monitoredNow.empty()
    let known = position ?? Position(coordinate)
    position = known
    computeMonitoredSet(around: known, proximity, into: &monitoredNow)
    swap(&monitoredNow, &scratchMonitored)
    filter.isOn = proximity.triggersOnlyMonitored
    return filter
  }

  /// Whether the movement from the device's previous accepted fix to `coordinate` crosses an
  /// admitted GEOLINE; the crossings are left in `scratchCrossings` (a local array only when the
  /// movement may meet a GEOLINE), and each crossed zone gets a record.
  @inline(__always)
  mutating func findCrossings(
    to coordinate: Coordinate, isFirst: Bool, device d: Int, filter: MonitoredFilter,
    context: ConditionContext?, records: inout [ZoneRecord]
  ) -> Bool {
    let from = devices[d].lastCoordinate
    guard !isFirst && !geolineIndex.isEmpty && from != coordinate else { return false }
    let movement = BoundingBox.movement(from: from, to: coordinate)
    guard movementMayMeetGeolines(movement) else { return false }
    var crossings: [CrossingHit] = []
    swap(&crossings, &scratchCrossings)
    crossings.empty()
    findCrossings(
      from: from, to: coordinate, movement: movement, filter: filter, context: context,
      into: &crossings)
    for crossing in crossings { _ = records.ensureRecord(for: crossing.zone) }
    let hasCrossings = !crossings.isEmpty
    swap(&crossings, &scratchCrossings)
    return hasCrossings
  }

  /// Step 1: every dwell due by the fix's time (with the device's `records` put back while the
  /// dwells of all devices are read).
  @inline(__always)
  mutating func fireDueDwells(
    upTo t: Timestamp, fix: FixReading, device d: Int, records: inout [ZoneRecord],
    into events: inout [ZoneEvent]
  ) {
    if dwellsMayFire(upTo: t, records: records) {
      putRecords(&records, device: d)
      fireDueDwells(upTo: t, current: d, fix: fix, into: &events)
      records = takeRecords(ofDevice: d)
    }
    if let next = roamingNextDeadline, next <= t {
      fireDueRoamingDwells(upTo: t, into: &events)
    }
  }

  /// Steps 2-4 and the pruning of finished records. They change nothing when every record is a
  /// stay still inside with no pending exit (most fixes of a device that stays in its zones):
  /// skipped then. A fix with no conditions to judge and no GEOLINE crossed, whose records are
  /// all of zones with plain rules, takes the shorter way of
  /// ``checkOutAndInPlainly(fix:isFirst:device:records:into:)``, to the same events and
  /// records.
  @inline(__always)
  mutating func checkOutAndIn(
    fix: FixReading, context: ConditionContext?, isFirst: Bool, hasCrossings: Bool,
    device d: Int, records: inout [ZoneRecord], into events: inout [ZoneEvent]
  ) {
    guard !records.isEmpty && (hasCrossings || !Self.areSettled(records)) else { return }
    if context == nil, !hasCrossings, takesPlainSteps,
      checkOutAndInPlainly(fix: fix, isFirst: isFirst, device: d, records: &records, into: &events)
    {
      return
    }
    checkOut(records: &records, fix: fix, context: context, device: d, into: &events)
    if hasCrossings {
      checkInCrossings(
        scratchCrossings, records: &records, fix: fix, context: context, device: d,
        into: &events)
    }
    checkInAreas(
      records: &records, fix: fix, context: context, isFirst: isFirst, device: d,
      into: &events)
    Self.pruneRecords(&records, at: fix.time, zoneCores: zoneCores)
  }

  /// Step 5: a `monitoredSetChanged` event when the set computed at this fix differs from the
  /// device's previous one, which it then replaces.
  @inline(__always)
  mutating func reportMonitoredSetChange(
    at t: Timestamp, device d: Int, into events: inout [ZoneEvent]
  ) {
    guard configuration.proximity != nil else { return }
    makeRoomForMonitoredSets()
    if scratchMonitored != monitoredSets[d] {
      appendMonitoredChange(
        from: monitoredSets[d], to: scratchMonitored, time: t, device: d, into: &events)
    }
    swap(&scratchMonitored, &monitoredSets[d])
    scratchMonitored.empty()
  }

  // MARK: - Steps

  /// Counts a rejected fix and, when diagnostics are on, reports it.
  mutating func reject(
    _ fix: FixReading, _ reason: RejectionReason, device d: Int, into events: inout [ZoneEvent]
  ) {
    rejections[reason] += 1
    guard configuration.reportsRejections else { return }
    var event = ZoneEvent(kind: .rejected, time: fix.time, device: deviceNames[d])
    event.reason = reason
    if fix.latitude.isFinite, fix.longitude.isFinite {
      event.latitude = fix.latitude
      event.longitude = fix.longitude
    }
    event.speed = fix.speed
    event.course = fix.course
    event.assignDeterministicID()
    events.append(consume event)
  }

  /// Step 2: counts fixes outside for stays, and checks out those whose exit is confirmed,
  /// sorted by zone id.
  ///
  /// The zones to check out are gathered in `scratchZones` and sorted there
  /// (``sortGatheredZones()``): a local array would cost a release per fix.
  mutating func checkOut(
    records: inout [ZoneRecord], fix: FixReading, context: ConditionContext?, device d: Int,
    into events: inout [ZoneEvent]
  ) {
    scratchZones.empty()
    scratchEndedStays.empty()
    for r in records.indices {
      // A fix hidden from the zone by its conditions counts no exit.
      guard records[r].presence != .outside, !records[r].isHiddenNow else { continue }
      let zone = records[r].zone
      if records[r].isInsideNow {
        if records[r].exitCount != 0 {
          records[r].exitCount = 0
          pendingExits.remove(device: d, zone: zone)
        }
        continue
      }
      records[r].exitCount += 1
      let confirmations = zoneCores[Int(zone)].exitConfirmations
      guard records[r].exitCount >= confirmations else {
        if records[r].exitCount == 1 {
          pendingExits[device: d, zone: zone] = exitOfThisFix(fix, zone: zone, context: context)
        }
        continue
      }
      // Confirmed: the exit's first fix is this one, or the one the table kept.
      let kept = records[r].exitCount > 1 ? pendingExits.remove(device: d, zone: zone) : nil
      if records[r].presence == .checkedIn {
        scratchEndedStays.append(
          (zone, kept ?? exitOfThisFix(fix, zone: zone, context: context)))
      }
      if records[r].presence == .checkedIn, records[r].willCheckOut {
        scratchZones.append(zone)
      } else {
        records[r].endStay()
      }
    }
    sortGatheredZones()
    for k in scratchZones.indices {
      checkOut(zone: scratchZones[k], records: &records, device: d, into: &events)
    }
  }

  /// The check-out of zone slot `zone`, gathered by ``checkOut(records:fix:context:device:into:)``
  /// with its ended stay.
  @inline(__always)
  mutating func checkOut(
    zone: Int32, records: inout [ZoneRecord], device d: Int, into events: inout [ZoneEvent]
  ) {
    // Every gathered zone ended a checked-in stay.
    checkOut(
      record: records.recordIndex(of: zone).index, exit: endedStay(zone: zone)!,
      records: &records, device: d, into: &events)
  }

  /// The check-out of the checked-in stay in `records[r]`, which `exit` (its first outside fix)
  /// ended: the event, and the stay ended with its retrigger window opened at the exit.
  @inline(__always)
  mutating func checkOut(
    record r: Int, exit: PendingExit, records: inout [ZoneRecord], device d: Int,
    into events: inout [ZoneEvent]
  ) {
    let checkInTime = records[r].checkInTime
    appendEvent(
      .checkOut, time: exit.time, device: d, zone: records[r].zone,
      fence: checkInFence(of: records[r], device: d),
      to: &events
    ) { event in
      event.latitude = exit.latitude
      event.longitude = exit.longitude
      event.speed = exit.speed
      event.course = exit.course
      event.checkInTime = checkInTime
      event.durationSeconds = exit.time.seconds(since: checkInTime)
    }
    records[r].windowStart = exit.time
    records[r].endStay()
  }

  /// The current fix as the first fix of an exit from zone slot `zone`: its time, position and
  /// the motion the zone's events report.
  @inline(__always)
  mutating func exitOfThisFix(_ fix: FixReading, zone: Int32, context: ConditionContext?) -> PendingExit {
    let motion =
      context == nil ? (speed: fix.speed, course: fix.course)
      : eventMotion(zone: zone, fix: fix, context)
    return PendingExit(
      time: fix.time, latitude: fix.latitude, longitude: fix.longitude, speed: motion.speed,
      course: motion.course)
  }

  /// When the current fix's check-out step ended the checked-in stay of zone slot `zone`, the
  /// exit that ended it (its first fix stamps the check-out).
  @inline(__always)
  func endedStay(zone: Int32) -> PendingExit? {
    for ended in scratchEndedStays where ended.zone == zone { return ended.exit }
    return nil
  }

  /// Step 3: GEOLINE check-ins, in path order.
  mutating func checkInCrossings(
    _ crossings: [CrossingHit], records: inout [ZoneRecord], fix: FixReading,
    context: ConditionContext?, device d: Int, into events: inout [ZoneEvent]
  ) {
    let t = fix.time
    let lastTime = devices[d].lastTime
    for crossing in crossings {
      let r = records.recordIndex(of: crossing.zone).index
      // Judged by the presence at the crossing's time: checked in through a fence until a
      // check-out of this fix, whose stamp may lie after the crossing.
      guard records[r].presence != .checkedIn else { continue }
      let crossingTime = Self.interpolate(from: lastTime, to: t, fraction: crossing.fraction)
      if let ended = endedStay(zone: crossing.zone), crossingTime < ended.time { continue }
      let window = zoneCores[Int(crossing.zone)].minimumRetriggerTime
      if records[r].isSuppressed(at: crossingTime, minimumRetriggerTime: window) { continue }
      records[r].windowStart = crossingTime
      let motion =
        context == nil ? (speed: fix.speed, course: fix.course)
        : eventMotion(zone: crossing.zone, fix: fix, context)
      appendEvent(
        .checkIn, time: crossingTime, device: d, zone: crossing.zone,
        fence: elementID(at: crossing.element), to: &events
      ) { event in
        event.trigger = .geoline
        event.direction = crossing.direction
        event.latitude = crossing.point.latitude
        event.longitude = crossing.point.longitude
        event.speed = motion.speed
        event.course = motion.course
        event.willCheckOut = false
      }
    }
  }

  /// Step 4: area check-ins, sorted by zone id.
  ///
  /// Gathers the zones in `scratchZones` as ``checkOut(records:fix:context:device:into:)`` does.
  mutating func checkInAreas(
    records: inout [ZoneRecord], fix: FixReading, context: ConditionContext?, isFirst: Bool,
    device d: Int, into events: inout [ZoneEvent]
  ) {
    scratchZones.empty()
    for r in records.indices where records[r].presence == .outside && records[r].isInsideNow {
      scratchZones.append(records[r].zone)
    }
    guard !scratchZones.isEmpty else { return }
    let lastSequence = devices[d].lastSequence
    sortGatheredZones()
    for k in scratchZones.indices {
      checkIn(
        record: records.recordIndex(of: scratchZones[k]).index, records: &records, fix: fix,
        context: context, isFirst: isFirst, lastSequence: lastSequence, device: d, into: &events)
    }
  }

  /// The check-in (or silent entry) of the zone of `records[r]`, found inside at `fix` while
  /// outside before (gathered by ``checkInAreas(records:fix:context:isFirst:device:into:)``);
  /// `lastSequence` is the device's add sequence at its last accepted fix.
  @inline(__always)
  mutating func checkIn(
    record r: Int, records: inout [ZoneRecord], fix: FixReading,
    context: ConditionContext?, isFirst: Bool, lastSequence: UInt64, device d: Int,
    into events: inout [ZoneEvent]
  ) {
    let t = fix.time
    let zoneSlot = records[r].zone
    let core = zoneCores[Int(zoneSlot)]
    let isInitial = isFirst || core.addedSequence > lastSequence
    if (isInitial && !core.initialTrigger)
      || records[r].isSuppressed(at: t, minimumRetriggerTime: core.minimumRetriggerTime)
    {
      records[r].presence = .insideSilently
      records[r].exitCount = 0
      return
    }
    stayCounter += 1
    let fence = elementID(at: records[r].fenceNow)
    records[r].checkIn(
      at: t, fence: records[r].fenceNow, stay: stayCounter, willCheckOut: core.checkOut)
    if core.hasDwell {
      let deadline = t.adding(seconds: core.dwell)
      records[r].dwell = .scheduled
      records[r].dwellDeadline = deadline
      dwellQueue.push(
        DwellEntry(deadline: deadline, device: Int32(d), zone: zoneSlot, stay: stayCounter))
    }
    let motion =
      context == nil ? (speed: fix.speed, course: fix.course)
      : eventMotion(zone: zoneSlot, fix: fix, context)
    appendEvent(
      .checkIn, time: t, device: d, zone: zoneSlot, fence: fence, to: &events
    ) { event in
      event.trigger = .fence
      event.latitude = fix.latitude
      event.longitude = fix.longitude
      event.speed = motion.speed
      event.course = motion.course
      event.willCheckOut = core.checkOut
    }
  }

  /// Appends a new event of the zone in `zone` (its id and custom data set) to `events`, lets
  /// `fill` set the other fields where the event lies, and marks its id as that of its content
  /// (``ZoneEvent/assignDeterministicID()``, hashed only when read): the event (184 bytes, with
  /// strings) is made in the array, neither copied nor destroyed on the way, and its zone's
  /// fields are initialized there (``ZoneEvent/initializeZoneFields(zone:customData:fence:)``).
  ///
  /// Mutating although it changes nothing of the evaluator: called from the mutating per-fix
  /// steps, a non-mutating method made the compiler copy the whole evaluator (about a kilobyte)
  /// on every event.
  @inline(__always)
  mutating func appendEvent(
    _ kind: ZoneEvent.Kind, time: Timestamp, device d: Int, zone: Int32, fence: String,
    to events: inout [ZoneEvent], _ fill: (inout ZoneEvent) -> Void
  ) {
    // Appended small and filled in place: an event made whole and then appended is copied.
    events.append(ZoneEvent(placeholderKind: kind, time: time, device: deviceNames[d]))
    events.withUnsafeMutableBufferPointer { appended in
      let last = appended.count - 1
      // Read in place: a plain subscript copies the whole compiled zone to read one field.
      zoneSlots.withUnsafeBufferPointer { slots in
        appended[last].initializeZoneFields(
          zone: slots[Int(zone)]?.id, customData: slots[Int(zone)]?.customData, fence: fence)
      }
      fill(&appended[last])
      appended[last].assignDeterministicIDOverPlaceholder()
    }
  }

  /// Stores a fix as the device's last accepted fix, puts the device's `records` (taken out
  /// for the fix's step) back, and moves the engine's time up to the fix.
  ///
  /// `settledInCell` is the device's new ``DeviceState/settledInCell``
  /// (``settledState(_:cell:testAnswers:records:)``), written with the rest.
  mutating func recordLastFix(
    _ fix: FixReading, _ coordinate: Coordinate, device d: Int, records: inout [ZoneRecord],
    settledInCell: SettledInCell
  ) {
    if time.map({ fix.time > $0 }) ?? true { time = fix.time }
    let sequence = addSequence
    // A large fleet's records are put back here, in a block or the array; a small fleet's go
    // back into the array as they came out, under the one uniqueness check of all the writes
    // below (this runs for every accepted fix).
    let pooled = poolsRecords
    if pooled { putRecords(&records, device: d) } else { recordStore.releaseTakenBlock() }
    devices.withUnsafeMutableBufferPointer { devices in
      if !pooled { swap(&records, &devices[d].records) }
      Self.note(fix, coordinate, sequence: sequence, asLastOf: &devices[d])
      devices[d].settledInCell = settledInCell
    }
  }

  /// Stores a fix as the device's last accepted fix (its records left where they are), and
  /// moves the engine's time up to it.
  mutating func recordLastFix(_ fix: FixReading, _ coordinate: Coordinate, device d: Int) {
    if time.map({ fix.time > $0 }) ?? true { time = fix.time }
    let sequence = addSequence
    devices.withUnsafeMutableBufferPointer { devices in
      Self.note(fix, coordinate, sequence: sequence, asLastOf: &devices[d])
    }
  }

  @inline(__always)
  private static func note(
    _ fix: FixReading, _ coordinate: Coordinate, sequence: UInt64,
    asLastOf device: inout DeviceState
  ) {
    device.hasFix = true
    device.lastTime = fix.time
    device.lastCoordinate = coordinate
    device.setLastMotion(speed: fix.speed, course: fix.course)
    device.lastSequence = sequence
  }

  /// Why a fix must be rejected, if it must (the spec's step 0, in its order).
  @inline(__always)
  func rejectionReason(for fix: FixReading, device d: Int) -> RejectionReason? {
    let latitude = fix.latitude
    let longitude = fix.longitude
    guard Coordinate.isValid(latitude: latitude, longitude: longitude) else {
      return .invalidCoordinate
    }
    if latitude == 0, longitude == 0 { return .nullIsland }
    let hasFix = devices[d].hasFix
    if hasFix {
      if fix.time < devices[d].lastTime { return .outOfOrder }
      if fix.time == devices[d].lastTime { return .duplicate }
    }
    if let accuracy = fix.accuracy, !(accuracy >= 0 && accuracy <= configuration.maximumAccuracy) {
      return .lowAccuracy
    }
    if hasFix, let maximumSpeed = configuration.maximumSpeed {
      let metres = WGS84.distance(
        devices[d].lastCoordinate, Coordinate(uncheckedLatitude: latitude, longitude: longitude))
      if metres / fix.time.seconds(since: devices[d].lastTime) > maximumSpeed {
        return .implausibleSpeed
      }
    }
    return nil
  }

  /// Sets each record's `isInsideNow` and `fenceNow` for a fix at `coordinate`: containment by
  /// the zone's fences, or, for a device inside, exit hysteresis.
  ///
  /// `cell` is the cell cache's entry for the fix's cell
  /// (``cellEntry(latitude:longitude:device:)``), nil when the index answers. `position` is
  /// the fix's position when already made; it is made (and stored) on the first test that
  /// needs it, so a fix in no fence's box and no hysteresis pays no trigonometry.
  ///
  /// `testAnswers` is set to how the fix answered the cell's fences to test (bit *k* for the
  /// *k*-th, of the first 32; 0 without a cell), which
  /// ``settledState(_:cell:testAnswers:records:)`` keeps for the device's next fixes in
  /// the cell.
  ///
  /// - Returns: with `measuringBoundary`, the distance in metres to the boundary of the nearest
  ///   fence holding the position (infinity when none does); else infinity.
  mutating func markInside(
    at coordinate: Coordinate, cell: ContainmentCellCache.Entry?, device d: Int,
    position: inout Position?, records: inout [ZoneRecord], filter: MonitoredFilter,
    context: ConditionContext?, measuringBoundary: Bool, testAnswers answers: inout UInt32
  ) -> Double {
    var boundary = Double.infinity
    answers = 0
    if let context {
      // The records' marks reset, and those of zones whose conditions the fix fails hidden.
      hideRecordsFailingConditions(&records, context)
    } else if !records.isEmpty {
      // (An empty array is the shared empty buffer: asking it for mutable storage would make a
      // new one, at every fix of a device in no zone.)
      records.withUnsafeMutableBufferPointer { records in
        for r in records.indices { records[r].resetMarks() }
      }
    }
    /// Files a fence holding the position under its zone (the zone's best-ranked fence wins).
    func mark(_ slot: Int32, _ known: Position?) {
      let core = elementCores[Int(slot)]
      // A fence of a dormant zone, or of one whose conditions the fix fails, holds nothing.
      if core.gate.contains(.dormant) { return }
      let (r, found) = records.recordIndex(of: core.zone)
      if core.gate.contains(.conditioned), let context {
        // A zone the device has a record of was judged with the records.
        if found ? records[r].isHiddenNow : !passesConditions(core.zone, context) { return }
      }
      if measuringBoundary {
        let known = known ?? Position(coordinate)
        position = known
        // On the tables: a method of the evaluator, even inlined, copies the whole evaluator
        // (over 2 KB) from this local function's capture at every fence.
        boundary = min(
          boundary,
          Self.fenceDistanceToBoundary(
            slot, from: known, within: Self.largestSafeRadius, cores: elementCores,
            polygons: polygonFences))
      }
      if !found { records.insertRecord(for: core.zone, at: r) }
      // Both writes under one uniqueness check.
      records.withUnsafeMutableBufferPointer { records in
        let best = records[r].fenceNow
        if best < 0
          || elementRanks.sparseSlot(slot, blank: 0) < elementRanks.sparseSlot(best, blank: 0)
        {
          records[r].fenceNow = slot
        }
        records[r].isInsideNow = true
      }
    }

    if let cell {
      // The cell's fences: those covering all of it need no test.
      let start = Int(cell.start)
      let testStart = start + Int(cell.insideCount)
      for k in start..<testStart {
        let slot = cellCache.pool[k].slot
        if allows(slot, filter) { mark(slot, position) }
      }
      // The answers are kept for settling (``settledState``): the first 32, by list position.
      for k in testStart..<(testStart + Int(cell.testCount)) {
        let slot = cellCache.pool[k].slot
        guard allows(slot, filter) else { continue }
        if cellFenceContains(slot, poolSlot: k, coordinate, position: &position) {
          answers |= 1 &<< UInt32(truncatingIfNeeded: (k &- testStart) & 31)
          mark(slot, position)
        }
      }
    } else if fencesFoundAhead.fix >= 0 {
      // A batch's look-ahead made this very search already (the index has not changed since).
      let found = fencesFoundAhead
      fencesFoundAhead.fix = -1
      for k in 0..<found.count {
        let slot = found[k]
        guard allows(slot, filter) else { continue }
        if fenceContains(slot, coordinate, position: &position) { mark(slot, position) }
      }
    } else {
      var hits = [Int32]()
      swap(&hits, &scratchHits)
      fenceIndex.searchInPlace(containing: coordinate.latitude, longitude: coordinate.longitude) {
        hits.append($0)
      }
      for slot in hits where allows(slot, filter) {
        if fenceContains(slot, coordinate, position: &position) { mark(slot, position) }
      }
      // Cleared after use, so the buffer is empty (and ready) when the next fix takes it.
      hits.empty()
      swap(&hits, &scratchHits)
    }

    // A stay not found inside is kept within its zone's exit hysteresis. Skipped while no
    // zone has one: the pass read every record again, and whether a record is inside falls at
    // random on ground the device has not been over.
    guard zoneCores.hasExitHysteresis else { return boundary }
    for r in records.indices {
      guard records[r].presence != .outside, !records[r].isInsideNow, !records[r].isHiddenNow
      else { continue }
      let zone = records[r].zone
      let hysteresis = zoneCores[Int(zone)].exitHysteresis
      guard hysteresis > 0, let slots = zoneSlots[Int(zone)]?.slots else { continue }
      let known = position ?? Position(coordinate)
      position = known
      var nearest = Double.infinity
      slots.forEachFence { slot in
        guard allows(slot, filter) else { return }
        let metres = Self.fenceDistance(
          slot, from: known, cores: elementCores, polygons: polygonFences)
        nearest = min(nearest, metres)
      }
      if nearest <= hysteresis { records[r].isInsideNow = true }
    }
    return boundary
  }

  /// Whether the fence in `slot` covers `coordinate` (boundary inside): circles from the flat
  /// table, polygons with the configured backend (a GEOS failure falls back to the native
  /// answer). The fix's position (its ECEF vector: trigonometry) is made, and stored in
  /// `position`, only when a circle's test in degrees (``CircleDegreeTest``) leaves it
  /// undecided. Polygons are tested on the coordinate alone.
  @inline(__always)
  func fenceContains(
    _ slot: Int32, _ coordinate: Coordinate, position: inout Position?
  ) -> Bool {
    let core = elementCores[Int(slot)]
    switch core.kind {
    case .circle:
      if position == nil,
        let decided = core.degreeTest.contains(
          latitude: coordinate.latitude, longitude: coordinate.longitude)
      {
        return decided
      }
      let known = position ?? Position(coordinate)
      position = known
      return core.circle.contains(known.ecef)
    case .polygon:
      if let test = core.polygonTest {
        return test.contains(latitude: coordinate.latitude, longitude: coordinate.longitude)
      }
      guard let polygon = polygonFences.sparseSlot(slot) else { return false }
      return Self.fence(polygon, contains: coordinate)
    case .geoline, .vacant: return false
    }
  }

  /// Metres from a position to the fence in `slot` (0 inside), as `Area.distance(from:)`.
  func fenceDistance(_ slot: Int32, from position: Position) -> Double {
    Self.fenceDistance(
      slot, from: position, cores: elementCores, polygons: polygonFences)
  }

  /// ``fenceDistance(_:from:)`` on the element tables, for closures of mutating steps: a closure
  /// that calls a method of the evaluator copies the whole evaluator at every call.
  static func fenceDistance(
    _ slot: Int32, from position: Position, cores: [ElementCore], polygons: [PolygonFence?]
  ) -> Double {
    switch cores[Int(slot)].kind {
    case .circle:
      return cores[Int(slot)].circle.distance(from: position.ecef)
    case .polygon:
      guard let polygon = polygons.sparseSlot(slot) else { return .infinity }
      return polygon.shape.distance(from: position)
    case .geoline, .vacant: return .infinity
    }
  }

  /// Whether a polygon fence covers a coordinate, with the configured backend (its prepared
  /// geometry when it has one). A GEOS failure falls back to the native answer.
  @inline(__always)
  static func fence(_ polygon: PolygonFence, contains coordinate: Coordinate) -> Bool {
    if let prepared = polygon.prepared,
      let covered = try? prepared.covers(
        latitude: coordinate.latitude, longitude: coordinate.longitude)
    {
      return covered
    }
    return polygon.shape.contains(latitude: coordinate.latitude, longitude: coordinate.longitude)
  }

  /// Appends the admitted crossings of the movement `from`→`to`, whose box is `movement`, over
  /// every GEOLINE, sorted in path order, then by zone id, then by GEOLINE id. Call after
  /// ``movementMayMeetGeolines(_:)``, which brings the list of GEOLINE boxes up to date.
  mutating func findCrossings(
    from: Coordinate, to: Coordinate, movement: BoundingBox, filter: MonitoredFilter,
    context: ConditionContext?, into crossings: inout [CrossingHit]
  ) {
    var candidates: [Int32] = []
    swap(&candidates, &scratchCandidates)
    candidates.empty()
    forEachGeoline(meeting: movement) { candidates.append($0) }
    var lineCrossings: [GeolineCrossing] = []
    swap(&lineCrossings, &scratchLineCrossings)
    for slot in candidates where allows(slot, filter) {
      guard let geoline = geolineShapes.sparseSlot(slot) else { continue }
      let zone = elementCores[Int(slot)].zone
      let gate = elementCores[Int(slot)].gate
      if !gate.isEmpty, !zoneCounts(zone, gate: gate, context) { continue }
      lineCrossings.empty()
      geoline.line.crossings(from: from, to: to, into: &lineCrossings)
      for crossing in lineCrossings where geoline.direction.admits(crossing.direction) {
        crossings.append(
          CrossingHit(
            fraction: crossing.fraction, zone: zone, element: slot, point: crossing.point,
            direction: crossing.direction))
      }
    }
    lineCrossings.empty()
    swap(&lineCrossings, &scratchLineCrossings)
    candidates.empty()
    swap(&candidates, &scratchCandidates)
    if crossings.count > 1 {
      crossings.insertionSort { a, b in
        if a.fraction != b.fraction { return a.fraction < b.fraction }
        if a.zone != b.zone { return zoneID(at: a.zone) < zoneID(at: b.zone) }
        return elementID(at: a.element) < elementID(at: b.element)
      }
    }
  }

  /// Fires every dwell due at or before `time`, for all devices (the spec's step 1).
  ///
  /// A due dwell whose device has a pending exit waits; the current device's waiting dwells are
  /// emitted when this fix finds it inside again (with this fix's position).
  mutating func fireDueDwells(
    upTo time: Timestamp, current: Int?, fix: FixReading?, into events: inout [ZoneEvent]
  ) {
    guard dwellsMayFire(upTo: time, device: current) else { return }
    var due: [DwellEntry] = []
    swap(&due, &scratchDue)
    due.empty()
    while let next = dwellQueue.nextDeadline, next <= time, let entry = dwellQueue.pop() {
      let device = Int(entry.device)
      let isDue = modifyRecords(ofDevice: device) { records -> Bool in
        let (r, found) = records.recordIndex(of: entry.zone)
        guard found else { return false }
        let record = records[r]
        guard record.stay == entry.stay, record.presence == .checkedIn,
          record.dwell == .scheduled, record.dwellDeadline == entry.deadline
        else { return false }
        if record.exitCount > 0, !(device == current && record.isInsideNow) {
          records[r].dwell = .waiting
          return false
        }
        return true
      }
      if isDue { due.append(entry) }
    }
    if let current {
      withRecords(ofDevice: current) { records in
        for r in records.indices where records[r].dwell == .waiting {
          let record = records[r]
          guard record.isInsideNow, record.presence == .checkedIn else { continue }
          due.append(
            DwellEntry(
              deadline: record.dwellDeadline, device: Int32(current), zone: record.zone,
              stay: record.stay))
        }
      }
    }
    if due.count > 1 {
      let names = deviceNames
      zoneSlots.withUnsafeBufferPointer { slots in
        let isEarlier = { (a: DwellEntry, b: DwellEntry) -> Bool in
          if a.deadline != b.deadline { return a.deadline < b.deadline }
          if a.zone != b.zone { return Self.zoneIDPrecedes(a.zone, b.zone, in: slots) }
          return names[Int(a.device)] < names[Int(b.device)]
        }
        // By insertion while few (no allocation); the standard library's sort (stable too, so
        // the same order) when many fall due at once: insertion took minutes for the tens of
        // thousands of dwells a million devices' fixes on whole seconds make due together.
        if due.count <= 32 { due.insertionSort(by: isEarlier) } else { due.sort(by: isEarlier) }
      }
    }
    for entry in due {
      let device = Int(entry.device)
      let record = modifyRecords(ofDevice: device) { records -> ZoneRecord in
        let r = records.recordIndex(of: entry.zone).index
        records[r].dwell = .fired
        return records[r]
      }
      let lastCoordinate = devices[device].lastCoordinate
      let lastSpeed = devices[device].lastSpeed
      let lastCourse = devices[device].lastCourse
      appendEvent(
        .dwell, time: entry.deadline, device: device, zone: entry.zone,
        fence: checkInFence(of: record, device: device), to: &events
      ) { event in
        event.checkInTime = record.checkInTime
        event.dwellSeconds = entry.deadline.seconds(since: record.checkInTime)
        if record.exitCount > 0, device == current, let fix {
          event.latitude = fix.latitude
          event.longitude = fix.longitude
          event.speed = fix.speed
          event.course = fix.course
        } else {
          event.latitude = lastCoordinate.latitude
          event.longitude = lastCoordinate.longitude
          event.speed = lastSpeed
          event.course = lastCourse
        }
      }
    }
    due.empty()
    swap(&due, &scratchDue)
  }

  /// Whether ``fireDueDwells(upTo:current:fix:into:)`` may fire anything: a queue entry is due,
  /// or the current device (slot `device`, its records in place) has a waiting dwell.
  ///
  /// Reads the records' fields in place: a `for record in records` loop copies each record
  /// on every fix.
  @inline(__always)
  func dwellsMayFire(upTo time: Timestamp, device: Int?) -> Bool {
    if let next = dwellQueue.nextDeadline, next <= time { return true }
    guard let device else { return false }
    return withRecords(ofDevice: device) { $0.hasWaitingDwell }
  }

  /// The same for the current device, whose records are `records` (taken out for its step).
  @inline(__always)
  func dwellsMayFire(upTo time: Timestamp, records: [ZoneRecord]) -> Bool {
    if let next = dwellQueue.nextDeadline, next <= time { return true }
    return records.withUnsafeBufferPointer { $0.hasWaitingDwell }
  }

  /// Whether every record is a stay (checked in or inside silently) that this fix found inside
  /// again, with no exit counted: then check-out (it only resets exit counts of records found
  /// inside), area check-in (it only acts on `outside` records), and pruning (it only drops
  /// `outside` records) would change nothing.
  @inline(__always)
  static func areSettled(_ records: [ZoneRecord]) -> Bool {
    records.withUnsafeBufferPointer { records in
      for r in records.indices
      where records[r].presence == .outside || !records[r].isInsideNow
        || records[r].exitCount != 0
      {
        return false
      }
      return true
    }
  }

  /// Drops records that hold neither a stay nor an open MRT window; `zoneCores` is the
  /// evaluator's zone table.
  ///
  /// Static, on the one table it reads: a method of the evaluator called from the mutating
  /// per-fix step made the compiler copy the whole evaluator (984 bytes) on every fix.
  static func pruneRecords(
    _ records: inout [ZoneRecord], at time: Timestamp, zoneCores: borrowing ZoneCoreTable
  ) {
    records.keepRecords { record in
      record.presence != .outside
        || record.isSuppressed(
          at: time, minimumRetriggerTime: zoneCores.minimumRetriggerTime(ofSlot: Int(record.zone)))
    }
  }

  /// Sorts the zones gathered in `scratchZones` by zone id, in place (one zone, the usual
  /// case, costs nothing). The check-out and check-in steps then read the list by index: no
  /// step they call for a zone changes it, so it need not be taken out.
  @inline(__always)
  mutating func sortGatheredZones() {
    guard scratchZones.count > 1 else { return }
    // Over the zone table read in place: a non-mutating helper called from here (the mutating
    // per-fix step) made the compiler copy the whole evaluator on every check-in and check-out.
    zoneSlots.withUnsafeBufferPointer { slots in
      scratchZones.insertionSort { Self.zoneIDPrecedes($0, $1, in: slots) }
    }
  }
}

extension ZoneEvaluator {
  /// The id of the fence that `record` (of device slot `d`) last checked in through: its
  /// element's id, or the one kept when a zone change removed the fence ("" before any stay).
  ///
  /// Always inlined, as ``elementID(at:)``: out of line, each check-out copied the whole
  /// evaluator onto the stack to call it.
  @inline(__always)
  func checkInFence(of record: ZoneRecord, device d: Int) -> String {
    if record.checkInFenceSlot >= 0 { return elementID(at: record.checkInFenceSlot) }
    guard record.checkInFenceSlot == ZoneRecord.detachedFence else { return "" }
    return detachedCheckInFences[device: d, zone: record.zone] ?? ""
  }

  /// Ends the stay of device slot `d`'s record at index `r` outside the per-fix step (a zone
  /// change closing it), with its pending exit, if any.
  mutating func endStay(device d: Int, record: inout ZoneRecord) {
    if record.exitCount > 0 {
      pendingExits.remove(device: d, zone: record.zone)
    }
    record.endStay()
  }
}

extension ZoneRecord {
  /// Whether a check-in at `time` falls inside this record's MRT window.
  @inline(__always)
  func isSuppressed(at time: Timestamp, minimumRetriggerTime: Double) -> Bool {
    guard minimumRetriggerTime > 0, let start = windowStart else { return false }
    return time < start.adding(seconds: minimumRetriggerTime)
  }

  /// Starts a checked-in stay through the fence in element slot `fence`.
  mutating func checkIn(at time: Timestamp, fence: Int32, stay: UInt64, willCheckOut: Bool) {
    presence = .checkedIn
    self.stay = stay
    checkInTime = time
    checkInFenceSlot = fence
    self.willCheckOut = willCheckOut
    exitCount = 0
    dwell = .none
    if !willCheckOut { windowStart = time }
  }

  /// Ends the current stay (after the caller emitted any check-out). The caller removes the
  /// stay's pending exit from the evaluator's table (see
  /// ``ZoneEvaluator/endStay(device:record:)``).
  mutating func endStay() {
    presence = .outside
    dwell = .none
    exitCount = 0
  }
}

extension ZoneEvaluator {
  /// The instant `fraction` (0...1) of the way from `start` to a later `end`, rounded to the
  /// nearest microsecond: a GEOLINE crossing's time. Cannot overflow, even for instants at the
  /// ends of the microseconds' range.
  static func interpolate(from start: Timestamp, to end: Timestamp, fraction: Double) -> Timestamp {
    let (difference, overflow) = end.microsecondsSinceEpoch.subtractingReportingOverflow(
      start.microsecondsSinceEpoch)
    guard !overflow else {
      let span = Double(end.microsecondsSinceEpoch) - Double(start.microsecondsSinceEpoch)
      return start.adding(seconds: span * fraction / 1_000_000)
    }
    // The offset is kept within [0, difference], so the sum stays between the two instants
    // (for the differences of real tracks, below 2^53 µs, this is exactly the rounded product).
    let raw = (Double(difference) * fraction).rounded()
    let offset: Int64 = raw <= 0 ? 0 : raw >= Double(difference) ? difference : min(Int64(raw), difference)
    return Timestamp(microsecondsSinceEpoch: start.microsecondsSinceEpoch + offset)
  }
}
