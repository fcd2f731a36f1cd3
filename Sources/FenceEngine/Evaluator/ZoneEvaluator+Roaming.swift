import FenceGeometry

/// The roaming zones (`roam`) and the one index of their carriers: every device carrying at
/// least one roaming zone's circle, at its latest accepted fix, in a grid of cells of the
/// largest radius, with the zones each device carries. A target's fix reads the carriers near
/// it once, whatever the number of roaming zones.
struct RoamingFences {
  /// By zone slot.
  var zones: [Int32: RoamingFence] = [:]
  var grid = CarrierGrid(radius: 0)
  /// By device slot, the roaming zones (slots, ascending) whose circle the device carries.
  var carried: [Int32: [Int32]] = [:]
  /// The largest exit hysteresis of the roaming zones: how far beyond the largest radius a
  /// search must reach to find checked-in pairs.
  var margin = 0.0

  var isEmpty: Bool { zones.isEmpty }
}

/// One target device's state with one (roaming zone, carrier) pair, like a ``ZoneRecord`` for
/// a fixed zone. Kept in the target's list, sorted by zone slot, then carrier slot.
struct RoamingRecord {
  var zone: Int32
  var carrier: Int32
  var presence: Presence = .outside
  var willCheckOut = false
  var stay: UInt64 = 0
  var checkInTime = Timestamp(microsecondsSinceEpoch: 0)
  var windowStart: Timestamp?
  var exitCount: Int32 = 0
  var exitTime = Timestamp(microsecondsSinceEpoch: 0)
  var exitLatitude = 0.0
  var exitLongitude = 0.0
  var exitSpeed: Double?
  var exitCourse: Double?
  var exitDistance = 0.0
  var dwell: DwellStatus = .none
  var dwellDeadline = Timestamp(microsecondsSinceEpoch: 0)
  /// Per-fix scratch: within the radius (or the exit hysteresis) now, and how far.
  var isInsideNow = false
  var distanceNow = Double.infinity

  init(zone: Int32, carrier: Int32) {
    self.zone = zone
    self.carrier = carrier
  }

  func precedes(zone: Int32, carrier: Int32) -> Bool {
    self.zone < zone || (self.zone == zone && self.carrier < carrier)
  }
}

/// A roaming dwell deadline in the evaluator's queue.
struct RoamingDwellEntry {
  var deadline: Timestamp
  var target: Int32
  var zone: Int32
  var carrier: Int32
  var stay: UInt64
}

/// Roaming fences (rules v2): a circle around each device matching a roaming zone's `around`,
/// at its latest accepted fix; the fixes of devices matching `targets` are measured against the
/// circles near them, and each (target, carrier) pair has its own state, MRT and dwell.
///
/// The step runs after the fixed zones' check-ins (step 4) and before the monitored-set change:
/// check-outs, then check-ins, each sorted by zone id, then roaming device. A fix of a carrier
/// moves its circle after its own evaluation; it produces no event for others until they report.
/// Roaming dwells due fire with the fixed zones' (step 1), after them.
extension ZoneEvaluator {
  /// The roaming step of an accepted fix of device `d`.
  mutating func evaluateRoaming(
    _ fix: FixReading, _ coordinate: Coordinate, isFirst: Bool, context: ConditionContext?,
    device d: Int, into events: inout [ZoneEvent]
  ) {
    let target = Int32(d)
    let tags = deviceTags[target] ?? []
    var records = roamingRecords.removeValue(forKey: target) ?? []
    for r in records.indices {
      records[r].isInsideNow = false
      records[r].distanceNow = .infinity
    }
    // Whether each roaming zone counts for this fix (not dormant, conditions passed), asked
    // once per zone.
    var counts: [Int32: Bool] = [:]
    func zoneCountsNow(_ zone: Int32) -> Bool {
      if let known = counts[zone] { return known }
      let answer = zoneCounts(zone, gate: zoneCores[Int(zone)].gate, context)
      counts[zone] = answer
      return answer
    }
    roaming.grid.forEachCandidate(near: coordinate, margin: roaming.margin) { carrier in
      guard carrier != target, let at = roaming.grid.carriers[carrier]?.coordinate,
        let zones = roaming.carried[carrier]
      else { return }
      let distance = WGS84.distance(at, coordinate)
      for zone in zones {
        guard let fence = roaming.zones[zone] else { continue }
        if let targets = fence.targets, !targets.matches(tags) { continue }
        let hysteresis = zoneCores[Int(zone)].exitHysteresis
        guard distance <= fence.radius + hysteresis, zoneCountsNow(zone) else { continue }
        let r = Self.roamingRecordIndex(records, zone: zone, carrier: carrier)
        let found = r < records.count && records[r].zone == zone && records[r].carrier == carrier
        if distance <= fence.radius {
          if !found { records.insert(RoamingRecord(zone: zone, carrier: carrier), at: r) }
          records[r].isInsideNow = true
          records[r].distanceNow = distance
        } else if found, records[r].presence != .outside {
          records[r].isInsideNow = true
          records[r].distanceNow = distance
        }
      }
    }
    var hidden = Set<Int32>()
    for r in records.indices {
      if !zoneCountsNow(records[r].zone) { hidden.insert(records[r].zone) }
      // A stay the search did not reach: how far its roaming device is, for the check-out.
      if records[r].presence != .outside, !records[r].isInsideNow,
        let at = roaming.grid.carriers[records[r].carrier]?.coordinate
      {
        records[r].distanceNow = WGS84.distance(at, coordinate)
      }
    }
    guard !records.isEmpty else { return }

    var checkOuts: [Int] = []
    var checkIns: [Int] = []
    for r in records.indices where !hidden.contains(records[r].zone) {
      if records[r].presence == .outside {
        if records[r].isInsideNow { checkIns.append(r) }
        continue
      }
      if records[r].isInsideNow {
        records[r].exitCount = 0
        continue
      }
      records[r].exitCount += 1
      if records[r].exitCount == 1 {
        records[r].exitTime = fix.time
        records[r].exitLatitude = fix.latitude
        records[r].exitLongitude = fix.longitude
        (records[r].exitSpeed, records[r].exitCourse) =
          context == nil ? (fix.speed, fix.course)
          : eventMotion(zone: records[r].zone, fix: fix, context)
        records[r].exitDistance = records[r].distanceNow
      }
      guard records[r].exitCount >= zoneCores[Int(records[r].zone)].exitConfirmations else {
        continue
      }
      if records[r].presence == .checkedIn, records[r].willCheckOut {
        checkOuts.append(r)
      } else {
        records[r].endRoamingStay()
      }
    }
    let order = { (a: Int, b: Int) -> Bool in
      let (x, y) = (records[a], records[b])
      if x.zone != y.zone { return self.zoneID(at: x.zone) < self.zoneID(at: y.zone) }
      return self.deviceNames[Int(x.carrier)] < self.deviceNames[Int(y.carrier)]
    }
    checkOuts.sort(by: order)
    checkIns.sort(by: order)
    // Waiting dwells of pairs this fix finds inside again come first (as for fixed zones).
    for r in records.indices
    where records[r].dwell == .waiting && records[r].isInsideNow && records[r].presence == .checkedIn {
      events.append(roamingDwell(records[r], target: d, fix: fix))
      records[r].dwell = .fired
    }
    for r in checkOuts {
      let record = records[r]
      var event = roamingEvent(.checkOut, record, target: d, time: record.exitTime)
      event.latitude = record.exitLatitude
      event.longitude = record.exitLongitude
      event.speed = record.exitSpeed
      event.course = record.exitCourse
      // None when the roaming device no longer carries the circle (its tags changed).
      event.distance = record.exitDistance.isFinite ? record.exitDistance : nil
      event.checkInTime = record.checkInTime
      event.durationSeconds = record.exitTime.seconds(since: record.checkInTime)
      event.assignDeterministicID()
      events.append(event)
      records[r].windowStart = record.exitTime
      records[r].endRoamingStay()
    }
    let lastSequence = devices[d].lastSequence
    for r in checkIns {
      let core = zoneCores[Int(records[r].zone)]
      let isInitial = isFirst || core.addedSequence > lastSequence
      let suppressed =
        core.minimumRetriggerTime > 0
        && records[r].windowStart.map { fix.time < $0.adding(seconds: core.minimumRetriggerTime) }
          ?? false
      if (isInitial && !core.initialTrigger) || suppressed {
        records[r].presence = .insideSilently
        records[r].exitCount = 0
        continue
      }
      stayCounter += 1
      records[r].presence = .checkedIn
      records[r].stay = stayCounter
      records[r].checkInTime = fix.time
      records[r].willCheckOut = core.checkOut
      records[r].exitCount = 0
      records[r].dwell = .none
      if !core.checkOut { records[r].windowStart = fix.time }
      if core.hasDwell {
        let deadline = fix.time.adding(seconds: core.dwell)
        records[r].dwell = .scheduled
        records[r].dwellDeadline = deadline
        roamingDwellQueue.append(
          RoamingDwellEntry(
            deadline: deadline, target: target, zone: records[r].zone,
            carrier: records[r].carrier, stay: stayCounter))
        if roamingNextDeadline.map({ deadline < $0 }) ?? true { roamingNextDeadline = deadline }
      }
      var event = roamingEvent(.checkIn, records[r], target: d, time: fix.time)
      event.trigger = .fence
      event.latitude = fix.latitude
      event.longitude = fix.longitude
      let motion =
        context == nil ? (speed: fix.speed, course: fix.course)
        : eventMotion(zone: records[r].zone, fix: fix, context)
      event.speed = motion.speed
      event.course = motion.course
      event.distance = records[r].distanceNow
      event.willCheckOut = core.checkOut
      event.assignDeterministicID()
      events.append(event)
    }
    // Records that hold neither a stay nor an open MRT window go.
    records.removeAll { record in
      record.presence == .outside
        && !(zoneCores[Int(record.zone)].minimumRetriggerTime > 0
          && record.windowStart.map {
            fix.time < $0.adding(seconds: zoneCores[Int(record.zone)].minimumRetriggerTime)
          } ?? false)
    }
    if !records.isEmpty { roamingRecords[target] = records }
  }

  /// Where the record of (`zone`, `carrier`) is or would go in records sorted by both.
  static func roamingRecordIndex(_ records: [RoamingRecord], zone: Int32, carrier: Int32) -> Int {
    var low = 0
    var high = records.count
    while low < high {
      let mid = (low + high) / 2
      if records[mid].precedes(zone: zone, carrier: carrier) { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// An event of a roaming pair with its zone's id and custom data and the roaming device.
  @inline(__always)  // out of line, its callers copied the whole evaluator to call it
  func roamingEvent(
    _ kind: ZoneEvent.Kind, _ record: RoamingRecord, target d: Int, time: Timestamp
  ) -> ZoneEvent {
    var event = ZoneEvent(kind: kind, time: time, device: deviceNames[d])
    zoneSlots.withUnsafeBufferPointer { slots in
      event.zone = slots[Int(record.zone)]?.id
      event.customData = slots[Int(record.zone)]?.customData
    }
    event.roamingDevice = deviceNames[Int(record.carrier)]
    return event
  }

  /// The dwell event of a roaming pair: at the target's last accepted fix, or at `fix` when the
  /// dwell waited for this fix to find the pair inside again.
  @inline(__always)  // out of line, its callers copied the whole evaluator to call it
  func roamingDwell(_ record: RoamingRecord, target d: Int, fix: FixReading?) -> ZoneEvent {
    var event = roamingEvent(.dwell, record, target: d, time: record.dwellDeadline)
    event.checkInTime = record.checkInTime
    event.dwellSeconds = record.dwellDeadline.seconds(since: record.checkInTime)
    if let fix {
      event.latitude = fix.latitude
      event.longitude = fix.longitude
      event.speed = fix.speed
      event.course = fix.course
      event.distance = record.distanceNow
    } else {
      event.latitude = devices[d].lastCoordinate.latitude
      event.longitude = devices[d].lastCoordinate.longitude
      event.speed = devices[d].lastSpeed
      event.course = devices[d].lastCourse
    }
    event.assignDeterministicID()
    return event
  }

  /// Fires every roaming dwell due by `time` (after the fixed zones' dwells of the same step),
  /// in deadline order, then zone id, target and roaming device. A pair with a pending exit
  /// waits (see ``evaluateRoaming(_:_:isFirst:context:device:into:)``).
  mutating func fireDueRoamingDwells(upTo time: Timestamp, into events: inout [ZoneEvent]) {
    guard let next = roamingNextDeadline, next <= time else { return }
    var due: [RoamingDwellEntry] = []
    roamingDwellQueue.removeAll { entry in
      guard entry.deadline <= time else { return false }
      due.append(entry)
      return true
    }
    roamingNextDeadline = roamingDwellQueue.map(\.deadline).min()
    due.sort { a, b in
      if a.deadline != b.deadline { return a.deadline < b.deadline }
      if a.zone != b.zone { return zoneID(at: a.zone) < zoneID(at: b.zone) }
      if a.target != b.target { return deviceNames[Int(a.target)] < deviceNames[Int(b.target)] }
      return deviceNames[Int(a.carrier)] < deviceNames[Int(b.carrier)]
    }
    for entry in due {
      guard var records = roamingRecords[entry.target] else { continue }
      let r = Self.roamingRecordIndex(records, zone: entry.zone, carrier: entry.carrier)
      guard r < records.count, records[r].zone == entry.zone, records[r].carrier == entry.carrier,
        records[r].stay == entry.stay, records[r].presence == .checkedIn,
        records[r].dwell == .scheduled, records[r].dwellDeadline == entry.deadline
      else { continue }
      if records[r].exitCount > 0 {
        records[r].dwell = .waiting
      } else {
        events.append(roamingDwell(records[r], target: Int(entry.target), fix: nil))
        records[r].dwell = .fired
      }
      roamingRecords[entry.target] = records
    }
  }

  /// Moves the circles device `d` carries to `coordinate` (its latest accepted fix).
  mutating func moveRoamingCircles(of d: Int, to coordinate: Coordinate) {
    guard roaming.carried[Int32(d)] != nil else { return }
    roaming.grid.place(Int32(d), at: coordinate)
  }

  /// Files or unfiles device `d` as a carrier after its tags changed.
  mutating func refileRoamingCarrier(_ d: Int) {
    let device = Int32(d)
    let tags = deviceTags[device] ?? []
    let zones = roaming.zones.filter { $0.value.around.matches(tags) }.keys.sorted()
    if zones.isEmpty {
      roaming.carried.removeValue(forKey: device)
      roaming.grid.remove(device)
    } else {
      roaming.carried[device] = zones
      if devices[d].hasFix { roaming.grid.place(device, at: devices[d].lastCoordinate) }
    }
  }

  /// Follows the roaming setting of the zone just put in `zone` (added, replaced, or no longer
  /// roaming): the index of carriers is rebuilt from the devices' tags and latest fixes; pair
  /// states are kept on a replace and dropped when the zone stops roaming.
  mutating func followRoaming(of rules: ZoneRules, zone: Int32) {
    if let fence = rules.roam {
      roaming.zones[zone] = fence
    } else {
      roaming.zones.removeValue(forKey: zone)
      dropRoamingRecords(of: zone)
    }
    rebuildRoamingIndex()
  }

  /// The carriers' index from scratch: the largest radius and hysteresis, each tagged device's
  /// carried zones, its latest fix.
  mutating func rebuildRoamingIndex() {
    let radius = roaming.zones.values.map(\.radius).max() ?? 0
    roaming.margin = roaming.zones.keys.map { zoneCores[Int($0)].exitHysteresis }.max() ?? 0
    roaming.grid = CarrierGrid(radius: radius)
    roaming.carried = [:]
    guard !roaming.zones.isEmpty else { return }
    for (device, tags) in deviceTags {
      let zones = roaming.zones.filter { $0.value.around.matches(tags) }.keys.sorted()
      guard !zones.isEmpty else { continue }
      roaming.carried[device] = zones
      if devices[Int(device)].hasFix {
        roaming.grid.place(device, at: devices[Int(device)].lastCoordinate)
      }
    }
  }

  /// Drops every pair state of a roaming zone (removed, or no longer roaming).
  mutating func dropRoamingRecords(of zone: Int32) {
    for target in Array(roamingRecords.keys) {
      roamingRecords[target]?.removeAll { $0.zone == zone }
      if roamingRecords[target]?.isEmpty == true { roamingRecords.removeValue(forKey: target) }
    }
    roamingDwellQueue.removeAll { $0.zone == zone }
    roamingNextDeadline = roamingDwellQueue.map(\.deadline).min()
  }
}

extension RoamingRecord {
  mutating func endRoamingStay() {
    presence = .outside
    dwell = .none
    exitCount = 0
  }
}
