import FenceGeometry

/// The side tables of rules v2 (conditions, lifetime, schedule) kept in step with the zones:
/// zones without these rules have no entry, so that loading and evaluating them costs nothing
/// more than before.
extension ZoneEvaluator {
  /// Files the v2 rules of a zone just put in slot `zone` (its core already made from `rules`),
  /// and gives its elements the zone's gate.
  mutating func applyRulesV2(
    _ rules: ZoneRules, zone: Int32, replaces: Bool, wasConditioned: Bool
  ) {
    if let conditions = rules.conditions {
      zoneConditions[zone] = conditions
      if conditionCores.count <= Int(zone) {
        conditionCores.append(contentsOf: repeatElement(ConditionCore(), count: Int(zone) + 1 - conditionCores.count))
      }
      conditionCores[Int(zone)] = ConditionCore(conditions)
      if !wasConditioned { conditionedZoneCount += 1 }
    } else if wasConditioned {
      zoneConditions.removeValue(forKey: zone)
      conditionCores[Int(zone)] = ConditionCore()
      conditionedZoneCount -= 1
    }
    let previous = replaces ? zoneTimings[zone] : nil
    if !replaces { zoneTimings.removeValue(forKey: zone) }
    // The schedule was validated with the zone; a time zone cannot go missing in between.
    followTiming(of: rules, zone: zone, previous: previous, replaces: replaces)
    if rules.roam != nil || roaming.zones[zone] != nil {
      followRoaming(of: rules, zone: zone)
    }
    let gate = zoneCores[Int(zone)].gate
    zoneSlots[Int(zone)]?.slots.forEach { elementCores[Int($0)].gate = gate }
  }

  /// Drops the v2 rules of the zone in slot `zone`, which is being removed.
  mutating func forgetRulesV2(zone: Int32) {
    if zoneConditions.removeValue(forKey: zone) != nil {
      conditionCores[Int(zone)] = ConditionCore()
      conditionedZoneCount -= 1
    }
    zoneTimings.removeValue(forKey: zone)
    zoneCores[Int(zone)].gate = ZoneGate()
    if roaming.zones.removeValue(forKey: zone) != nil {
      dropRoamingRecords(of: zone)
      rebuildRoamingIndex()
    }
  }

  /// The check-outs of a change's removals under `exitOnRemove` (see ``ZoneRules/exitOnRemove``),
  /// stamped with the engine's time and kept for the next fix or advance: devices checked in to
  /// a removed zone, and devices checked in to a replaced zone whose last accepted position no
  /// fence of the new version holds. Each such stay ends; a replaced zone keeps the device's MRT
  /// window, opened at the check-out. The check-outs of roaming pairs (`batch.roamingClosed`)
  /// join them.
  mutating func checkOutOnRemoval(_ batch: RemovalBatch) {
    guard let now = time else { return }
    guard !batch.exiting.isEmpty || !batch.replacedExiting.isEmpty else {
      // Only roaming pairs (made before their zone's state went).
      var closed = batch.roamingClosed
      Self.sortClosings(&closed)
      pendingEvents.append(contentsOf: closed)
      return
    }
    var closed: [ZoneEvent] = []
    let replaced = Set(batch.replacedExiting)
    modifyEveryDevicesRecords { evaluator, d, records in
      for r in records.indices {
        let record = records[r]
        guard record.presence == .checkedIn, record.willCheckOut else { continue }
        if let zone = batch.exiting[record.zone] {
          var event = evaluator.closingCheckOut(record, device: d, at: now, reason: .zoneRemoved)
          event.zone = zone.id
          event.customData = zone.customData
          event.assignDeterministicID()
          closed.append(event)
        } else if replaced.contains(record.zone),
          !evaluator.lastPositionIsInside(zone: record.zone, device: d)
        {
          closed.append(evaluator.closingCheckOut(record, device: d, at: now, reason: .zoneRemoved))
          records[r].windowStart = now
          evaluator.endStay(device: d, record: &records[r])
        }
      }
    }
    closed += batch.roamingClosed
    Self.sortClosings(&closed)
    pendingEvents.append(contentsOf: closed)
  }

  /// Whether a fence of the zone in slot `zone` holds device `d`'s last accepted position.
  @inline(__always)  // out of line, its callers copied the whole evaluator to call it
  func lastPositionIsInside(zone: Int32, device d: Int) -> Bool {
    guard devices[d].hasFix, let slots = zoneSlots[Int(zone)]?.slots else { return false }
    let coordinate = devices[d].lastCoordinate
    var position: Position?
    var inside = false
    slots.forEachFence { slot in
      if !inside, fenceContains(slot, coordinate, position: &position) { inside = true }
    }
    return inside
  }
}
