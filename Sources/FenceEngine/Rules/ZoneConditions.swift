/// A zone's `conditions` (rules v2): a fix counts for the zone only when the device's speed,
/// course and tags pass them.
///
/// A fix that fails is *invisible* to the zone: it neither enters nor exits, counts toward no
/// exit confirmation or hysteresis, and does not end a dwell; the zone's state waits for the
/// next fix that passes (see `Docs/Rules.md`, "Conditions").
///
/// Speed and course are the fix's own when it has them, else derived from the device's
/// previous accepted fix (``FixMotion``); a device's first fix without them fails any speed or
/// course condition.
public struct ZoneConditions: Hashable, Sendable {
  /// Metres per second; the speed must be at least this (`minSpeed`).
  public var minimumSpeed: Double?
  /// Metres per second; the speed must be at most this (`maxSpeed`).
  public var maximumSpeed: Double?
  /// The band the course must lie in (`course`).
  public var course: CourseBand?
  /// The tags the device must (`any`) and must not (`none`) carry (`deviceTags`).
  public var deviceTags: TagCondition?

  /// Conditions; `nil` members do not constrain.
  public init(
    minimumSpeed: Double? = nil, maximumSpeed: Double? = nil, course: CourseBand? = nil,
    deviceTags: TagCondition? = nil
  ) {
    self.minimumSpeed = minimumSpeed
    self.maximumSpeed = maximumSpeed
    self.course = course
    self.deviceTags = deviceTags
  }

  /// Whether the conditions need the fix's speed.
  public var usesSpeed: Bool { minimumSpeed != nil || maximumSpeed != nil }
  /// Whether the conditions need the fix's speed or course (events of such a zone carry the
  /// values used, derived or not).
  public var usesMotion: Bool { usesSpeed || course != nil }

  /// Whether a fix with `motion`, of a device carrying `tags` (sorted, unique), passes.
  public func admits(_ motion: FixMotion, tags: [String]) -> Bool {
    admits(speed: { motion.speed }, course: { motion.course }, tags: { tags })
  }

  /// ``admits(_:tags:)`` asking for each value only when a condition needs it (the engine
  /// derives speed and course with trigonometry, and looks tags up by device).
  @inline(__always)
  func admits(
    speed: () -> Double?, course: () -> Double?, tags: () -> [String]
  ) -> Bool {
    if usesSpeed {
      guard let speed = speed() else { return false }
      if let minimumSpeed, !(speed >= minimumSpeed) { return false }
      if let maximumSpeed, !(speed <= maximumSpeed) { return false }
    }
    if let band = self.course {
      guard let value = course(), band.contains(value) else { return false }
    }
    if let deviceTags, !deviceTags.admits(tags()) { return false }
    return true
  }

  /// A band of courses, degrees clockwise from true north, from `from` clockwise to `to`, both
  /// included; it wraps through north when `to` < `from` (300 to 60 holds 330 and 10).
  public struct CourseBand: Hashable, Sendable {
    /// Degrees, 0 to 360.
    public var from: Double
    /// Degrees, 0 to 360.
    public var to: Double

    public init(from: Double, to: Double) {
      self.from = from
      self.to = to
    }

    /// Whether the band holds `course` (any finite number of degrees, taken modulo 360).
    public func contains(_ course: Double) -> Bool {
      guard course.isFinite else { return false }
      var c = course.truncatingRemainder(dividingBy: 360)
      if c < 0 { c += 360 }
      if from <= to { return (from <= c && c <= to) || (to == 360 && c == 0) }
      return c >= from || c <= to
    }
  }

  /// Device tags a zone requires or excludes.
  public struct TagCondition: Hashable, Sendable {
    /// The device must carry at least one of these (no constraint when empty).
    public var any: [String]
    /// The device must carry none of these.
    public var none: [String]

    public init(any: [String] = [], none: [String] = []) {
      self.any = any
      self.none = none
    }

    /// Whether a device with `tags` (sorted, unique) passes.
    public func admits(_ tags: [String]) -> Bool {
      if !any.isEmpty, !any.contains(where: { sortedContains(tags, $0) }) { return false }
      return !none.contains(where: { sortedContains(tags, $0) })
    }
  }
}

/// The speed and course a fix's conditions are judged on: the fix's own, else derived from the
/// device's previous accepted fix.
public struct FixMotion: Hashable, Sendable {
  /// Metres per second; `nil` when the fix has none and there is no previous fix.
  public var speed: Double?
  /// Degrees clockwise from true north; `nil` when the fix has none and there is no previous
  /// fix or the device did not move.
  public var course: Double?

  public init(speed: Double?, course: Double?) {
    self.speed = speed
    self.course = course
  }
}
