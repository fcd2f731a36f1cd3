import FenceGeometry

// A fix in the same pure cell as the device's last full evaluation, with nothing pending,
// changes nothing but timers and bookkeeping: the per-fix step then skips containment and
// steps 2 to 4.
//
// Why this is exact. Let F be the device's last full evaluation (the last fix that took the
// whole per-fix step) and C the current fix. The fast path is taken only when
//
// 1. F's containment was answered by a cell cache entry whose every fence covers all of the
//    entry's closed cell (no fence to test), with no monitored set filtering it (proximity
//    off; ``Configuration`` cannot change), and C lies in that cell (the same cell, or a cell
//    of that parent). The cache's relations are sound, so every point of the cell lies in
//    exactly the entry's fences: C's containment equals F's, zone by zone and fence by fence
//    (the zone's lowest-ranked fence is chosen the same way);
// 2. the zone generation is F's: no zone was added, replaced or removed since (so no zone is
//    new to the device, and no fence changed);
// 3. the movement from the device's last accepted fix to C cannot meet a GEOLINE
//    (``movementMayMeetGeolines(from:to:)`` is conservative), so there is no crossing;
// 4. after F's step 4, no record had a pending exit (`exitCount > 0`), a waiting dwell, or a
//    stay held only through hysteresis (`presence != .outside` with `fenceNow < 0`; a pending
//    exit or a waiting dwell implies such a stay, so the first two are only a guard);
// 5. the evaluator does not skip unchanged fixes (``Configuration/skipsUnchangedFixes``): its
//    safe disc already spares such fixes most of the work, and the full step notes a new disc
//    at each fix it evaluates, which this path would not (the disc decides which later fixes
//    are skipped, and is kept in snapshots).
//
// Between F and C, only dwells firing touch the device's records (zone changes bump the
// generation; fixes of this path and other devices' fixes fire dwells only):
// a dwell moves from `.scheduled` to `.fired`, never to `.waiting` (that needs an exit
// pending). So at C the records are still as F left them, and the full step would find:
//
// - containment: every zone with a fence in the cell is inside (its record exists and is not
//   `.outside`: F's step 4 checked in, or marked silently, every zone inside that was
//   outside, and only outside records are pruned). By 4, every record not `.outside` had a
//   fence holding F, so its zone is among these: no hysteresis test runs, every stay is
//   inside;
// - step 1: no waiting dwell; a due dwell of this device has no pending exit, so it fires with
//   the last fix's position, exactly as here (``fireDueDwells(upTo:current:fix:into:)`` runs
//   before the new last fix is stored in both paths);
// - step 2 (exits, exit confirmations, check-out off, `checkedInUntil`): no stay is outside,
//   no exit count moves (all are 0), nothing is checked out; `checkedInUntil` is only read by
//   step 3 of the same fix, after the full step resets it;
// - step 3: no crossing, so no GEOLINE check-in (and no MRT window opened by one);
// - step 4 (initial trigger, MRT windows, dwell scheduling): no record is both `.outside` and
//   inside, so there is no check-in and no silent entry;
// - pruning: the same ``pruneRecords(_:at:zoneCores:)`` runs here, so a record whose MRT
//   window closed by C is dropped at the same fix (snapshots see the same records);
// - step 5: proximity is off.
//
// The device's new last fix is stored as by the full step, so the evaluator's state after C
// (snapshots included) is the full step's. A cache hit is counted, as the full step would.
extension ZoneEvaluator {
  /// Fixes handled by the same-cell path (``passQuietFix(_:_:device:into:)``) since the
  /// evaluator was made, for all devices (not counted in `skippedFixCount`).
  var sameCellFixCount: Int { devices.reduce(0) { $0 + $1.sameCellFixCount } }

  /// Whether the accepted fix at `coordinate` lies in the pure cell of the device's last full
  /// evaluation, which left it quiet, with nothing else that could change (see the exactness
  /// argument above): a few integer operations, plus a box test when there are GEOLINEs.
  @inline(__always)
  mutating func isQuietInSameCell(_ coordinate: Coordinate, device d: Int) -> Bool {
    let (stored, generation, last) = devices.withUnsafeBufferPointer {
      ($0[d].quietCellKey, $0[d].quietCellGeneration, $0[d].lastCoordinate)
    }
    guard stored != 0, generation == zoneGeneration, configuration.proximity == nil,
      !configuration.skipsUnchangedFixes
    else { return false }
    let key = ContainmentCellCache.key(latitude: coordinate.latitude, longitude: coordinate.longitude)
    guard key != 0, key == stored || ContainmentCellCache.parent(of: key) == stored else {
      return false
    }
    return geolineIndex.isEmpty || last == coordinate
      || !movementMayMeetGeolines(from: last, to: coordinate)
  }

  /// Handles an accepted fix for which ``isQuietInSameCell(_:device:)`` holds: fires due
  /// dwells, drops records whose MRT window closed, and stores the new last fix.
  mutating func passQuietFix(
    _ fix: LocationFix, _ coordinate: Coordinate, device d: Int, into events: inout [ZoneEvent]
  ) {
    let t = fix.time
    devices[d].sameCellFixCount += 1
    cellCache.hits += 1
    if let next = dwellQueue.nextDeadline, next <= t {
      fireDueDwells(upTo: t, current: d, fix: fix, into: &events)
    }
    Self.pruneRecords(&devices[d].records, at: t, zoneCores: zoneCores)
    recordLastFix(fix, coordinate, device: d)
  }

  /// `pureCellKey` (the key of the pure cell that answered a full evaluation's containment, or
  /// 0) when the device's records, after steps 2 to 4 and pruning, leave it quiet: no pending
  /// exit, no waiting dwell, no stay held only through hysteresis; else 0.
  static func quietCellKey(_ pureCellKey: UInt64, records: [ZoneRecord]) -> UInt64 {
    guard pureCellKey != 0 else { return 0 }
    for record in records {
      if record.exitCount > 0 || record.dwell == .waiting { return 0 }
      if record.presence != .outside, record.fenceNow < 0 { return 0 }
    }
    return pureCellKey
  }
}
