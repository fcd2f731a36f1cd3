import FenceGeometry

/// What a fix's conditions are judged on: its speed and course (the fix's own or derived) and
/// its device's tags. Made once per fix, only while some zone has conditions, from plain values:
/// the derived speed and course (trigonometry) are computed only when a condition asks, so a fix
/// that meets no conditioned zone pays nothing for them.
struct ConditionContext {
  var fixSpeed: Double?
  var fixCourse: Double?
  /// The device's previous accepted fix, if any.
  var previous: (coordinate: Coordinate, time: Timestamp)?
  var coordinate: Coordinate
  var time: Timestamp
  var device: Int32

  /// The speed from the previous fix: one local-plane step's length over the time between them.
  var derivedSpeed: Double? {
    guard let previous else { return nil }
    let (north, east) = WGS84.localDisplacement(from: previous.coordinate, to: coordinate)
    return (north * north + east * east).squareRoot() / time.seconds(since: previous.time)
  }

  /// The course from the previous fix (none when the device did not move).
  var derivedCourse: Double? {
    guard let previous else { return nil }
    return WGS84.initialBearing(from: previous.coordinate, to: coordinate)
  }

  /// The fix's speed and course, else derived from the previous fix (``derivedSpeed``,
  /// ``derivedCourse``).
  var motion: FixMotion {
    FixMotion(speed: fixSpeed ?? derivedSpeed, course: fixCourse ?? derivedCourse)
  }
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
    guard let slot = deviceSlot(named: name) else { return [] }
    return deviceTags[slot] ?? []
  }

  // MARK: - Per fix

  /// The condition context of a fix, when some zone has conditions (see ``ConditionContext``:
  /// the speed and course used are the fix's own, else derived from the device's previous
  /// accepted fix; `nil` for a device's first fix without them).
  ///
  /// These helpers are `mutating` although they change nothing: called from the mutating
  /// per-fix steps, a non-mutating method made the compiler copy the whole evaluator per call
  /// (seen in a profile of a conditioned run).
  @inline(__always)
  mutating func conditionContext(
    for fix: FixReading, _ coordinate: Coordinate, device d: Int
  ) -> ConditionContext? {
    guard conditionedZoneCount > 0 else { return nil }
    let previous = devices[d].hasFix ? (devices[d].lastCoordinate, devices[d].lastTime) : nil
    // The cache is for this fix from here on: the per-zone tests need not check whose it is.
    motionCache = MotionCache()
    return ConditionContext(
      fixSpeed: fix.speed, fixCourse: fix.course, previous: previous, coordinate: coordinate,
      time: fix.time, device: Int32(d))
  }

  /// Whether the zone in slot `zone`, whose gate is `gate`, counts for the current fix: not
  /// dormant, and its conditions (if any) passed.
  @inline(__always)
  mutating func zoneCounts(_ zone: Int32, gate: ZoneGate, _ context: ConditionContext?) -> Bool {
    if gate.isEmpty { return true }
    if gate.contains(.dormant) { return false }
    guard let context else { return true }
    return passesConditions(zone, context)
  }

  /// Whether the current fix passes the conditions of the zone in slot `zone` (true for a zone
  /// without any), read from their flat table: no reference counting on the per-fix path.
  @inline(__always)
  mutating func passesConditions(_ zone: Int32, _ context: ConditionContext) -> Bool {
    let (usesSpeed, minimum, maximum, usesCourse, usesTags) = conditionCores
      .withUnsafeBufferPointer { cores in
        guard Int(zone) < cores.count else { return (false, 0.0, 0.0, false, false) }
        let core = cores[Int(zone)]
        return (core.usesSpeed, core.minimumSpeed, core.maximumSpeed, core.usesCourse, core.usesTags)
      }
    if usesSpeed {
      guard let speed = speed(context), speed >= minimum, speed <= maximum else { return false }
    }
    if usesCourse {
      guard let course = course(context), conditionCores[Int(zone)].band.contains(course) else {
        return false
      }
    }
    if usesTags, let tags = zoneConditions[zone]?.deviceTags {
      return tags.admits(deviceTags[context.device] ?? [])
    }
    return true
  }

  /// The fix's speed (see ``ConditionContext``), derived at most once per fix: a device inside
  /// several conditioned zones, or checked against each of its records, pays for it once (the
  /// cache is emptied when the fix's context is made).
  @inline(__always)
  mutating func speed(_ context: ConditionContext) -> Double? {
    if let speed = context.fixSpeed { return speed }
    if !motionCache.hasSpeed {
      motionCache.speed = context.derivedSpeed
      motionCache.hasSpeed = true
    }
    return motionCache.speed
  }

  /// The fix's course, derived at most once per fix (and only when a condition asks: the
  /// arctangent is not paid for speed conditions).
  @inline(__always)
  mutating func course(_ context: ConditionContext) -> Double? {
    if let course = context.fixCourse { return course }
    if !motionCache.hasCourse {
      motionCache.course = context.derivedCourse
      motionCache.hasCourse = true
    }
    return motionCache.course
  }

  /// The fix's speed and course, each derived at most once per fix.
  mutating func motion(_ context: ConditionContext) -> FixMotion {
    FixMotion(speed: speed(context), course: course(context))
  }

  /// Resets the records' marks for a new fix (``ZoneRecord/resetMarks()``) and marks those of
  /// zones whose conditions the fix fails as hidden (they see nothing of it), in one pass.
  mutating func hideRecordsFailingConditions(_ records: inout [ZoneRecord], _ context: ConditionContext) {
    records.withUnsafeMutableBufferPointer { records in
      for r in records.indices {
        records[r].resetMarks()
        let zone = records[r].zone
        let gate = zoneCores[Int(zone)].gate
        records[r].isHiddenNow = !gate.isEmpty && !zoneCounts(zone, gate: gate, context)
      }
    }
  }

  /// The speed and course an event of the zone in slot `zone` carries: those its conditions were
  /// judged on when it has speed or course conditions, else the fix's own.
  mutating func eventMotion(
    zone: Int32, fix: FixReading, _ context: ConditionContext?
  ) -> (speed: Double?, course: Double?) {
    if let context, Int(zone) < conditionCores.count,
      conditionCores[Int(zone)].usesSpeed || conditionCores[Int(zone)].usesCourse
    {
      let known = motion(context)
      return (known.speed, known.course)
    }
    return (fix.speed, fix.course)
  }
}

/// The derived speed and course of the fix being evaluated (emptied when its
/// ``ConditionContext`` is made).
struct MotionCache {
  var hasSpeed = false
  var hasCourse = false
  var speed: Double?
  var course: Double?
}

/// A zone's speed and course conditions as the per-fix test reads them, in a flat table by zone
/// slot (`conditionCores`): a trivial value, so that reading it costs no reference counting.
/// Tag conditions stay in the zone's ``ZoneConditions`` (`usesTags` says when to look).
struct ConditionCore {
  var minimumSpeed = -Double.infinity
  var maximumSpeed = Double.infinity
  var band = ZoneConditions.CourseBand(from: 0, to: 360)
  var usesSpeed = false
  var usesCourse = false
  var usesTags = false

  init() {}

  init(_ conditions: ZoneConditions) {
    usesSpeed = conditions.usesSpeed
    minimumSpeed = conditions.minimumSpeed ?? -.infinity
    maximumSpeed = conditions.maximumSpeed ?? .infinity
    if let course = conditions.course {
      usesCourse = true
      band = course
    }
    usesTags = conditions.deviceTags != nil
  }
}
