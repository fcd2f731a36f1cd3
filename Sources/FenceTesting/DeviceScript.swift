/// The scripted movement of one device: where it is, how it moves and what it reports, as a
/// chain of steps that each emit fixes.
///
/// The script keeps a cursor, the device's position and time after the last step. Every step
/// starts from the cursor and leaves it at its last fix; times are exact (whole microseconds),
/// positions on straight paths are interpolated linearly in latitude and longitude.
///
/// ```swift
/// let truck = DeviceScript("truck")           // one fix a second unless a step says otherwise
///   .start(at: yard, "10:00:00")               // a fix at the yard at 10:00:00
///   .move(to: depot, speed: 10, every: 5)      // drive at 10 m/s, a fix every 5 s and on arrival
///   .stay(for: 600, every: 60)                 // wait there 10 minutes, a fix a minute
///   .move(to: yard, speed: 10)                 // drive back, a fix a second
/// ```
///
/// Steps that cannot be followed (a movement before the first position, a speed of 0) are
/// reported by ``fixes(on:)`` and ``Scenario/run(until:)`` as a ``ScenarioError`` naming the
/// device and the step.
public struct DeviceScript: Sendable {
  /// Which side of a line a crossing starts from ("left" when walking the line from its first
  /// vertex to its last).
  public enum Side: String, Hashable, Sendable {
    case left, right
  }

  /// The device every fix of the script belongs to.
  public let device: String
  /// Seconds between fixes of steps that do not say otherwise.
  public let interval: Double
  var steps: [Step] = []

  /// An empty script for `device`, whose steps emit a fix every `interval` seconds unless they
  /// say otherwise.
  public init(_ device: String, every interval: Double = 1) {
    self.device = device
    self.interval = interval
  }

  // MARK: - Positions

  /// A fix at `position` at `time`: where the device's story begins.
  public func start(
    at position: Coordinate, _ time: ScenarioTime, accuracy: Double? = nil
  ) -> DeviceScript {
    fix(at: position, time, accuracy: accuracy)
  }

  /// One fix at `position` at `time` (a jump: no fixes in between).
  public func fix(
    at position: Coordinate, _ time: ScenarioTime, accuracy: Double? = nil, speed: Double? = nil,
    course: Double? = nil
  ) -> DeviceScript {
    appending(
      .fix(position, .at(time), accuracy: accuracy, speed: speed, course: course))
  }

  /// One fix at `position`, `seconds` after the cursor's time (a jump: no fixes in between).
  public func fix(
    at position: Coordinate, after seconds: Double, accuracy: Double? = nil, speed: Double? = nil,
    course: Double? = nil
  ) -> DeviceScript {
    appending(
      .fix(position, .after(seconds), accuracy: accuracy, speed: speed, course: course))
  }

  // MARK: - Movements

  /// Moves in a straight line (in latitude and longitude) to `destination` at `speed` metres
  /// per second, with a fix every `step` seconds (default: the script's interval) and one on
  /// arrival.
  ///
  /// The trip takes the WGS84 distance divided by the speed. Fixes fall at the start time plus
  /// 1, 2, ... steps while that is before arrival, then at arrival (exactly at `destination`).
  /// Moving less than a millimetre (to where the device already is) emits nothing.
  public func move(to destination: Coordinate, speed: Double, every step: Double? = nil)
    -> DeviceScript
  {
    appending(.move(destination, speed: speed, every: step))
  }

  /// Stays where the device is for `duration` seconds, with a fix every `step` seconds (default:
  /// the script's interval) and one at the end.
  public func stay(for duration: Double, every step: Double? = nil) -> DeviceScript {
    appending(.stay(duration, every: step))
  }

  /// Lets `duration` seconds pass with no fix (a gap in the track); the device does not move.
  public func gap(_ duration: Double) -> DeviceScript {
    appending(.gap(duration))
  }

  /// Reports positions scattered at random within `radius` metres of `center` (default: where
  /// the device is) for `duration` seconds, a fix every `step` seconds (default: the script's
  /// interval) and one at the end, as a parked phone or a GPS near a wall does.
  ///
  /// Positions are uniform over the disc, drawn from a ``SplitMix64`` seeded with `seed`, so the
  /// same script gives the same fixes on every run. The cursor ends at the last jittered fix.
  public func jitter(
    radius: Double, for duration: Double, around center: Coordinate? = nil,
    every step: Double? = nil, seed: UInt64 = 1
  ) -> DeviceScript {
    appending(.jitter(radius: radius, duration: duration, center: center, every: step, seed: seed))
  }

  /// Crosses a line: moves to the point `offset` metres on the `side` side of the line, beside
  /// the point at `fraction` of segment `segment` (0 is the first vertex to the second), then
  /// straight across to `offset` metres on the other side, both at `speed` metres per second
  /// with a fix every `step` seconds.
  ///
  /// The crossing movement is perpendicular to the segment (in local metres) and symmetric
  /// about it, so the device is on the line halfway through it. The approach from where the
  /// device is to the starting side is a plain ``move(to:speed:every:)``: place the device so
  /// that the approach does not cross the line itself.
  public func cross(
    _ line: Polyline, segment: Int = 0, at fraction: Double = 0.5, from side: Side = .left,
    offset: Double = 20, speed: Double, every step: Double? = nil
  ) -> DeviceScript {
    appending(
      .cross(
        CrossingPlan(
          vertices: line.vertices, segment: segment, fraction: fraction, side: side,
          offset: offset, speed: speed, step: step)))
  }

  /// Crosses a GEOLINE (see ``cross(_:segment:at:from:offset:speed:every:)-(Polyline,_,_,_,_,_,_)``).
  public func cross(
    _ geoline: Geoline, segment: Int = 0, at fraction: Double = 0.5, from side: Side = .left,
    offset: Double = 20, speed: Double, every step: Double? = nil
  ) -> DeviceScript {
    cross(
      geoline.line, segment: segment, at: fraction, from: side, offset: offset, speed: speed,
      every: step)
  }

  // MARK: - Fixes the engine must reject

  /// A fix exactly as given, which may be invalid (NaN, out of range, any accuracy).
  ///
  /// Its time moves the cursor's time forward when later; the cursor's position does not change.
  public func rawFix(
    latitude: Double, longitude: Double, _ time: ScenarioTime, accuracy: Double? = nil
  ) -> DeviceScript {
    appending(.raw(latitude: latitude, longitude: longitude, .at(time), accuracy: accuracy))
  }

  /// A fix whose latitude is NaN, `seconds` (default: the script's interval) after the cursor.
  public func invalidFix(after seconds: Double? = nil) -> DeviceScript {
    appending(.raw(latitude: .nan, longitude: 0, .after(seconds), accuracy: nil))
  }

  /// A fix at latitude 0, longitude 0 exactly, `seconds` (default: the script's interval) after
  /// the cursor.
  public func nullIslandFix(after seconds: Double? = nil) -> DeviceScript {
    appending(.raw(latitude: 0, longitude: 0, .after(seconds), accuracy: nil))
  }

  /// A fix with `accuracy` metres, `seconds` (default: the script's interval) after the cursor.
  ///
  /// The fix is at `position` (default: where the device is); the cursor's position does not
  /// change.
  public func lowAccuracyFix(
    _ accuracy: Double, at position: Coordinate? = nil, after seconds: Double? = nil
  ) -> DeviceScript {
    appending(.lowAccuracy(accuracy, position, .after(seconds)))
  }

  /// A fix at the same time as the script's last fix.
  ///
  /// The fix is at `position` (default: the last fix's); the cursor does not change.
  public func duplicateFix(at position: Coordinate? = nil) -> DeviceScript {
    appending(.repeated(earlierBy: 0, position))
  }

  /// A fix `seconds` earlier than the script's last fix.
  ///
  /// The fix is at `position` (default: the last fix's); the cursor does not change.
  public func outOfOrderFix(by seconds: Double, at position: Coordinate? = nil) -> DeviceScript {
    appending(.repeated(earlierBy: seconds, position))
  }

  private func appending(_ step: Step) -> DeviceScript {
    var copy = self
    copy.steps.append(step)
    return copy
  }
}

extension DeviceScript {
  /// When a single fix happens.
  enum FixTime: Sendable {
    case at(ScenarioTime)
    /// Seconds after the cursor; `nil` means the script's interval.
    case after(Double?)
  }

  /// A crossing of segment `segment` of a polyline.
  struct CrossingPlan: Sendable {
    var vertices: [Coordinate]
    var segment: Int
    var fraction: Double
    var side: Side
    var offset: Double
    var speed: Double
    var step: Double?
  }

  /// One step of a script, as written.
  enum Step: Sendable {
    case fix(Coordinate, FixTime, accuracy: Double?, speed: Double?, course: Double?)
    case move(Coordinate, speed: Double, every: Double?)
    case stay(Double, every: Double?)
    case gap(Double)
    case jitter(radius: Double, duration: Double, center: Coordinate?, every: Double?, seed: UInt64)
    case cross(CrossingPlan)
    case raw(latitude: Double, longitude: Double, FixTime, accuracy: Double?)
    case lowAccuracy(Double, Coordinate?, FixTime)
    case repeated(earlierBy: Double, Coordinate?)
  }
}
