import FenceTesting
import Testing

/// Exit hysteresis and exit confirmations, under 1 Hz jitter around a fence's edge: the spec's
/// cures for a device that flickers in and out.
@Suite struct ExitRuleTests {
  /// 200 m north of the depot, outside its 100 m fence.
  let outside = depot.moved(north: 200)

  /// Metres from the depot of each fix.
  func distances(_ fixes: [LocationFix]) -> [Double] {
    fixes.map {
      WGS84.distance(depot, Coordinate(uncheckedLatitude: $0.latitude, longitude: $0.longitude))
    }
  }

  /// The longest run of consecutive fixes outside the 100 m fence.
  func longestRunOutside(_ fixes: [LocationFix]) -> Int {
    var longest = 0
    var run = 0
    for d in distances(fixes) {
      run = d > 100 ? run + 1 : 0
      longest = max(longest, run)
    }
    return longest
  }

  /// In at 10:00:10, two minutes of jitter around `center` (10:00:11 to 10:02:10), back to 95 m
  /// at 10:02:11, then out at `speed` m/s to 300 m.
  func edgeJitter(around center: Coordinate, radius: Double, speed: Double, seed: UInt64)
    -> DeviceScript
  {
    DeviceScript("phone")
      .start(at: outside, "10:00:00")
      .fix(at: depot.moved(north: 95), "10:00:10")
      .jitter(radius: radius, for: 120, around: center, seed: seed)
      .fix(at: depot.moved(north: 95), after: 1)
      .move(to: depot.moved(north: 300), speed: speed)
  }

  @Test func exitHysteresisKeepsAJitteringDeviceCheckedIn() throws {
    // Jitter of 15 m around the edge: up to 15 m outside, within the 20 m hysteresis.
    let script = edgeJitter(around: depot.moved(north: 100), radius: 15, speed: 7, seed: 7)
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle("depot", center: depot, radius: 100, rules: .init(exitHysteresis: 20)))
    scenario.add(script)
    let result = try scenario.run()

    // The jitter really does leave the fence, many times.
    let jitter = Array(result.fixes[2..<122])
    #expect(distances(jitter).filter { $0 > 100 }.count >= 30)
    // Out at 7 m/s from 95 m: 102, 109, 116 (within hysteresis), 123 m at 10:02:15.
    result.expectEvents([
      .checkIn("depot", at: "10:00:10"),
      .checkOut("depot", at: "10:02:15", duration: 125),
    ])

    // Without hysteresis the same track flickers: the rule is what keeps it quiet.
    scenario.zones = [try .circle("depot", center: depot, radius: 100)]
    #expect(try scenario.run().events.filter { $0.kind == .checkIn }.count > 10)
  }

  @Test func exitConfirmationsKeepAJitteringDeviceCheckedInAndStampTheFirstFixOutside() throws {
    // Jitter of 10 m around 95 m: now and then outside, never 5 fixes in a row.
    let script = edgeJitter(around: depot.moved(north: 95), radius: 10, speed: 10, seed: 3)
    var scenario = Scenario(day: testDay)
    scenario.add(
      try .circle("depot", center: depot, radius: 100, rules: .init(exitConfirmations: 5)))
    scenario.add(script)
    let result = try scenario.run()

    let jitter = Array(result.fixes[2..<122])
    #expect(distances(jitter).filter { $0 > 100 }.count >= 10)
    #expect(longestRunOutside(jitter) < 5)
    // Out at 10 m/s from 95 m: 105 m at 10:02:12 is the first of five fixes outside.
    result.expectEvents([
      .checkIn("depot", at: "10:00:10"),
      .checkOut("depot", at: "10:02:12", duration: 122),
    ])

    scenario.zones = [try .circle("depot", center: depot, radius: 100)]
    #expect(try scenario.run().events.filter { $0.kind == .checkIn }.count > 5)
  }
}
