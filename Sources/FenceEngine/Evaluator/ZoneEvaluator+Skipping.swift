#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

import FenceGeometry
import FenceIndex

// Skipping fixes that cannot change anything: after a full evaluation, the device's safe
// radius (the distance to the nearest fence boundary or GEOLINE, capped); a later fix inside it
// only fires timers. See `Docs/EventSemantics.md`, "Skipping fixes that cannot change anything".
extension ZoneEvaluator {
  /// Handles an accepted fix that cannot enter, leave or cross anything: only timers and
  /// bookkeeping.
  ///
  /// A device with a safe radius has no dwell waiting on a pending exit (``noteSafeRadius``
  /// notes none while an exit is pending, and only the device's own full evaluations start
  /// one), so only the queue's head can make a dwell due here.
  ///
  /// `settled`: skipped because the device is settled in its cell
  /// (``settledState(_:cell:testAnswers:records:)``), counted in ``settledFixCount``; else
  /// within its safe radius, in ``skippedFixCount``.
  /// The same argument holds for both: the device's last full evaluation left nothing pending,
  /// and neither this fix nor the movement to it can enter, leave or cross anything.
  mutating func skip(
    _ fix: FixReading, _ coordinate: Coordinate, device d: Int, settled: Bool = false,
    into events: inout [ZoneEvent]
  ) {
    let t = fix.time
    if settled { settledFixCount += 1 } else { skippedFixCount += 1 }
    if let next = dwellQueue.nextDeadline, next <= t {
      fireDueDwells(upTo: t, current: d, fix: fix, into: &events)
    }
    recordLastFix(fix, coordinate, device: d)
  }

  /// Whether, after a full evaluation at `coordinate`, the device is settled in the cell of
  /// its cell memo (``DeviceState/settledInCell``, which ``recordLastFix`` writes), so that
  /// its next fixes in that cell whose fences to test answer as this fix's did, while the memo
  /// answers for them, skip the rest of the evaluation (``process(at:slot:into:)``): the same
  /// events, as a fix within a safe radius (``skip``), with no radius to measure. It is when
  /// - the cell cache answered this fix for its cell (`cell`, now the device's memo) with at
  ///   most ``SettledInCell/testLimit`` fences to test, whose answers are kept (`testAnswers`,
  ///   from ``markInside``): every other fence covers every point of the
  ///   cell or none, so a later fix in the cell that the fences to test answer the same way
  ///   lies in the very fences this fix does;
  /// - no GEOLINE's box meets the cell (widened by 10⁻⁹ degree), so a movement inside it
  ///   crosses none;
  /// - every record is a stay (checked in or inside silently) that a fence holds now, with no
  ///   exit counted and no dwell waiting (the state a fix in the same fences leaves as it is:
  ///   see ``areSettled(_:)``), none held only by hysteresis, or a zone it is outside of and not in now
  ///   (``areSettledInFences(_:)``);
  /// - and no roaming fence exists and proximity monitoring is off (each makes a fix's result
  ///   depend on more than its cell), nor is
  ///   ``Configuration/skipsUnchangedFixes`` on: its safe radius, renewed at each full
  ///   evaluation, does that job there, and a settled fix would leave the radius unrenewed,
  ///   so that how many fixes it skips would depend on whether the device's memo survived (a
  ///   snapshot keeps neither).
  ///
  /// Zones with conditions (rules v2) are judged again at each later fix, by
  /// ``conditionsKeepSettled(in:answers:_:_:device:)``.
  ///
  /// The memo answers only while the cache has not been emptied since it was made, and any
  /// zone change (the zone clock's included) empties the cache; a full evaluation anywhere
  /// writes the state again. Devices in cells with many fences to test, with a pending exit,
  /// or where the cache is off or bypassed, are never settled.
  @inline(__always)
  mutating func settledState(
    _ coordinate: Coordinate, cell: ContainmentCellCache.Entry?, testAnswers: UInt32,
    records: [ZoneRecord]
  ) -> SettledInCell {
    guard let cell, Int(cell.testCount) <= SettledInCell.testLimit, roaming.isEmpty,
      configuration.proximity == nil, !configuration.skipsUnchangedFixes,
      Self.areSettledInFences(records), !geolineMeetsCell(of: coordinate)
    else { return SettledInCell() }
    return SettledInCell(answers: testAnswers)
  }

  /// How `coordinate` answers the fences to test of `cell` (bit *k*: the *k*-th covers it), as
  /// ``markInside`` finds them with no monitored set; for at most 32 fences.
  @inline(__always)
  mutating func testAnswers(
    of cell: ContainmentCellCache.Entry, at coordinate: Coordinate, position: inout Position?
  ) -> UInt32 {
    let testStart = Int(cell.start) + Int(cell.insideCount)
    var answers: UInt32 = 0
    for k in testStart..<(testStart + Int(cell.testCount)) {
      let slot = cellCache.pool[k].slot
      if cellFenceContains(slot, poolSlot: k, coordinate, position: &position) {
        answers |= 1 &<< UInt32(truncatingIfNeeded: k &- testStart)
      }
    }
    return answers
  }

  /// Whether the conditions of rules v2 leave a fix of a device settled in the cell `entry`
  /// as its settling fix left it, given that the cell's fences to test answer the fix as they
  /// answered that one (`answers`): the fix lies in the very same fences.
  ///
  /// A zone holding a stay of the device (checked in, or inside silently) changes nothing at
  /// such a fix whatever its conditions say: passed, the device is still inside; failed, the
  /// fix is invisible to the zone and counts no exit. A zone with conditions whose fence holds
  /// the fix but which holds no stay failed its conditions at the settling fix (a settled
  /// device's records are stays held by fences, or zones it is not in), so it must fail them
  /// now too, or this fix checks in: only those zones are judged. A zone without conditions
  /// whose fence holds the fix holds a stay. Dormant zones hold nothing, and a change of
  /// dormancy (the zone clock) empties the cache, so the memo no longer answers.
  ///
  /// `false` (the fix is evaluated whole) when the cell lists more than 64 fences: a settled
  /// cell has at most ``SettledInCell/testLimit`` fences to test, so that takes over 57
  /// fences covering the whole cell.
  ///
  /// Out of line, for evaluators with conditions only. It makes the fix's ``ConditionContext``
  /// itself; when a zone passes, the per-fix step makes it again after the skips (and derives
  /// the motion again): keeping one context alive across the skips cost every fix of every
  /// evaluator about 15 instructions, and only fixes that check in pay twice.
  @inline(never)
  mutating func conditionsKeepSettled(
    in entry: ContainmentCellCache.Entry, answers: UInt32, _ fix: FixReading,
    _ coordinate: Coordinate, device d: Int
  ) -> Bool {
    guard let context = conditionContext(for: fix, coordinate, device: d) else { return true }
    let start = Int(entry.start)
    let testStart = start + Int(entry.insideCount)
    let end = testStart + Int(entry.testCount)
    guard end - start <= 64 else { return false }
    // Bit k: the (start + k)-th pool entry's zone has conditions, holds the fix and no stay.
    let toJudge: UInt64 = withRecords(ofDevice: d) { records in
      var bits: UInt64 = 0
      for k in start..<end {
        if k >= testStart, answers & (1 &<< UInt32(truncatingIfNeeded: k &- testStart)) == 0 {
          continue
        }
        let core = elementCores[Int(cellCache.pool[k].slot)]
        guard core.gate.contains(.conditioned), !core.gate.contains(.dormant) else { continue }
        let (r, found) = records.recordIndex(of: core.zone)
        if found, records[r].presence != .outside { continue }
        bits |= 1 &<< UInt64(k &- start)
      }
      return bits
    }
    var remaining = toJudge
    while remaining != 0 {
      let k = start + remaining.trailingZeroBitCount
      remaining &= remaining &- 1
      if passesConditions(elementCores[Int(cellCache.pool[k].slot)].zone, context) { return false }
    }
    return true
  }

  /// Whether every record is either a stay held by a fence now (not only by hysteresis) with
  /// no exit counted and no dwell waiting on one, or a zone the device is outside of and not
  /// in now (kept for its MRT window: a fix in the same fences leaves it as it is, and only
  /// its pruning, which emits nothing, waits for the next full evaluation).
  @inline(__always)
  static func areSettledInFences(_ records: [ZoneRecord]) -> Bool {
    records.withUnsafeBufferPointer { records in
      for r in records.indices {
        let record = records[r]
        if record.presence == .outside {
          if record.isInsideNow { return false }
        } else if !record.isInsideNow || record.fenceNow < 0 || record.exitCount != 0
          || record.dwell == .waiting
        {
          return false
        }
      }
      return true
    }
  }

  /// Whether some GEOLINE's box meets the cell holding `coordinate`, widened by 10⁻⁹ degree,
  /// judged as the crossing search judges a movement
  /// (``findCrossings(to:isFirst:device:filter:context:records:)``): the extent test first,
  /// then ``forEachGeoline(meeting:_:)``, which finds the candidates of any movement inside the
  /// widened cell, and more. With no GEOLINE, or none within two cells' sizes of the coordinate
  /// (most settled fixes of a harbor), `false` without making the cell's box.
  ///
  /// Left out of line: inlined into the per-fix step, it made a million devices over 100
  /// circles (no GEOLINE, never settled) 2-4 % slower by code layout alone.
  mutating func geolineMeetsCell(of coordinate: Coordinate) -> Bool {
    guard !geolineIndex.isEmpty else { return false }
    let latitude = coordinate.latitude
    let longitude = coordinate.longitude
    // Most settled fixes lie far from the few GEOLINEs: the box two cells' sizes around the
    // fix holds its widened cell (one cell a side), so when no GEOLINE meets it none meets the
    // cell. Away from the poles and longitude ±180, where the box stays plain.
    if abs(latitude) < 89, abs(longitude) < 179 {
      let reach = 2 / ContainmentCellCache.cellsPerDegree
      let near = BoundingBox(
        south: latitude - reach, west: longitude - reach, north: latitude + reach,
        east: longitude + reach)
      guard geolineMeets(near) else { return false }
    }
    let key = ContainmentCellCache.key(latitude: latitude, longitude: longitude)
    // Keys stop 0.1 degree short of longitude ±180: the widened cell never crosses it.
    guard key != 0 else { return true }
    let cell = ContainmentCellCache.cell(key)
    let margin = 1e-9
    return geolineMeets(
      BoundingBox(
        south: cell.south - margin, west: cell.west - margin, north: cell.north + margin,
        east: cell.east + margin))
  }

  /// Whether some GEOLINE's box may meet `box`, as the crossing search judges a movement's box:
  /// the extent test, then ``forEachGeoline(meeting:_:)``.
  @inline(__always)
  private mutating func geolineMeets(_ box: BoundingBox) -> Bool {
    guard movementMayMeetGeolines(box) else { return false }
    var meets = false
    forEachGeoline(meeting: box) { _ in meets = true }
    return meets
  }

  /// The largest safe radius noted, in metres, for the fastest devices (see
  /// ``safeRadiusLimit(pace:)``): fence boundaries are measured up to this far. Distances,
  /// reach boxes and the chord-for-arc margin all stay exact to well under a millimetre at this
  /// range.
  static let largestSafeRadius = 2_000.0

  /// How many fixes at its pace a device's safe radius aims to hold.
  static let safeRadiusFixes = 32.0

  /// The safe radius searched for around a device moving `pace` metres per fix:
  /// ``safeRadiusLimit`` (250 m) for a device at rest or walking, growing with the pace so
  /// that a faster device also gets about ``safeRadiusFixes`` fixes from one full evaluation,
  /// up to ``largestSafeRadius``.
  ///
  /// *Choice*: the search is a box search whose cost grows with the box, and where fences are
  /// dense the nearest boundary is near anyway; a device that moves little already skips for
  /// long within 250 m.
  @inline(__always)
  static func safeRadiusLimit(pace: Double) -> Double {
    min(largestSafeRadius, max(safeRadiusLimit, pace * safeRadiusFixes))
  }

  /// Whether a fix at `coordinate` provably lies inside the device's safe radius (with a 0.5 m
  /// margin), judged in degrees without trigonometry.
  ///
  /// The length of the straight path in latitude and longitude from the safe centre bounds the
  /// WGS84 distance, which bounds the ECEF chord from above; that length is at most the
  /// Euclidean combination of the degree differences scaled by the largest metres per degree
  /// on the path. So a `true` here implies a `true` from ``canSkip(_:device:)``, which decides
  /// whenever this says `false`; the skipped fixes are exactly the same.
  @inline(__always)
  func canSkipInDegrees(_ coordinate: Coordinate, device d: Int) -> Bool {
    guard configuration.skipsUnchangedFixes, configuration.proximity == nil else { return false }
    guard devices.withUnsafeBufferPointer({ $0[d].hasFix }) else { return false }
    return safeDiscs.withUnsafeBufferPointer { discs in
      let disc = discs[d]
      guard disc.radius > 0, disc.generation == zoneGeneration else { return false }
      let latitudeMetres = (coordinate.latitude - disc.latitude) * WGS84.metresPerDegreeBound
      var degrees = abs(coordinate.longitude - disc.longitude)
      if degrees > 180 { degrees = 360 - degrees }
      let longitudeMetres = degrees * disc.metresPerDegreeLongitude
      let bound = (latitudeMetres * latitudeMetres + longitudeMetres * longitudeMetres)
        .squareRoot()
      // NaN (no centre in degrees) compares false.
      return bound * (1 + 1e-9) + 0.5 < disc.radius
    }
  }

  /// Whether a fix at `position` lies inside the device's safe radius (with a 0.5 m margin),
  /// so that neither it nor the movement to it can change any zone state: one ECEF distance.
  @inline(__always)
  func canSkip(_ position: Position, device d: Int) -> Bool {
    guard configuration.skipsUnchangedFixes, configuration.proximity == nil,
      devices[d].hasFix, safeDiscs[d].radius > 0,
      safeDiscs[d].generation == zoneGeneration
    else { return false }
    // The chord is within a micrometre of the arc at these distances; both ends of the
    // movement lie in the disc, and so does the straight segment between them.
    return safeDiscs[d].center.chord(to: position.ecef) + 0.5 < safeDiscs[d].radius
  }

  /// Notes how far from `position` the device can move without any fence boundary or GEOLINE
  /// in reach, after a full evaluation; 0 while an exit is pending or a stay holds only through
  /// hysteresis (those change state on fixes that move nowhere).
  ///
  /// `insideBoundary` is the distance to the boundary of the nearest fence holding the position
  /// (from
  /// ``markInside(at:device:position:records:filter:measuringBoundary:)``, measured up
  /// to ``largestSafeRadius``); the nearest other fence and the nearest GEOLINE within what is
  /// left come from box searches, up to ``safeRadiusLimit(pace:)``. The device's *pace* is the
  /// distance from its previous fix, in a local plane (a heuristic: it only sizes the search,
  /// and it depends only on state a snapshot keeps). A radius no larger than 0.5 m plus the
  /// pace would not let the device skip its next fix, so it is not worth searching for: it is
  /// noted as 0. No trigonometry here: the sine and cosine of the latitude come from the ECEF
  /// vector.
  mutating func noteSafeRadius(
    around position: Position, device d: Int, records: [ZoneRecord], insideBoundary: Double,
    isFirst: Bool
  ) {
    // On the ellipsoid, (x, y, z) = (N cos φ cos λ, N cos φ sin λ, N (1 − e²) sin φ).
    let ecef = position.ecef
    let northward = abs(ecef.z) / (1 - WGS84.eccentricitySquared)
    let equatorward = (ecef.x * ecef.x + ecef.y * ecef.y).squareRoot()
    let n = (northward * northward + equatorward * equatorward).squareRoot()
    let cosLatitude = n > 0 ? equatorward / n : 1
    let sinLatitude = n > 0 ? northward / n : 0

    var pace = 0.0
    if !isFirst {
      let last = devices[d].lastCoordinate
      let north = (position.latitude - last.latitude) * 111_132
      var degrees = abs(position.longitude - last.longitude)
      if degrees > 180 { degrees = 360 - degrees }
      let east = degrees * 111_320 * cosLatitude
      pace = (north * north + east * east).squareRoot()
    }
    var safe = min(Self.safeRadiusLimit(pace: pace), insideBoundary)
    for record in records {
      // A stay that holds only through hysteresis (no fence holds the position), an exit
      // pending, or a dwell waiting on one.
      if record.presence != .outside, record.fenceNow < 0 { safe = 0 }
      if record.exitCount > 0 || record.dwell == .waiting { safe = 0 }
    }
    let useful = 0.5 + pace
    if safe <= useful { safe = 0 }
    if safe > 0 {
      safe = Self.nearestBoundary(
        to: position, within: safe, records: records, fenceIndex: fenceIndex,
        geolineIndex: geolineIndex, cores: elementCores, polygons: polygonFences, geolines: geolineShapes)
      if safe <= useful { safe = 0 }
    }
    // A fix that passes the test in degrees lies less than `band` radians of latitude from the
    // centre, where the cosine of latitude is at most cos φ + sin |φ| · band (the tangent line
    // bounds the concave cosine from above).
    let band = safe / 110_000 * (.pi / 180)
    let metresPerDegreeLongitude =
      WGS84.metresPerDegreeBound * min(1, cosLatitude + sinLatitude * band) * (1 + 1e-9)
    let generation = zoneGeneration
    safeDiscs.withUnsafeMutableBufferPointer { discs in
      discs[d] = SafeDisc(
        center: ecef, radius: safe, generation: generation, latitude: position.latitude,
        longitude: position.longitude, metresPerDegreeLongitude: metresPerDegreeLongitude)
    }
  }

  /// The distance to the nearest fence boundary or GEOLINE when within `radius` metres, else
  /// `radius`; the boundaries of the fences named by a record's `fenceNow` in `records` (the
  /// fences holding `position` that the caller measured) are left out.
  ///
  /// One box search per index over the box that holds the disc of `radius`
  /// (``BoundingBox/reach(around:metres:)``), measuring each element it reports to its
  /// boundary with the best distance so far as the cap (one ``DistanceProbe`` for all):
  /// within a radius of at most ``largestSafeRadius`` that is few elements, and box
  /// comparisons cost far less than a best-first search's spherical bounds and queue. Every
  /// reported fence is measured to its boundary whether or not it holds the position, so no
  /// containment test is needed.
  ///
  /// Static, on the tables it reads: a method of the evaluator called from a mutating one
  /// would copy the whole evaluator (every array retained and released) at each call.
  static func nearestBoundary(
    to position: Position, within radius: Double, records: [ZoneRecord], fenceIndex: RTree,
    geolineIndex: RTree, cores: [ElementCore], polygons: [PolygonFence?], geolines: [GeolineShape?]
  ) -> Double {
    var safe = radius
    let reach = BoundingBox.reach(around: position.coordinate, metres: radius)
    // Made on the first polygon, and shared by every polygon measured.
    var probe: DistanceProbe?
    fenceIndex.search(intersecting: reach) { slot in
      guard safe > 0 else { return }
      let core = cores[Int(slot)]
      switch core.kind {
      case .circle:
        safe = min(safe, core.circle.distanceToBoundary(from: position.ecef))
      case .polygon:
        // A polygon measured by the caller: its search would only repeat that one.
        let (r, found) = records.recordIndex(of: core.zone)
        if found, records[r].fenceNow == slot { return }
        guard let polygon = polygons.sparseSlot(slot) else { return }
        let prepared = probe ?? DistanceProbe(position)
        probe = prepared
        safe = polygon.shape.distanceToBoundary(from: prepared, within: safe)
      case .geoline, .vacant: return
      }
    }
    if safe > 0, !geolineIndex.isEmpty {
      let reach = BoundingBox.reach(around: position.coordinate, metres: safe)
      geolineIndex.search(intersecting: reach) { slot in
        guard safe > 0, let geoline = geolines.sparseSlot(slot) else { return }
        safe = min(safe, geoline.line.distance(from: position))
      }
    }
    return safe
  }

  /// Metres from a position to the fence's boundary when less than ``largestSafeRadius``, else
  /// that limit (no safe radius can use more): `Area.distanceToBoundary(from:within:)`.
  /// Inlined, so that a mutating caller does not copy the evaluator to call it; a local function
  /// that captures the evaluator copies it all the same, and calls the static form instead.
  @inline(__always)
  func fenceDistanceToBoundary(_ slot: Int32, from position: Position) -> Double {
    Self.fenceDistanceToBoundary(
      slot, from: position, within: Self.largestSafeRadius, cores: elementCores,
      polygons: polygonFences)
  }

  /// Metres from a position to the boundary of the fence in `slot` on the given element tables
  /// when less than `limit`, else `limit` (infinity: the exact distance). A polygon's search
  /// visits only the edge chunks within `limit`.
  static func fenceDistanceToBoundary(
    _ slot: Int32, from position: Position, within limit: Double = .infinity,
    cores: [ElementCore], polygons: [PolygonFence?]
  ) -> Double {
    switch cores[Int(slot)].kind {
    case .circle:
      return min(limit, cores[Int(slot)].circle.distanceToBoundary(from: position.ecef))
    case .polygon:
      guard let polygon = polygons.sparseSlot(slot) else { return limit }
      return polygon.shape.distanceToBoundary(from: position, within: limit)
    case .geoline, .vacant: return limit
    }
  }
}
