import FenceGeometry

/// Explain (rules v2): one fix processed as usual, with what the engine looked at and decided
/// recorded around it. The per-fix step itself is untouched: explaining costs only the fixes
/// explained.
extension ZoneEvaluator {
  /// Processes `fix` exactly as ``process(_:into:)`` does (appending the same events) and says
  /// why it caused what it caused: the candidate fences and GEOLINEs with their predicates and
  /// distances, each concerned zone's rule state before and after, and the reason for no event.
  public mutating func explain(_ fix: LocationFix, into events: inout [ZoneEvent]) -> FixExplanation {
    let d = Int(handle(forDevice: fix.device).slot)
    let reading = FixReading(fix)
    // What `process` does before it looks at fences, done here first (each is idempotent), so
    // that the candidates are judged by the zones' state the fix will see.
    if !pendingEvents.isEmpty { flushPendingEvents(into: &events) }
    let start = events.count
    let rejection = rejectionReason(for: reading, device: d)
    if rejection == nil { runZoneClock(upTo: fix.time, into: &events) }
    let coordinate = Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude)
    let context = rejection == nil ? conditionContext(for: reading, coordinate, device: d) : nil
    let before = records(ofDevice: d)
    let hadFix = devices[d].hasFix
    let from = devices[d].lastCoordinate
    let skippedBefore = skippedFixCount
    let candidates =
      rejection == nil
      ? explainedCandidates(at: coordinate, from: hadFix ? from : nil, records: before) : []

    process(reading, slot: d, into: &events)

    let produced = Array(events[start...])
    let outcome: FixExplanation.Outcome =
      rejection.map { .rejected($0) } ?? (skippedFixCount > skippedBefore ? .skipped : .accepted)
    var zoneSlotsConcerned = Set<Int32>()
    for candidate in candidates {
      if let slot = zoneSlot(id: candidate.zone) { zoneSlotsConcerned.insert(slot) }
    }
    for record in before { zoneSlotsConcerned.insert(record.zone) }
    let after = records(ofDevice: d)
    for record in after { zoneSlotsConcerned.insert(record.zone) }
    var decisions: [FixExplanation.ZoneDecision] = []
    for zone in zoneSlotsConcerned where zoneSlots[Int(zone)] != nil {
      decisions.append(
        decision(
          zone: zone, fix: fix, outcome: outcome, context: context, before: before,
          after: after, candidates: candidates, events: produced))
    }
    decisions.sort { $0.zone < $1.zone }
    var reasonForNone: String?
    if produced.isEmpty {
      switch outcome {
      case .rejected(let reason): reasonForNone = "rejected: \(reason.rawValue)"
      case .skipped: reasonForNone = "skipped: nothing can change within the device's safe radius"
      case .accepted:
        reasonForNone =
          decisions.isEmpty
          ? "no fence's box holds the fix and the device has no state with any zone"
          : "no zone's state changed in a way that reports an event"
      }
    }
    return FixExplanation(
      fix: fix, outcome: outcome, candidates: candidates, zones: decisions, events: produced,
      reasonForNone: reasonForNone)
  }

  /// The fences whose boxes hold `coordinate`, the fences of the zones in `records`, and the
  /// GEOLINEs whose boxes meet the movement from `from`, with their predicates and distances.
  func explainedCandidates(
    at coordinate: Coordinate, from: Coordinate?, records: [ZoneRecord]
  ) -> [FixExplanation.Candidate] {
    let position = Position(coordinate)
    var seen = Set<Int32>()
    var result: [FixExplanation.Candidate] = []
    func add(_ slot: Int32, fromIndex: Bool) {
      guard seen.insert(slot).inserted else { return }
      let core = elementCores[Int(slot)]
      let zone = zoneID(at: core.zone)
      switch core.kind {
      case .circle, .polygon:
        var known: Position? = position
        let inside = fenceContains(slot, coordinate, position: &known)
        let distance =
          inside ? -fenceDistanceToBoundary(slot, from: position) : fenceDistance(slot, from: position)
        result.append(
          .init(
            id: elementID(at: slot), zone: zone, kind: core.kind == .circle ? .circle : .polygon,
            fromIndex: fromIndex, predicate: inside, distanceToEdge: distance))
      case .geoline:
        guard let shape = geolineShapes.sparseSlot(slot) else { return }
        var crossed = false
        if let from, from != coordinate {
          var crossings: [GeolineCrossing] = []
          shape.line.crossings(from: from, to: coordinate, into: &crossings)
          crossed = crossings.contains { shape.direction.admits($0.direction) }
        }
        result.append(
          .init(
            id: elementID(at: slot), zone: zone, kind: .geoline, fromIndex: fromIndex,
            predicate: crossed, distanceToEdge: shape.line.distance(from: position)))
      case .vacant: return
      }
    }
    fenceIndex.search(containing: coordinate.latitude, longitude: coordinate.longitude) {
      add($0, fromIndex: true)
    }
    if let from, from != coordinate {
      geolineIndex.search(intersecting: BoundingBox.movement(from: from, to: coordinate)) {
        add($0, fromIndex: true)
      }
    }
    for record in records {
      zoneSlots[Int(record.zone)]?.slots.forEachFence { add($0, fromIndex: false) }
    }
    result.sort { $0.id < $1.id }
    return result
  }

  /// One zone's decision for the fix.
  func decision(
    zone: Int32, fix: LocationFix, outcome: FixExplanation.Outcome, context: ConditionContext?,
    before: [ZoneRecord], after: [ZoneRecord], candidates: [FixExplanation.Candidate],
    events: [ZoneEvent]
  ) -> FixExplanation.ZoneDecision {
    let id = zoneID(at: zone)
    let core = zoneCores[Int(zone)]
    func state(_ records: [ZoneRecord]) -> (FixExplanation.RuleState, ZoneRecord?) {
      let (index, found) = records.recordIndex(of: zone)
      guard found else { return (.outside, nil) }
      let record = records[index]
      var state = FixExplanation.RuleState(presence: .outside, exitCount: Int(record.exitCount))
      switch record.presence {
      case .outside: state.presence = .outside
      case .insideSilently: state.presence = .insideSilently
      case .checkedIn:
        state.presence = .checkedIn
        state.checkInTime = record.checkInTime
        if record.dwell == .scheduled || record.dwell == .waiting {
          state.dwellDue = record.dwellDeadline
        }
      }
      if core.minimumRetriggerTime > 0, let start = record.windowStart {
        let until = start.adding(seconds: core.minimumRetriggerTime)
        if until > fix.time { state.mrtUntil = until }
      }
      return (state, record)
    }
    let (stateBefore, _) = state(before)
    let (stateAfter, recordAfter) = state(after)
    let armed = !core.gate.contains(.dormant)
    var passed: Bool?
    if let conditions = zoneConditions[zone] {
      passed = context.map { conditions.admits($0.motion, tags: deviceTags[$0.device] ?? []) } ?? false
    }
    let fences = candidates.filter { $0.zone == id && $0.kind != .geoline }
    let covered = fences.contains { $0.predicate }
    let insideNow = armed && passed != false && (recordAfter?.isInsideNow ?? covered)
    let kinds = events.filter { $0.zone == id && $0.device == fix.device }.map(\.kind)
    let nearest = fences.map(\.distanceToEdge).min()
    var reason: String
    if !kinds.isEmpty {
      reason = kinds.map(\.rawValue).joined(separator: ", ")
    } else if case .rejected(let why) = outcome {
      reason = "the fix was rejected (\(why.rawValue))"
    } else if case .skipped = outcome {
      reason = "skipped: nothing can change within the device's safe radius"
    } else if !armed {
      reason = "the zone is not armed now (outside its schedule's windows or its lifetime)"
    } else if passed == false {
      let speed = context?.motion.speed.map { "\(($0 * 100).rounded() / 100) m/s" } ?? "none"
      let course = context?.motion.course.map { "\(($0 * 10).rounded() / 10)°" } ?? "none"
      let tags = context.map { deviceTags[$0.device] ?? [] } ?? []
      reason = "the fix fails the zone's conditions (speed \(speed), course \(course), tags \(tags))"
    } else if stateBefore.presence == .checkedIn && stateAfter.presence == .checkedIn {
      if stateAfter.exitCount > 0 {
        reason = "outside, exit pending: \(stateAfter.exitCount) of \(core.exitConfirmations) fixes outside"
      } else if insideNow && !covered && core.exitHysteresis > 0 {
        reason = "outside its fences but within its exit hysteresis of \(core.exitHysteresis) m"
      } else {
        reason = "still inside, checked in since \(stateAfter.checkInTime.map(RFC3339.format) ?? "?")"
      }
    } else if stateAfter.presence == .insideSilently && stateBefore.presence == .outside {
      if let until = stateBefore.mrtUntil ?? stateAfter.mrtUntil {
        reason = "entry suppressed by the minimum retrigger time until \(RFC3339.format(until))"
      } else {
        reason = "inside without a check-in: initial trigger is off"
      }
    } else if stateAfter.presence == .insideSilently {
      reason = "inside without a check-in for this stay"
    } else if stateBefore.presence == .checkedIn {
      reason = "left; the zone does not report check-outs"
    } else if let nearest {
      reason = "outside: \((nearest * 10).rounded() / 10) m from the zone's nearest fence"
    } else {
      reason = "outside"
    }
    if kinds.isEmpty, stateBefore.presence == .outside, stateAfter.presence == .outside,
      let until = stateAfter.mrtUntil, covered
    {
      reason = "entry suppressed by the minimum retrigger time until \(RFC3339.format(until))"
    }
    return .init(
      zone: id, before: stateBefore, after: stateAfter, armed: armed, conditionsPassed: passed,
      insideNow: insideNow, hysteresis: core.exitHysteresis, events: kinds, reason: reason)
  }
}
