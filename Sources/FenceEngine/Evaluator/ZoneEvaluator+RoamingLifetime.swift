import FenceGeometry

/// Roaming zones with a schedule, a lifetime or `exitOnRemove` (rules v2): the pairs of a
/// roaming zone end the way a fixed zone's stays do. A window that closes checks out every
/// checked-in pair at the closing instant (`scheduleClosed`); a lifetime that ends, or a
/// removal, drops the zone's pairs, checking them out first (`zoneRemoved`) when the zone says
/// `exitOnRemove`. A roaming zone replaced by another roaming version keeps its pairs (the
/// target's next fix measures them against the new radius); replaced by a zone that no longer
/// roams, its pairs go as on a removal.
extension ZoneEvaluator {
  /// Ends every roaming pair of the zones in `closing` at `instant`: a checked-in pair whose
  /// stay will check out gets a check-out with the zone's reason (none without a reason);
  /// pairs of zones in `expiring` are dropped, the others keep their MRT windows.
  ///
  /// - Returns: the check-outs, in no particular order (see ``sortClosings(_:)``).
  mutating func closeRoamingStays(
    in closing: [Int32: CheckOutReason?], expiring: Set<Int32>, at instant: Timestamp
  ) -> [ZoneEvent] {
    guard !roamingRecords.isEmpty,
      closing.keys.contains(where: { roaming.zones[$0] != nil })
    else { return [] }
    var closed: [ZoneEvent] = []
    for target in Array(roamingRecords.keys) {
      guard var records = roamingRecords[target] else { continue }
      var touched = false
      for r in records.indices {
        guard let reason = closing[records[r].zone] else { continue }
        touched = true
        if records[r].presence == .checkedIn, records[r].willCheckOut, let reason {
          closed.append(
            roamingClosingCheckOut(records[r], target: Int(target), at: instant, reason: reason))
          records[r].windowStart = instant
        }
        records[r].endRoamingStay()
      }
      guard touched else { continue }
      if !expiring.isEmpty { records.removeAll { expiring.contains($0.zone) } }
      roamingRecords[target] = records.isEmpty ? nil : records
    }
    if !expiring.isEmpty {
      roamingDwellQueue.removeAll { expiring.contains($0.zone) }
      roamingNextDeadline = roamingDwellQueue.map(\.deadline).min()
    }
    return closed
  }

  /// The check-out of a roaming pair ended by its zone rather than by the target moving:
  /// stamped `instant`, at the target's last accepted position, speed and course, with the
  /// distance to the roaming device's latest fix (none when it no longer carries the circle).
  func roamingClosingCheckOut(
    _ record: RoamingRecord, target d: Int, at instant: Timestamp, reason: CheckOutReason
  ) -> ZoneEvent {
    var event = roamingEvent(.checkOut, record, target: d, time: instant)
    let position = devices[d].lastCoordinate
    event.latitude = position.latitude
    event.longitude = position.longitude
    event.speed = devices[d].lastSpeed
    event.course = devices[d].lastCourse
    event.distance = roaming.grid.carriers[record.carrier].map {
      WGS84.distance($0.coordinate, position)
    }
    event.checkInTime = record.checkInTime
    event.durationSeconds = instant.seconds(since: record.checkInTime)
    event.checkOutReason = reason
    event.assignDeterministicID()
    return event
  }

  /// Sorts check-outs made by zones (closing windows, ended lifetimes, removals): by zone id,
  /// then device, then roaming device (none first).
  static func sortClosings(_ closed: inout [ZoneEvent]) {
    guard closed.count > 1 else { return }
    closed.sort { a, b in
      if a.zone != b.zone { return (a.zone ?? "") < (b.zone ?? "") }
      if a.device != b.device { return a.device < b.device }
      return (a.roamingDevice ?? "") < (b.roamingDevice ?? "")
    }
  }
}
