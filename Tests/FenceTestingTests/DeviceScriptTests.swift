import FenceTesting
import Testing

@Suite struct DeviceScriptTests {
  /// (seconds after 10:00:00, latitude, longitude) of each fix.
  func timeline(_ script: DeviceScript) throws -> [(Double, Double, Double)] {
    let start = try at("10:00:00")
    return try script.fixes(on: testClock()).map {
      ($0.time.seconds(since: start), $0.latitude, $0.longitude)
    }
  }

  @Test func startAndFixesAreSingleFixesAtTheirTimes() throws {
    let east = depot.moved(east: 50)
    let fixes = try DeviceScript("truck")
      .start(at: depot, "10:00:00")
      .fix(at: east, "10:00:30", accuracy: 5, speed: 2, course: 90)
      .fix(at: depot, after: 15)
      .fixes(on: testClock())
    #expect(
      fixes == [
        LocationFix(device: "truck", time: try at("10:00:00"), latitude: 51.9, longitude: 4.4),
        LocationFix(
          device: "truck", time: try at("10:00:30"), latitude: east.latitude,
          longitude: east.longitude, accuracy: 5, speed: 2, course: 90),
        LocationFix(device: "truck", time: try at("10:00:45"), latitude: 51.9, longitude: 4.4),
      ])
  }

  @Test func aMoveEmitsAFixEveryStepAlongTheStraightPathAndOneOnArrival() throws {
    let destination = depot.moved(north: 25, east: 10)
    let seconds = WGS84.distance(depot, destination) / 10  // 10 m/s
    let steps = try timeline(
      DeviceScript("truck").start(at: depot, "10:00:00").move(to: destination, speed: 10))
    let arrival = (seconds * 1e6).rounded() / 1e6
    func lerp(_ t: Double) -> (Double, Double) {
      let f = t / arrival
      return (51.9 + (destination.latitude - 51.9) * f, 4.4 + (destination.longitude - 4.4) * f)
    }
    #expect(seconds > 2.69 && seconds < 2.70)  // sqrt(25² + 10²) / 10 = 2.6926
    #expect(steps.count == 4)
    #expect(steps.map(\.0) == [0, 1, 2, arrival])
    #expect(steps[1].1 == lerp(1).0 && steps[1].2 == lerp(1).1)
    #expect(steps[2].1 == lerp(2).0 && steps[2].2 == lerp(2).1)
    #expect(steps[3].1 == destination.latitude && steps[3].2 == destination.longitude)
  }

  @Test func aMoveToWhereTheDeviceIsEmitsNothing() throws {
    let steps = try timeline(
      DeviceScript("truck").start(at: depot, "10:00:00").move(to: depot, speed: 3))
    #expect(steps.map(\.0) == [0])
  }

  @Test func aStayEmitsAFixEveryStepAndOneAtTheEnd() throws {
    let steps = try timeline(
      DeviceScript("truck", every: 60).start(at: depot, "10:00:00").stay(for: 150)
        .stay(for: 20, every: 10))
    #expect(steps.map(\.0) == [0, 60, 120, 150, 160, 170])
    #expect(steps.allSatisfy { $0.1 == 51.9 && $0.2 == 4.4 })
  }

  @Test func aGapLetsTimePassWithoutFixes() throws {
    let steps = try timeline(
      DeviceScript("truck").start(at: depot, "10:00:00").gap(300).stay(for: 2))
    #expect(steps.map(\.0) == [0, 301, 302])
  }

  @Test func jitterIsSeededUniformWithinTheRadiusAndEndsTheCursorAtItsLastFix() throws {
    let script = DeviceScript("phone").start(at: depot, "10:00:00").jitter(
      radius: 15, for: 60, seed: 42)
    let first = try script.fixes(on: testClock())
    let again = try script.fixes(on: testClock())
    let other = try DeviceScript("phone").start(at: depot, "10:00:00")
      .jitter(radius: 15, for: 60, seed: 43).fixes(on: testClock())
    #expect(first == again)
    #expect(first != other)
    #expect(first.count == 61)
    let distances = first.dropFirst().map {
      WGS84.distance(depot, Coordinate(uncheckedLatitude: $0.latitude, longitude: $0.longitude))
    }
    #expect(distances.allSatisfy { $0 <= 15.001 })
    // Uniform over the disc: about a quarter of the points within half the radius.
    let near = distances.filter { $0 <= 7.5 }.count
    #expect(near >= 5 && near <= 25)
    // The next step starts from the last jittered fix.
    let after = try script.stay(for: 1).fixes(on: testClock())
    #expect(after.last?.latitude == first.last?.latitude)
    #expect(after.last?.time == (try at("10:01:01")))
  }

  @Test func aCrossingApproachesTheStartingSideThenGoesStraightAcrossThePoint() throws {
    // A line running north through the depot: its left is the west.
    let line = try Polyline([depot.moved(north: -100), depot.moved(north: 100)])
    let fixes = try DeviceScript("walker", every: 5)
      .start(at: depot.moved(east: -20), "10:00:00")
      .cross(line, from: .left, offset: 20, speed: 2)
      .fixes(on: testClock())
    // Already on the left side 20 m out: no approach; 40 m across at 2 m/s, a fix every 5 s.
    #expect(try fixes.map { $0.time.seconds(since: try at("10:00:00")) } == [0, 5, 10, 15, 20])
    let eastward = fixes.map { ($0.longitude - 4.4) * 1e6 }
    #expect(eastward[0] < -250 && eastward[4] > 250)
    #expect(abs(eastward[2]) < 1e-6)  // on the line halfway through
    #expect(
      abs(
        WGS84.distance(
          depot, Coordinate(uncheckedLatitude: fixes[4].latitude, longitude: fixes[4].longitude))
          - 20) < 0.01)
  }

  @Test func badFixesKeepTheCursorAndRepeatOrPrecedeTheLastFix() throws {
    let inside = depot.moved(north: 10)
    let fixes = try DeviceScript("phone")
      .start(at: depot, "10:00:00")
      .duplicateFix(at: inside)
      .outOfOrderFix(by: 30)
      .invalidFix()
      .nullIslandFix(after: 2)
      .lowAccuracyFix(500, at: inside)
      .rawFix(latitude: 91, longitude: 4.4, "10:00:10", accuracy: 3)
      .stay(for: 1)
      .fixes(on: testClock())
    #expect(fixes.count == 8)
    #expect(fixes[1].time == (try at("10:00:00")) && fixes[1].latitude == inside.latitude)
    #expect(fixes[2].time == (try at("09:59:30")) && fixes[2].latitude == inside.latitude)
    #expect(fixes[3].time == (try at("10:00:01")) && fixes[3].latitude.isNaN)
    #expect(
      fixes[4].time == (try at("10:00:03")) && fixes[4].latitude == 0 && fixes[4].longitude == 0)
    #expect(fixes[5].time == (try at("10:00:04")) && fixes[5].accuracy == 500)
    #expect(
      fixes[6].time == (try at("10:00:10")) && fixes[6].latitude == 91 && fixes[6].accuracy == 3)
    // The device itself never left the depot.
    #expect(fixes[7].time == (try at("10:00:11")) && fixes[7].latitude == 51.9)
  }

  @Test func aStepThatCannotBeFollowedNamesTheDeviceAndTheStep() throws {
    let noStart = DeviceScript("truck").move(to: depot, speed: 10)
    #expect(throws: ScenarioError(device: "truck", step: 0, fault: .noStartingPoint)) {
      try noStart.fixes(on: testClock())
    }
    let stopped = DeviceScript("truck").start(at: depot, "10:00:00").move(
      to: depot.moved(north: 5), speed: 0)
    #expect(throws: ScenarioError(device: "truck", step: 1, fault: .invalidSpeed(0))) {
      try stopped.fixes(on: testClock())
    }
    #expect(
      ScenarioError(device: "truck", step: 1, fault: .invalidSpeed(0)).description
        == "device \"truck\", step 2: speed must be a finite number of metres per second above 0, got 0.0"
    )
  }

  @Test func scriptsAreMergedByTimeKeepingEachScriptsOrderAndChangesFirstOnTies() throws {
    var scenario = Scenario(day: testDay)
    scenario.add(
      DeviceScript("a", every: 10).start(at: depot, "10:00:00").stay(for: 20).outOfOrderFix(by: 15))
    scenario.add(DeviceScript("b", every: 10).start(at: depot, "10:00:05").stay(for: 20))
    scenario.add(DeviceScript("c").start(at: depot, "10:00:10"))
    let feed = try scenario.feed().map { "\($0.device)@\(try testClock().label($0.time))" }
    #expect(
      feed == [
        "a@10:00:00", "b@10:00:05", "a@10:00:10", "c@10:00:10", "b@10:00:15", "a@10:00:20",
        "a@10:00:05", "b@10:00:25",
      ])
  }
}
