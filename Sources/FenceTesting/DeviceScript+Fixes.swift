#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension DeviceScript {
  /// The fixes the script emits, in script order, with times resolved by `clock`.
  ///
  /// Script order is time order except where a step says otherwise (``outOfOrderFix(by:at:)``,
  /// ``rawFix(latitude:longitude:_:accuracy:)`` with an earlier time).
  ///
  /// - Throws: ``ScenarioError`` naming the device and the step that cannot be followed.
  public func fixes(on clock: ScenarioClock) throws -> [LocationFix] {
    var builder = FixBuilder(device: device, interval: interval)
    for (index, step) in steps.enumerated() {
      do {
        try builder.follow(step, clock: clock)
      } catch let error as ScenarioError {
        throw ScenarioError(device: device, step: index, fault: error.fault)
      }
    }
    return builder.fixes
  }
}

/// Follows a script's steps, keeping the cursor and the fixes so far.
private struct FixBuilder {
  let device: String
  let interval: Double
  var fixes: [LocationFix] = []
  var position: Coordinate?
  var time: Timestamp?

  init(device: String, interval: Double) {
    self.device = device
    self.interval = interval
  }

  mutating func follow(_ step: DeviceScript.Step, clock: ScenarioClock) throws {
    switch step {
    case .fix(let coordinate, let when, let accuracy, let speed, let course):
      let t = try resolve(when, clock: clock)
      emit(coordinate, at: t, accuracy: accuracy, speed: speed, course: course)
      position = coordinate
      time = t
    case .move(let destination, let speed, let every):
      try move(to: destination, speed: speed, every: every)
    case .stay(let duration, let every):
      let (start, t0) = try cursor()
      for offset in try sampleOffsets(duration: duration, every: every) {
        emit(start, at: t0.plusMicroseconds(offset))
      }
      time = t0.plusMicroseconds(try microseconds(duration: duration))
    case .gap(let duration):
      let (_, t0) = try cursor()
      time = t0.plusMicroseconds(try microseconds(duration: duration))
    case .jitter(let radius, let duration, let center, let every, let seed):
      try jitter(radius: radius, duration: duration, center: center, every: every, seed: seed)
    case .cross(let plan):
      try cross(plan)
    case .raw(let latitude, let longitude, let when, let accuracy):
      let t = try resolve(when, clock: clock)
      fixes.append(
        LocationFix(
          device: device, time: t, latitude: latitude, longitude: longitude, accuracy: accuracy))
      if time.map({ t > $0 }) ?? true { time = t }
    case .lowAccuracy(let accuracy, let coordinate, let when):
      let t = try resolve(when, clock: clock)
      let (here, _) = try cursor()
      emit(coordinate ?? here, at: t, accuracy: accuracy)
      if time.map({ t > $0 }) ?? true { time = t }
    case .repeated(let earlierBy, let coordinate):
      guard let last = fixes.last else { throw ScenarioError(fault: .nothingToRepeat) }
      let t = last.time.plusMicroseconds(-(try microseconds(duration: earlierBy)))
      var fix = last
      fix.time = t
      fix.accuracy = nil
      if let coordinate {
        fix.latitude = coordinate.latitude
        fix.longitude = coordinate.longitude
      }
      fixes.append(fix)
    }
  }

  // MARK: - Steps

  mutating func move(to destination: Coordinate, speed: Double, every: Double?) throws {
    guard speed.isFinite, speed > 0 else { throw ScenarioError(fault: .invalidSpeed(speed)) }
    let (start, t0) = try cursor()
    let metres = WGS84.distance(start, destination)
    guard metres >= 0.001 else {
      position = destination
      return
    }
    let duration = max(1, Int64((metres / speed * 1_000_000).rounded()))
    let offsets = try sampleOffsets(durationMicroseconds: duration, every: every)
    for offset in offsets.dropLast() {
      let fraction = Double(offset) / Double(duration)
      emit(Self.interpolate(start, destination, fraction), at: t0.plusMicroseconds(offset))
    }
    emit(destination, at: t0.plusMicroseconds(duration))
    position = destination
    time = t0.plusMicroseconds(duration)
  }

  mutating func jitter(
    radius: Double, duration: Double, center: Coordinate?, every: Double?, seed: UInt64
  ) throws {
    guard radius.isFinite, radius > 0 else { throw ScenarioError(fault: .invalidDistance(radius)) }
    let (here, t0) = try cursor()
    let middle = center ?? here
    var random = SplitMix64(seed: seed)
    var last = here
    for offset in try sampleOffsets(duration: duration, every: every) {
      let distance = radius * random.nextUnit().squareRoot()
      let angle = 2 * Double.pi * random.nextUnit()
      last = middle.moved(north: distance * cos(angle), east: distance * sin(angle))
      emit(last, at: t0.plusMicroseconds(offset))
    }
    position = last
    time = t0.plusMicroseconds(try microseconds(duration: duration))
  }

  mutating func cross(_ plan: DeviceScript.CrossingPlan) throws {
    let vertices = plan.vertices
    guard plan.segment >= 0, plan.segment + 1 < vertices.count else {
      throw ScenarioError(
        fault: .invalidCrossing(
          "segment \(plan.segment) does not exist: the line has \(max(0, vertices.count - 1)) "
            + "segments, numbered from 0"))
    }
    guard plan.fraction.isFinite, (0...1).contains(plan.fraction) else {
      throw ScenarioError(
        fault: .invalidCrossing(
          "the fraction along the segment must be in [0, 1], got \(plan.fraction)"))
    }
    guard plan.offset.isFinite, plan.offset > 0 else {
      throw ScenarioError(fault: .invalidDistance(plan.offset))
    }
    let a = vertices[plan.segment]
    let b = vertices[plan.segment + 1]
    let onLine = Self.interpolate(a, b, plan.fraction)
    // The segment's direction in local metres (east, north); its left normal is (-north, east).
    let radians = Double.pi / 180
    let east =
      Self.longitudeDifference(a, b) * radians
      * WGS84.primeVerticalRadius(latitude: onLine.latitude) * cos(onLine.latitude * radians)
    let north =
      (b.latitude - a.latitude) * radians
      * WGS84.meridionalRadius(latitude: onLine.latitude)
    let length = (east * east + north * north).squareRoot()
    guard length > 0 else {
      throw ScenarioError(fault: .invalidCrossing("segment \(plan.segment) has no length"))
    }
    let sign: Double = plan.side == .left ? 1 : -1
    let leftEast = -north / length * plan.offset * sign
    let leftNorth = east / length * plan.offset * sign
    let from = onLine.moved(north: leftNorth, east: leftEast)
    let to = onLine.moved(north: -leftNorth, east: -leftEast)
    try move(to: from, speed: plan.speed, every: plan.step)
    try move(to: to, speed: plan.speed, every: plan.step)
  }

  // MARK: - Cursor, times, positions

  func cursor() throws -> (Coordinate, Timestamp) {
    guard let position, let time else { throw ScenarioError(fault: .noStartingPoint) }
    return (position, time)
  }

  func resolve(_ when: DeviceScript.FixTime, clock: ScenarioClock) throws -> Timestamp {
    switch when {
    case .at(let time):
      return try clock.timestamp(time)
    case .after(let seconds):
      guard let time else { throw ScenarioError(fault: .noStartingPoint) }
      return time.plusMicroseconds(try microseconds(duration: seconds ?? interval))
    }
  }

  func microseconds(duration: Double) throws -> Int64 {
    guard duration.isFinite, duration >= 0, duration < 1e12 else {
      throw ScenarioError(fault: .invalidDuration(duration))
    }
    return Int64((duration * 1_000_000).rounded())
  }

  /// Offsets in microseconds of the fixes of a timed step.
  ///
  /// One every step while before the end, then the end itself. Empty for a zero duration.
  func sampleOffsets(duration: Double, every: Double?) throws -> [Int64] {
    try sampleOffsets(durationMicroseconds: try microseconds(duration: duration), every: every)
  }

  func sampleOffsets(durationMicroseconds duration: Int64, every: Double?) throws -> [Int64] {
    let seconds = every ?? interval
    guard seconds.isFinite, seconds > 0, seconds < 1e9 else {
      throw ScenarioError(fault: .invalidInterval(seconds))
    }
    let step = max(1, Int64((seconds * 1_000_000).rounded()))
    guard duration > 0 else { return [] }
    var offsets: [Int64] = []
    var offset = step
    while offset < duration {
      offsets.append(offset)
      offset += step
    }
    offsets.append(duration)
    return offsets
  }

  mutating func emit(
    _ coordinate: Coordinate, at time: Timestamp, accuracy: Double? = nil, speed: Double? = nil,
    course: Double? = nil
  ) {
    fixes.append(
      LocationFix(
        device: device, time: time, latitude: coordinate.latitude,
        longitude: coordinate.longitude, accuracy: accuracy, speed: speed, course: course))
  }

  /// The position at `fraction` of the straight (latitude, longitude) segment from `a` to `b`,
  /// taking the short way across the antimeridian.
  static func interpolate(_ a: Coordinate, _ b: Coordinate, _ fraction: Double) -> Coordinate {
    Coordinate(
      uncheckedLatitude: a.latitude + (b.latitude - a.latitude) * fraction,
      longitude: Coordinate.wrappedLongitude(a.longitude + longitudeDifference(a, b) * fraction))
  }

  /// Degrees east from `a` to `b`, in [-180, 180].
  static func longitudeDifference(_ a: Coordinate, _ b: Coordinate) -> Double {
    var difference = b.longitude - a.longitude
    if difference > 180 { difference -= 360 } else if difference < -180 { difference += 360 }
    return difference
  }
}

extension Timestamp {
  func plusMicroseconds(_ microseconds: Int64) -> Timestamp {
    Timestamp(microsecondsSinceEpoch: microsecondsSinceEpoch + microseconds)
  }
}
