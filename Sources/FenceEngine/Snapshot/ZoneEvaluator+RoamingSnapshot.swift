/// Roaming pairs (rules v2) in snapshots: a target's states with (roaming zone, roaming device)
/// pairs, named by zone id and device name; the carriers' grids are rebuilt from the devices'
/// tags and latest fixes, which the snapshot holds already.
extension ZoneEvaluator {
  /// The snapshot values of device `slot`'s roaming pairs, sorted by zone id, then roaming device.
  func snapshotRoamingPairs(slot: Int) -> [EvaluatorSnapshot.RoamingPair] {
    guard let records = roamingRecords[Int32(slot)] else { return [] }
    var pairs: [EvaluatorSnapshot.RoamingPair] = []
    for record in records {
      var exit: EvaluatorSnapshot.PendingExit?
      if record.exitCount > 0 {
        exit = .init(
          count: Int(record.exitCount),
          fix: .init(
            time: record.exitTime, latitude: record.exitLatitude, longitude: record.exitLongitude,
            speed: record.exitSpeed, course: record.exitCourse))
      }
      let dwell = EvaluatorSnapshot.Dwell(record.dwell)
      pairs.append(
        .init(
          record: .init(
            zone: zoneID(at: record.zone), presence: .init(record.presence), stay: record.stay,
            checkInTime: record.checkInTime, checkInFence: deviceNames[Int(record.carrier)],
            willCheckOut: record.willCheckOut, dwell: dwell,
            dwellDeadline: dwell == .none ? Timestamp(microsecondsSinceEpoch: 0) : record.dwellDeadline,
            exit: exit, windowStart: record.windowStart),
          exitDistance: exit == nil ? 0 : record.exitDistance))
    }
    pairs.sort {
      ($0.record.zone, $0.record.checkInFence) < ($1.record.zone, $1.record.checkInFence)
    }
    return pairs
  }

  /// The roaming state of a snapshot's devices (whose slots are their positions), checked
  /// before anything changes: records by target slot and the dwell queue.
  func restoredRoaming(
    _ devices: [EvaluatorSnapshot.Device], slotByName: [String: Int32]
  ) throws -> (records: [Int32: [RoamingRecord]], dwells: [RoamingDwellEntry]) {
    var records: [Int32: [RoamingRecord]] = [:]
    var dwells: [RoamingDwellEntry] = []
    for (slot, device) in devices.enumerated() where !device.roaming.isEmpty {
      var list: [RoamingRecord] = []
      for pair in device.roaming {
        let stored = pair.record
        guard let zone = zoneSlot(id: stored.zone) else { throw SnapshotError(.unknownID(stored.zone)) }
        guard roaming.zones[zone] != nil else {
          throw SnapshotError(.malformed("zone \"\(stored.zone)\" is not a roaming zone"))
        }
        guard let carrier = slotByName[stored.checkInFence] else {
          throw SnapshotError(.unknownID(stored.checkInFence))
        }
        var record = RoamingRecord(zone: zone, carrier: carrier)
        record.presence = Presence(stored.presence)
        record.stay = stored.stay
        record.checkInTime = stored.checkInTime
        record.willCheckOut = stored.willCheckOut
        record.dwell = DwellStatus(stored.dwell)
        record.dwellDeadline = stored.dwellDeadline
        record.windowStart = stored.windowStart
        if let exit = stored.exit {
          record.exitCount = Int32(clamping: exit.count)
          record.exitTime = exit.fix.time
          record.exitLatitude = exit.fix.latitude
          record.exitLongitude = exit.fix.longitude
          record.exitSpeed = exit.fix.speed
          record.exitCourse = exit.fix.course
          record.exitDistance = pair.exitDistance
        }
        let index = Self.roamingRecordIndex(list, zone: zone, carrier: carrier)
        guard index == list.count || list[index].zone != zone || list[index].carrier != carrier
        else { throw SnapshotError(.malformed("a roaming pair twice for \"\(device.name)\"")) }
        list.insert(record, at: index)
        if record.dwell == .scheduled {
          dwells.append(
            RoamingDwellEntry(
              deadline: record.dwellDeadline, target: Int32(slot), zone: zone, carrier: carrier,
              stay: record.stay))
        }
      }
      records[Int32(slot)] = list
    }
    return (records, dwells)
  }
}
