import FenceGEOS
import FenceGeometry

/// One admitted GEOLINE crossing of the current movement.
struct CrossingHit {
  var fraction: Double
  var zone: Int32
  var element: Int32
  var point: Coordinate
  var direction: CrossingDirection
}

/// Which monitored set, if any, restricts what a fix can trigger.
struct MonitoredFilter {
  /// Whether fences and GEOLINEs outside `allowed` are ignored.
  var isOn: Bool
  /// Whether the set is the one computed at this fix (a device's first fix) rather than at the
  /// previous one.
  var usesCurrent: Bool

  func allows(_ slot: Int32, current: [Int32], previous: [Int32]) -> Bool {
    guard isOn else { return true }
    return sortedContains(usesCurrent ? current : previous, slot)
  }
}

/// Whether an ascending array holds `value` (binary search).
func sortedContains(_ values: [Int32], _ value: Int32) -> Bool {
  var low = 0
  var high = values.count
  while low < high {
    let mid = (low + high) / 2
    if values[mid] < value { low = mid + 1 } else { high = mid }
  }
  return low < values.count && values[low] == value
}

extension ZoneEvaluator {
  /// The whole per-fix step for the device in slot `d` (see ``process(_:into:)``).
  mutating func process(_ fix: LocationFix, slot d: Int, into events: inout [ZoneEvent]) {
    // 0. Rejection.
    if let reason = rejectionReason(for: fix, device: d) {
      rejections[reason] += 1
      if configuration.reportsRejections {
        var event = ZoneEvent(kind: .rejected, time: fix.time, device: devices[d].name)
        event.reason = reason
        if fix.latitude.isFinite, fix.longitude.isFinite {
          event.latitude = fix.latitude
          event.longitude = fix.longitude
        }
        event.speed = fix.speed
        event.course = fix.course
        events.append(event.withDeterministicID())
      }
      return
    }
    acceptedFixCount += 1
    let t = fix.time
    let coordinate = Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude)
    let position = Position(coordinate)
    let isFirst = !devices[d].hasFix
    if canSkip(position, device: d) {
      // Nothing can enter, leave or be crossed: only timers and bookkeeping.
      skippedFixCount += 1
      fireDueDwells(upTo: t, current: d, fix: fix, into: &events)
      recordLastFix(fix, coordinate, device: d)
      if time.map({ t > $0 }) ?? true { time = t }
      return
    }

    // The monitored set around this fix, and the one registered before it. Both buffers are
    // recycled: the previous set's storage becomes the next fix's scratch.
    var monitoredNow = scratchMonitored
    scratchMonitored = []
    monitoredNow.removeAll(keepingCapacity: true)
    var previousMonitored = devices[d].monitored
    devices[d].monitored = []
    var filter = MonitoredFilter(isOn: false, usesCurrent: isFirst)
    if let proximity = configuration.proximity {
      computeMonitoredSet(around: position, proximity, into: &monitoredNow)
      filter.isOn = proximity.triggersOnlyMonitored
    }

    markInside(at: position, device: d, filter: filter, current: monitoredNow,
      previous: previousMonitored)

    // GEOLINE crossings of the movement from the previous accepted fix.
    var crossings = scratchCrossings
    scratchCrossings = []
    crossings.removeAll(keepingCapacity: true)
    if !isFirst, devices[d].lastCoordinate != coordinate {
      findCrossings(
        from: devices[d].lastCoordinate, to: coordinate, filter: filter, current: monitoredNow,
        previous: previousMonitored, into: &crossings)
      for crossing in crossings { _ = devices[d].ensureRecord(for: crossing.zone) }
    }

    // 1. Timers due.
    fireDueDwells(upTo: t, current: d, fix: fix, into: &events)

    var zones = scratchZones
    scratchZones = []

    // 2. Check-outs.
    zones.removeAll(keepingCapacity: true)
    for r in devices[d].records.indices {
      guard devices[d].records[r].presence != .outside else { continue }
      if devices[d].records[r].isInsideNow {
        devices[d].records[r].exitCount = 0
        continue
      }
      devices[d].records[r].exitCount += 1
      if devices[d].records[r].exitCount == 1 {
        devices[d].records[r].exitTime = t
        devices[d].records[r].exitLatitude = fix.latitude
        devices[d].records[r].exitLongitude = fix.longitude
        devices[d].records[r].exitSpeed = fix.speed
        devices[d].records[r].exitCourse = fix.course
      }
      let zone = devices[d].records[r].zone
      guard devices[d].records[r].exitCount >= compiledZone(at: zone).rules.exitConfirmations
      else { continue }
      if devices[d].records[r].presence == .checkedIn {
        devices[d].records[r].checkedInUntil = devices[d].records[r].exitTime
      }
      if devices[d].records[r].presence == .checkedIn, devices[d].records[r].willCheckOut {
        zones.append(zone)
      } else {
        devices[d].records[r].endStay()
      }
    }
    sortByZoneID(&zones)
    for zone in zones {
      let r = devices[d].recordIndex(of: zone).index
      let record = devices[d].records[r]
      var event = makeEvent(
        .checkOut, time: record.exitTime, device: d, zone: compiledZone(at: zone),
        fence: record.checkInFence)
      event.latitude = record.exitLatitude
      event.longitude = record.exitLongitude
      event.speed = record.exitSpeed
      event.course = record.exitCourse
      event.checkInTime = record.checkInTime
      event.durationSeconds = record.exitTime.seconds(since: record.checkInTime)
      events.append(event.withDeterministicID())
      devices[d].records[r].windowStart = record.exitTime
      devices[d].records[r].endStay()
    }

    // 3. GEOLINE check-ins, in path order.
    let lastTime = devices[d].lastTime
    for crossing in crossings {
      let r = devices[d].recordIndex(of: crossing.zone).index
      // Judged by the presence at the crossing's time: checked in through a fence until a
      // check-out of this fix, whose stamp may lie after the crossing.
      guard devices[d].records[r].presence != .checkedIn else { continue }
      let zone = compiledZone(at: crossing.zone)
      let span = Double(t.microsecondsSinceEpoch - lastTime.microsecondsSinceEpoch)
      let crossingTime = Timestamp(
        microsecondsSinceEpoch: lastTime.microsecondsSinceEpoch
          + Int64((span * crossing.fraction).rounded()))
      if let until = devices[d].records[r].checkedInUntil, crossingTime < until { continue }
      if isSuppressed(devices[d].records[r], at: crossingTime, rules: zone.rules) { continue }
      devices[d].records[r].windowStart = crossingTime
      var event = makeEvent(
        .checkIn, time: crossingTime, device: d, zone: zone, fence: elementID(at: crossing.element))
      event.trigger = .geoline
      event.direction = crossing.direction
      event.latitude = crossing.point.latitude
      event.longitude = crossing.point.longitude
      event.speed = fix.speed
      event.course = fix.course
      event.willCheckOut = false
      events.append(event.withDeterministicID())
    }
    crossings.removeAll(keepingCapacity: true)
    scratchCrossings = crossings

    // 4. Area check-ins.
    zones.removeAll(keepingCapacity: true)
    for record in devices[d].records where record.presence == .outside && record.isInsideNow {
      zones.append(record.zone)
    }
    sortByZoneID(&zones)
    for zoneSlot in zones {
      let r = devices[d].recordIndex(of: zoneSlot).index
      let zone = compiledZone(at: zoneSlot)
      let isInitial = isFirst || zone.addedSequence > devices[d].lastSequence
      if (isInitial && !zone.rules.initialTrigger)
        || isSuppressed(devices[d].records[r], at: t, rules: zone.rules)
      {
        devices[d].records[r].presence = .insideSilently
        devices[d].records[r].exitCount = 0
        continue
      }
      stayCounter += 1
      let fence = elementID(at: devices[d].records[r].fenceNow)
      devices[d].records[r].checkIn(
        at: t, fence: fence, stay: stayCounter, willCheckOut: zone.rules.checkOut)
      if let dwell = zone.rules.dwell {
        let deadline = t.adding(seconds: dwell)
        devices[d].records[r].dwell = .scheduled
        devices[d].records[r].dwellDeadline = deadline
        dwellQueue.push(
          DwellEntry(deadline: deadline, device: Int32(d), zone: zoneSlot, stay: stayCounter))
      }
      var event = makeEvent(.checkIn, time: t, device: d, zone: zone, fence: fence)
      event.trigger = .fence
      event.latitude = fix.latitude
      event.longitude = fix.longitude
      event.speed = fix.speed
      event.course = fix.course
      event.willCheckOut = zone.rules.checkOut
      events.append(event.withDeterministicID())
    }
    zones.removeAll(keepingCapacity: true)
    scratchZones = zones

    // 5. Monitored-set change.
    if configuration.proximity != nil, monitoredNow != previousMonitored {
      appendMonitoredChange(
        from: previousMonitored, to: monitoredNow, time: t, device: d, into: &events)
    }
    devices[d].monitored = monitoredNow
    previousMonitored.removeAll(keepingCapacity: true)
    scratchMonitored = previousMonitored

    // The device's new last fix; records that no longer hold anything are dropped.
    recordLastFix(fix, coordinate, device: d)
    pruneRecords(device: d, at: t)
    if configuration.skipsUnchangedFixes, configuration.proximity == nil {
      noteSafeRadius(around: position, device: d)
    }
    if time.map({ t > $0 }) ?? true { time = t }
  }

  // MARK: - Steps

  /// Stores a fix as the device's last accepted fix.
  mutating func recordLastFix(_ fix: LocationFix, _ coordinate: Coordinate, device d: Int) {
    devices[d].hasFix = true
    devices[d].lastTime = fix.time
    devices[d].lastCoordinate = coordinate
    devices[d].lastSpeed = fix.speed
    devices[d].lastCourse = fix.course
    devices[d].lastSequence = addSequence
  }

  /// Whether a fix at `position` lies inside the device's safe radius (with a 0.5 m margin),
  /// so that neither it nor the movement to it can change any zone state.
  func canSkip(_ position: Position, device d: Int) -> Bool {
    guard configuration.skipsUnchangedFixes, configuration.proximity == nil,
      devices[d].hasFix, devices[d].safeRadius > 0,
      devices[d].safeGeneration == zoneGeneration
    else { return false }
    // The chord is within a micrometre of the arc at these distances; both ends of the
    // movement lie in the disc, and so does the straight segment between them.
    return devices[d].safeCenter.chord(to: position.ecef) + 0.5 < devices[d].safeRadius
  }

  /// Notes how far from `position` the device can move without any fence boundary or GEOLINE
  /// in reach, after a full evaluation; 0 while an exit is pending or a stay holds only through
  /// hysteresis (those change state on fixes that move nowhere).
  mutating func noteSafeRadius(around position: Position, device d: Int) {
    var safe = Self.safeRadiusLimit
    for record in devices[d].records where record.presence != .outside {
      if record.exitCount > 0 || record.fenceNow < 0 { safe = 0 }
    }
    if safe > 0 {
      var candidates = scratchCandidates
      scratchCandidates = []
      candidates.removeAll(keepingCapacity: true)
      fenceIndex.search(within: safe, of: position) { candidates.append($0) }
      geolineIndex.search(within: safe, of: position) { candidates.append($0) }
      for slot in candidates {
        guard let element = elements[Int(slot)] else { continue }
        switch element.shape {
        case .fence(let area, _, _): safe = min(safe, area.distanceToBoundary(from: position))
        case .geoline(let line, _): safe = min(safe, line.distance(from: position))
        }
      }
      candidates.removeAll(keepingCapacity: true)
      scratchCandidates = candidates
    }
    devices[d].safeCenter = position.ecef
    devices[d].safeRadius = safe
    devices[d].safeGeneration = zoneGeneration
  }

  /// Why a fix must be rejected, if it must (the spec's step 0, in its order).
  func rejectionReason(for fix: LocationFix, device d: Int) -> RejectionReason? {
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

  /// Sets each record's `isInsideNow` and `fenceNow` for a fix at `position`: containment by
  /// the zone's fences, or, for a device inside, exit hysteresis.
  mutating func markInside(
    at position: Position, device d: Int, filter: MonitoredFilter, current: [Int32],
    previous: [Int32]
  ) {
    for r in devices[d].records.indices {
      devices[d].records[r].isInsideNow = false
      devices[d].records[r].fenceNow = -1
      devices[d].records[r].checkedInUntil = nil
    }
    var hits = scratchHits
    scratchHits = []
    hits.removeAll(keepingCapacity: true)
    fenceIndex.search(containing: position.latitude, longitude: position.longitude) {
      hits.append($0)
    }
    for slot in hits where filter.allows(slot, current: current, previous: previous) {
      guard let element = elements[Int(slot)], case .fence(let area, let rank, let prepared) =
        element.shape
      else { continue }
      guard Self.fence(area, prepared: prepared, contains: position) else { continue }
      let r = devices[d].ensureRecord(for: element.zone)
      let best = devices[d].records[r].fenceNow
      if best < 0 || rank < fenceRank(best) { devices[d].records[r].fenceNow = slot }
      devices[d].records[r].isInsideNow = true
    }
    hits.removeAll(keepingCapacity: true)
    scratchHits = hits

    for r in devices[d].records.indices {
      guard devices[d].records[r].presence != .outside, !devices[d].records[r].isInsideNow
      else { continue }
      let zone = compiledZone(at: devices[d].records[r].zone)
      let hysteresis = zone.rules.exitHysteresis
      guard hysteresis > 0 else { continue }
      var nearest = Double.infinity
      for slot in zone.fenceSlots where filter.allows(slot, current: current, previous: previous) {
        guard let element = elements[Int(slot)], case .fence(let area, _, _) = element.shape
        else { continue }
        nearest = min(nearest, area.distance(from: position))
      }
      if nearest <= hysteresis { devices[d].records[r].isInsideNow = true }
    }
  }

  /// Whether a fence covers a position, with the configured backend. A GEOS failure falls back
  /// to the native answer.
  static func fence(_ area: Area, prepared: PreparedShape?, contains position: Position) -> Bool {
    if let prepared,
      let covered = try? prepared.covers(
        latitude: position.latitude, longitude: position.longitude)
    {
      return covered
    }
    return area.contains(position)
  }

  func fenceRank(_ slot: Int32) -> Int32 {
    guard let element = elements[Int(slot)], case .fence(_, let rank, _) = element.shape else {
      return .max
    }
    return rank
  }

  /// Appends the admitted crossings of the movement `from`→`to` over every GEOLINE, sorted in
  /// path order, then by zone id, then by GEOLINE id.
  mutating func findCrossings(
    from: Coordinate, to: Coordinate, filter: MonitoredFilter, current: [Int32],
    previous: [Int32], into crossings: inout [CrossingHit]
  ) {
    var candidates = scratchCandidates
    scratchCandidates = []
    candidates.removeAll(keepingCapacity: true)
    geolineIndex.search(intersecting: .movement(from: from, to: to)) { candidates.append($0) }
    var lineCrossings = scratchLineCrossings
    scratchLineCrossings = []
    for slot in candidates where filter.allows(slot, current: current, previous: previous) {
      guard let element = elements[Int(slot)], case .geoline(let line, let admitted) =
        element.shape
      else { continue }
      lineCrossings.removeAll(keepingCapacity: true)
      line.crossings(from: from, to: to, into: &lineCrossings)
      for crossing in lineCrossings where admitted.admits(crossing.direction) {
        crossings.append(
          CrossingHit(
            fraction: crossing.fraction, zone: element.zone, element: slot, point: crossing.point,
            direction: crossing.direction))
      }
    }
    lineCrossings.removeAll(keepingCapacity: true)
    scratchLineCrossings = lineCrossings
    candidates.removeAll(keepingCapacity: true)
    scratchCandidates = candidates
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
    upTo time: Timestamp, current: Int?, fix: LocationFix?, into events: inout [ZoneEvent]
  ) {
    var due = scratchDue
    scratchDue = []
    due.removeAll(keepingCapacity: true)
    while let next = dwellQueue.nextDeadline, next <= time, let entry = dwellQueue.pop() {
      let device = Int(entry.device)
      let (r, found) = devices[device].recordIndex(of: entry.zone)
      guard found else { continue }
      let record = devices[device].records[r]
      guard record.stay == entry.stay, record.presence == .checkedIn, record.dwell == .scheduled,
        record.dwellDeadline == entry.deadline
      else { continue }
      if record.exitCount > 0, !(device == current && record.isInsideNow) {
        devices[device].records[r].dwell = .waiting
        continue
      }
      due.append(entry)
    }
    if let current {
      for record in devices[current].records
      where record.dwell == .waiting && record.isInsideNow && record.presence == .checkedIn {
        due.append(
          DwellEntry(
            deadline: record.dwellDeadline, device: Int32(current), zone: record.zone,
            stay: record.stay))
      }
    }
    if due.count > 1 {
      due.insertionSort { a, b in
        if a.deadline != b.deadline { return a.deadline < b.deadline }
        if a.zone != b.zone { return zoneID(at: a.zone) < zoneID(at: b.zone) }
        return devices[Int(a.device)].name < devices[Int(b.device)].name
      }
    }
    for entry in due {
      let device = Int(entry.device)
      let r = devices[device].recordIndex(of: entry.zone).index
      let record = devices[device].records[r]
      var event = makeEvent(
        .dwell, time: entry.deadline, device: device, zone: compiledZone(at: entry.zone),
        fence: record.checkInFence)
      event.checkInTime = record.checkInTime
      event.dwellSeconds = entry.deadline.seconds(since: record.checkInTime)
      if record.exitCount > 0, device == current, let fix {
        event.latitude = fix.latitude
        event.longitude = fix.longitude
        event.speed = fix.speed
        event.course = fix.course
      } else {
        event.latitude = devices[device].lastCoordinate.latitude
        event.longitude = devices[device].lastCoordinate.longitude
        event.speed = devices[device].lastSpeed
        event.course = devices[device].lastCourse
      }
      events.append(event.withDeterministicID())
      devices[device].records[r].dwell = .fired
    }
    due.removeAll(keepingCapacity: true)
    scratchDue = due
  }

  /// Whether a check-in at `time` falls inside the record's MRT window.
  func isSuppressed(_ record: ZoneRecord, at time: Timestamp, rules: ZoneRules) -> Bool {
    guard rules.minimumRetriggerTime > 0, let start = record.windowStart else { return false }
    return time < start.adding(seconds: rules.minimumRetriggerTime)
  }

  /// Drops a device's records that hold neither a stay nor an open MRT window.
  mutating func pruneRecords(device d: Int, at time: Timestamp) {
    var kept = 0
    for r in devices[d].records.indices {
      let record = devices[d].records[r]
      var keep = record.presence != .outside
      if !keep, let start = record.windowStart, let zone = zoneSlots[Int(record.zone)] {
        keep = time < start.adding(seconds: zone.rules.minimumRetriggerTime)
      }
      if keep {
        if kept != r { devices[d].records[kept] = record }
        kept += 1
      }
    }
    if kept < devices[d].records.count {
      devices[d].records.removeLast(devices[d].records.count - kept)
    }
  }

  /// Sorts zone slots by zone id.
  func sortByZoneID(_ zones: inout [Int32]) {
    zones.insertionSort { zoneID(at: $0) < zoneID(at: $1) }
  }

  /// An event of a zone, with the zone's id and custom data; the caller sets the rest.
  func makeEvent(
    _ kind: ZoneEvent.Kind, time: Timestamp, device d: Int, zone: CompiledZone, fence: String
  ) -> ZoneEvent {
    var event = ZoneEvent(kind: kind, time: time, device: devices[d].name)
    event.zone = zone.id
    event.fence = fence
    event.customData = zone.zone.customData
    return event
  }
}

extension ZoneRecord {
  /// Starts a checked-in stay.
  mutating func checkIn(at time: Timestamp, fence: String, stay: UInt64, willCheckOut: Bool) {
    presence = .checkedIn
    self.stay = stay
    checkInTime = time
    checkInFence = fence
    self.willCheckOut = willCheckOut
    exitCount = 0
    dwell = .none
    if !willCheckOut { windowStart = time }
  }

  /// Ends the current stay (after the caller emitted any check-out).
  mutating func endStay() {
    presence = .outside
    dwell = .none
    exitCount = 0
  }
}
