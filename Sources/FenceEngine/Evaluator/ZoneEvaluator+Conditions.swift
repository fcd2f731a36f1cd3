import FenceGeometry

/// What a fix's conditions are judged on: its speed and course (the fix's own or derived) and
/// its device's tags. Made once per fix, only while some zone has conditions.
struct ConditionContext {
  var motion: FixMotion
  var tags: [String]
}

extension ZoneEvaluator {
  // MARK: - Device tags

  /// Sets the tags of a device (registering it when new), replacing its previous tags; zones'
  /// `deviceTags` conditions read them from the device's next fix on. Empty tags are ignored,
  /// repeated ones kept once.
  public mutating func setTags(_ tags: some Sequence<String>, forDevice name: String) {
    let slot = handle(forDevice: name).slot
    let sorted = Array(Set(tags.filter { !$0.isEmpty })).sorted()
    if sorted.isEmpty {
      deviceTags.removeValue(forKey: slot)
    } else {
      deviceTags[slot] = sorted
    }
    if !roaming.isEmpty { refileRoamingCarrier(Int(slot)) }
  }

  /// The tags of a device, sorted (empty for an unknown device or one without tags).
  public func tags(ofDevice name: String) -> [String] {
    guard let slot = deviceSlotByName[name] else { return [] }
    return deviceTags[slot] ?? []
  }

  // MARK: - Per fix

  /// The speed and course a fix's conditions use: the fix's own, else derived from the device's
  /// previous accepted fix (distance over time, and the initial bearing; no course when the
  /// device did not move). `nil` for a device's first fix without them.
  func motion(of fix: LocationFix, _ coordinate: Coordinate, device d: Int) -> FixMotion {
    var motion = FixMotion(speed: fix.speed, course: fix.course)
    guard devices[d].hasFix, motion.speed == nil || motion.course == nil else { return motion }
    let previous = devices[d].lastCoordinate
    if motion.speed == nil {
      let seconds = fix.time.seconds(since: devices[d].lastTime)
      motion.speed = WGS84.distance(previous, coordinate) / seconds
    }
    if motion.course == nil { motion.course = WGS84.initialBearing(from: previous, to: coordinate) }
    return motion
  }

  /// The condition context of a fix, when some zone has conditions.
  func conditionContext(
    for fix: LocationFix, _ coordinate: Coordinate, device d: Int
  ) -> ConditionContext? {
    guard conditionedZoneCount > 0 else { return nil }
    return ConditionContext(
      motion: motion(of: fix, coordinate, device: d), tags: deviceTags[Int32(d)] ?? [])
  }

  /// Whether the zone in slot `zone`, whose gate is `gate`, counts for the current fix: not
  /// dormant, and its conditions (if any) passed.
  @inline(__always)
  func zoneCounts(_ zone: Int32, gate: ZoneGate, _ context: ConditionContext?) -> Bool {
    if gate.isEmpty { return true }
    if gate.contains(.dormant) { return false }
    guard let context, let conditions = zoneConditions[zone] else { return true }
    return conditions.admits(context.motion, tags: context.tags)
  }

  /// Marks the records of zones whose conditions the current fix fails as hidden (they see
  /// nothing of it), and clears the mark on the others.
  func hideRecordsFailingConditions(_ records: inout [ZoneRecord], _ context: ConditionContext) {
    for r in records.indices {
      let zone = records[r].zone
      records[r].isHiddenNow = !zoneCounts(zone, gate: zoneCores[Int(zone)].gate, context)
    }
  }

  /// The speed and course an event of the zone in slot `zone` carries: those its conditions were
  /// judged on when it has speed or course conditions, else the fix's own.
  func eventMotion(
    zone: Int32, fix: LocationFix, _ context: ConditionContext?
  ) -> (speed: Double?, course: Double?) {
    if let context, let conditions = zoneConditions[zone], conditions.usesMotion {
      return (context.motion.speed, context.motion.course)
    }
    return (fix.speed, fix.course)
  }
}
