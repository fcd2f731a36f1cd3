@testable import FenceEngine
import FenceGeometry
import Testing

/// One GEOLINE case: a movement across a line drawn west to east (left is north).
struct DirectionCase: CustomTestStringConvertible, Sendable {
  let name: String
  let filter: Geoline.DirectionFilter
  let fromNorth: Double
  let toNorth: Double
  let expected: [String]
  var testDescription: String { name }
}

@Suite struct GeolineTests {
  /// A zone with one GEOLINE from 1 km west of the origin to 1 km east of it.
  func eastWestLineZone(
    _ filter: Geoline.DirectionFilter = .both, rules: ZoneRules = .default
  ) throws -> Zone {
    Zone(id: "narrows", geolines: [try geoline("line", [(0, -1000), (0, 1000)], direction: filter)],
      rules: rules)
  }

  @Test(arguments: [
    DirectionCase(name: "northbound crosses right to left", filter: .both, fromNorth: -100,
      toNorth: 300, expected: ["2.5 checkIn a narrows/line geoline rightToLeft noCheckOut"]),
    DirectionCase(name: "southbound crosses left to right", filter: .both, fromNorth: 300,
      toNorth: -100, expected: ["7.5 checkIn a narrows/line geoline leftToRight noCheckOut"]),
    DirectionCase(name: "rightToLeft filter admits northbound", filter: .rightToLeft,
      fromNorth: -100, toNorth: 300,
      expected: ["2.5 checkIn a narrows/line geoline rightToLeft noCheckOut"]),
    DirectionCase(name: "rightToLeft filter ignores southbound", filter: .rightToLeft,
      fromNorth: 300, toNorth: -100, expected: []),
    DirectionCase(name: "leftToRight filter admits southbound", filter: .leftToRight,
      fromNorth: 300, toNorth: -100,
      expected: ["7.5 checkIn a narrows/line geoline leftToRight noCheckOut"]),
    DirectionCase(name: "leftToRight filter ignores northbound", filter: .leftToRight,
      fromNorth: -100, toNorth: 300, expected: []),
    DirectionCase(name: "a movement that stays on one side crosses nothing", filter: .both,
      fromNorth: 100, toNorth: 300, expected: []),
  ])
  func crossingsFollowTheDirectionFilter(_ c: DirectionCase) throws {
    var evaluator = try ZoneEvaluator(zones: [eastWestLineZone(c.filter)])
    #expect(run(&evaluator, [fix(0, north: c.fromNorth), fix(10, north: c.toNorth)]) == c.expected)
  }

  @Test func aGeolineCheckInIsStampedAtTheInterpolatedTimeAndCrossingPoint() throws {
    var evaluator = try ZoneEvaluator(zones: [eastWestLineZone()])
    var events: [ZoneEvent] = []
    evaluator.process(fix(0, north: -100, east: -100), into: &events)
    evaluator.process(fix(3, north: 200, east: 200, speed: 4, course: 45), into: &events)
    let event = try #require(events.first)
    #expect(events.count == 1)
    #expect(event.time == t(1))
    #expect(event.trigger == .geoline)
    #expect(event.direction == .rightToLeft)
    #expect(abs(event.latitude! - originLatitude) < 1e-12)
    #expect(abs(event.longitude! - originLongitude) < 1e-9)
    #expect(event.speed == 4)
    #expect(event.course == 45)
    #expect(event.willCheckOut == false)
    #expect(event.checkInTime == nil)
  }

  /// Up to `directGeolineLimit` GEOLINEs, a movement's candidates come from a scan of their
  /// boxes; past it, from the GEOLINE index. Parallel east-west lines 100 m apart, crossed by
  /// one northbound device: the same crossings, in path order, either way, and a line added
  /// between two fixes is seen by the next one.
  @Test func aFewGeolinesAreScannedAndManySearchedWithTheSameCrossings() throws {
    func zones(_ count: Int) throws -> [Zone] {
      try (0..<count).map { k in
        Zone(
          id: "line-\(k)",
          geolines: [
            try geoline("l\(k)", [(Double(100 * k), -500), (Double(100 * k) + 20, 500)])
          ])
      }
    }
    let walk = (0..<12).map { step in
      LocationFix(
        device: "a", time: t(Double(10 * step)),
        latitude: originLatitude + (Double(250 * step) - 60) / metresPerDegreeLatitude,
        longitude: originLongitude + Double(step) / metresPerDegreeLongitude)
    }
    let few = ZoneEvaluator.directGeolineLimit - 1
    var scanned = try ZoneEvaluator(zones: try zones(few))
    var searched = try ZoneEvaluator(zones: try zones(ZoneEvaluator.directGeolineLimit + 4))
    let fewEvents = run(&scanned, walk)
    let manyEvents = run(&searched, walk)
    // Each took the path it is meant to: the limit itself still scans, one more searches.
    #expect(scanned.listsGeolines)
    #expect(!searched.listsGeolines)
    var atLimit = try ZoneEvaluator(zones: try zones(ZoneEvaluator.directGeolineLimit))
    var pastLimit = try ZoneEvaluator(zones: try zones(ZoneEvaluator.directGeolineLimit + 1))
    #expect(run(&atLimit, walk).count == ZoneEvaluator.directGeolineLimit)
    #expect(run(&pastLimit, walk).count == ZoneEvaluator.directGeolineLimit + 1)
    #expect(atLimit.listsGeolines)
    #expect(!pastLimit.listsGeolines)
    // The walk runs 2,750 m north from 60 m south of line 0: every line is crossed once,
    // right to left.
    #expect(fewEvents.count == few)
    #expect(manyEvents.count == ZoneEvaluator.directGeolineLimit + 4)
    #expect(Array(manyEvents.prefix(few)) == fewEvents)
    // Line 0 rises to 10 m north where the device crosses it: 70 m of a 250 m step.
    #expect(fewEvents.first == "2.800224 checkIn a line-0/l0 geoline rightToLeft noCheckOut")

    var growing = try ZoneEvaluator(zones: try zones(1))
    var events = run(&growing, Array(walk.prefix(2)))
    try growing.add([
      Zone(id: "late", geolines: [try geoline("late", [(600, -500), (600, 500)])])
    ])
    events += run(&growing, Array(walk.dropFirst(2).prefix(2)))
    #expect(events.count == 2)
    #expect(events.last?.hasPrefix("3") == false)
    // 440 m north at 20 s, 690 m at 30 s: the line at 600 m is crossed at 26.4 s.
    #expect(events.last == "26.4 checkIn a late/late geoline rightToLeft noCheckOut")
    #expect(events.last?.contains("late/late geoline rightToLeft") == true)
  }

  /// Every change of the zone set makes the GEOLINE summary (the box of all GEOLINEs and the
  /// list of their boxes) for its zones at once, so that no fix pays for it; the zone clock's
  /// changes leave it to the next fix.
  @Test func eachZoneChangeMakesTheGeolineSummaryBeforeAnyFix() throws {
    /// An east-west line 1 km long, `north` metres north of the origin.
    func line(_ id: String, _ north: Double) throws -> Zone {
      Zone(id: id, geolines: [try geoline(id, [(north, -500), (north, 500)])])
    }
    var evaluator = try ZoneEvaluator(zones: [try line("a", 0)])
    func summary() -> (current: Bool, boxes: [Int32], south: Double?) {
      (
        evaluator.geolineExtentGeneration == evaluator.zoneGeneration,
        evaluator.geolineBoxes.map(\.slot), evaluator.geolineExtent?.south
      )
    }
    let south = originLatitude + 200 / metresPerDegreeLatitude
    #expect(summary().current && summary().boxes == [0])
    try evaluator.add([try line("b", 200)])
    #expect(summary().current && summary().boxes == [0, 1])
    try evaluator.replaceAll(with: [try line("b", 200)])
    #expect(summary().current && summary().boxes == [1])
    #expect(abs((summary().south ?? 0) - south) < 1e-9)
    let removed = evaluator.remove(zoneID: "b")
    #expect(removed)
    #expect(summary().current && summary().boxes == [] && summary().south == nil)
  }

  @Test func aCrossingThroughAVertexCountsOnce() throws {
    // A bent line with a vertex at the origin; the movement goes straight through it.
    let zone = Zone(id: "z", geolines: [try geoline("bent", [(0, -1000), (0, 0), (500, 1000)])])
    var evaluator = try ZoneEvaluator(zones: [zone])
    let events = run(&evaluator, [
      LocationFix(device: "a", time: t(0), latitude: originLatitude - 0.001,
        longitude: originLongitude),
      LocationFix(device: "a", time: t(10), latitude: originLatitude + 0.001,
        longitude: originLongitude),
    ])
    #expect(events == ["5 checkIn a z/bent geoline rightToLeft noCheckOut"])
  }

  @Test func touchingTheLineFromTheLeftAndLeavingIsNoCrossing() throws {
    var evaluator = try ZoneEvaluator(zones: [eastWestLineZone()])
    let onLine = LocationFix(
      device: "a", time: t(10), latitude: originLatitude, longitude: originLongitude)
    var events: [ZoneEvent] = []
    for f in [fix(0, north: 100), onLine, fix(20, north: 100)] { evaluator.process(f, into: &events) }
    #expect(events.map(describe) == [])
  }

  @Test func arrivingOnTheLineFromTheRightCrossesAndGoingBackCrossesAgain() throws {
    var evaluator = try ZoneEvaluator(zones: [eastWestLineZone()])
    let onLine = LocationFix(
      device: "a", time: t(10), latitude: originLatitude, longitude: originLongitude)
    var events: [ZoneEvent] = []
    for f in [fix(0, north: -100), onLine, fix(20, north: -100)] {
      evaluator.process(f, into: &events)
    }
    #expect(events.map(describe) == [
      "10 checkIn a narrows/line geoline rightToLeft noCheckOut",
      "10 checkIn a narrows/line geoline leftToRight noCheckOut",
    ])
  }

  @Test func everyCrossingOfOneMovementIsReportedInPathOrder() throws {
    // An inverted V crossed twice by an eastbound movement, and a northbound line of another
    // zone crossed between (its zone id sorts first: path order wins over zone id).
    let vee = Zone(id: "z-vee", geolines: [try geoline("vee", [(0, -1000), (1000, 0), (0, 1000)])])
    let post = Zone(id: "a-post", geolines: [try geoline("post", [(-1000, 0), (2000, 0)])])
    var evaluator = try ZoneEvaluator(zones: [vee, post])
    let events = run(&evaluator, [fix(0, north: 500, east: -2000), fix(40, north: 500, east: 2000)])
    #expect(events == [
      "15 checkIn a z-vee/vee geoline leftToRight noCheckOut",
      "20 checkIn a a-post/post geoline leftToRight noCheckOut",
      "25 checkIn a z-vee/vee geoline rightToLeft noCheckOut",
    ])
  }

  @Test func crossingsAtTheSamePointAreOrderedByZoneID() throws {
    let b = Zone(id: "b", geolines: [try geoline("b-line", [(0, -1000), (0, 1000)])])
    let a = Zone(id: "a", geolines: [try geoline("a-line", [(0, -1000), (0, 1000)])])
    var evaluator = try ZoneEvaluator(zones: [b, a])
    #expect(run(&evaluator, [fix(0, north: -100), fix(10, north: 100)]) == [
      "5 checkIn a a/a-line geoline rightToLeft noCheckOut",
      "5 checkIn a b/b-line geoline rightToLeft noCheckOut",
    ])
  }

  @Test func geolineCheckInsAreSubjectToMRTFromTheCheckInItself() throws {
    var evaluator = try ZoneEvaluator(zones: [eastWestLineZone(rules: ZoneRules(minimumRetriggerTime: 60))])
    #expect(run(&evaluator, [
      fix(0, north: -100), fix(10, north: 100), fix(20, north: -100), fix(70, north: 100),
      fix(80, north: -100),
    ]) == [
      "5 checkIn a narrows/line geoline rightToLeft noCheckOut",
      // 15 and 45 fall inside the window 5..<65.
      "75 checkIn a narrows/line geoline leftToRight noCheckOut",
    ])
  }

  @Test func geolineCheckInsNeverCheckOutOrDwell() throws {
    var evaluator = try ZoneEvaluator(zones: [eastWestLineZone(rules: ZoneRules(dwell: 5))])
    #expect(run(&evaluator, [fix(0, north: -100), fix(10, north: 100), fix(100, north: 5000)]) == [
      "5 checkIn a narrows/line geoline rightToLeft noCheckOut"
    ])
    #expect(advance(&evaluator, to: 1000) == [])
  }

  @Test func aCrossingDoesNotCheckInWhileTheDeviceIsCheckedInThroughAFence() throws {
    let zone = Zone(
      id: "z", fences: [try .circle(id: "f", center: at(), radius: 300)],
      geolines: [try geoline("g", [(0, -1000), (0, 1000)])])
    var evaluator = try ZoneEvaluator(zones: [zone])
    #expect(run(&evaluator, [
      fix(0, north: -100), fix(10, north: 100), fix(20, north: 1000), fix(30, north: -1000),
    ]) == [
      "0 checkIn a z/f",
      "20 checkOut a z/f in=0 duration=20",
      "25 checkIn a z/g geoline leftToRight noCheckOut",
    ])
  }

  @Test func theFirstFixOfADeviceHasNoMovement() throws {
    var evaluator = try ZoneEvaluator(zones: [eastWestLineZone()])
    #expect(run(&evaluator, [fix(0, north: 100), fix(10, north: 100)]) == [])
  }
}

@Suite struct MixedZoneTests {
  /// A zone with a circle fence north of the origin and a GEOLINE along the circle's south edge.
  func gateZone(_ rules: ZoneRules) throws -> Zone {
    Zone(
      id: "gate", fences: [try .circle(id: "yard", center: at(north: 200), radius: 150)],
      geolines: [try geoline("gate-line", [(50, -1000), (50, 1000)])], rules: rules)
  }

  @Test func aCrossingIntoTheFenceChecksInTwiceWithoutMRT() throws {
    var evaluator = try ZoneEvaluator(zones: [gateZone(.default)])
    #expect(run(&evaluator, [fix(0, north: -100), fix(10, north: 200)]) == [
      "5 checkIn a gate/gate-line geoline rightToLeft noCheckOut",
      "10 checkIn a gate/yard",
    ])
  }

  @Test func withMRTTheCrossingsWindowSilencesTheAreaEntryOfTheSameFix() throws {
    var evaluator = try ZoneEvaluator(zones: [gateZone(ZoneRules(minimumRetriggerTime: 60))])
    #expect(run(&evaluator, [
      fix(0, north: -100), fix(10, north: 200), fix(20, north: 600), fix(100, north: 200),
    ]) == [
      "5 checkIn a gate/gate-line geoline rightToLeft noCheckOut",
      // The silent stay from 10 ends at 20 without a check-out; 100 is past the window.
      "100 checkIn a gate/yard",
    ])
  }

  @Test func aSilentStayDoesNotBlockAGeolineCheckIn() throws {
    // Initial trigger off: the first fix inside the yard is silent; crossing the line inside
    // the yard southwards still checks in.
    let zone = Zone(
      id: "z", fences: [try .circle(id: "yard", center: at(), radius: 300)],
      geolines: [try geoline("line", [(0, -1000), (0, 1000)])],
      rules: ZoneRules(initialTrigger: false))
    var evaluator = try ZoneEvaluator(zones: [zone])
    #expect(run(&evaluator, [fix(0, north: 100), fix(10, north: -100)]) == [
      "5 checkIn a z/line geoline leftToRight noCheckOut"
    ])
  }
}

/// A crossing is judged by the device's presence at the crossing's time, so a check-out of the
/// same fix counts from its stamp on.
@Suite struct CrossingAroundCheckOutTests {
  /// A circle of 100 m at the origin and a GEOLINE drawn west to east `lineNorth` metres north
  /// of the origin (its left is north).
  func yard(lineNorth: Double, _ rules: ZoneRules = .default) throws -> Zone {
    Zone(
      id: "z", fences: [try .circle(id: "f", center: at(), radius: 100)],
      geolines: [try geoline("g", [(lineNorth, -1000), (lineNorth, 1000)])], rules: rules)
  }

  @Test func aCrossingBeforeTheCheckOutOfTheSameMovementDoesNotCheckIn() throws {
    // The line runs through the yard: crossed at 2.5 s, inside the fence; check-out at 10.
    var evaluator = try ZoneEvaluator(zones: [yard(lineNorth: -50)])
    #expect(run(&evaluator, [fix(0, north: -90), fix(10, north: 150)]) == [
      "0 checkIn a z/f",
      "10 checkOut a z/f in=0 duration=10",
    ])
  }

  @Test func aCrossingAtTheCheckOutsOwnTimeChecksInAfterIt() throws {
    // Arriving on the line from the right (south) is a crossing at the fix itself: the
    // check-out at 10 comes first, and the device is no longer checked in then.
    var evaluator = try ZoneEvaluator(zones: [yard(lineNorth: 150)])
    let onLine = fix(10, north: 150)
    #expect(run(&evaluator, [fix(0), onLine]) == [
      "0 checkIn a z/f",
      "10 checkOut a z/f in=0 duration=10",
      "10 checkIn a z/g geoline rightToLeft noCheckOut",
    ])
  }

  @Test func aCrossingAfterAConfirmedExitsStampChecksIn() throws {
    // Two confirmations: outside at 10 (pending) and 20 (confirmed, stamped 10). The crossing
    // at 15 comes after the check-out's stamp.
    var evaluator = try ZoneEvaluator(
      zones: [yard(lineNorth: 300, ZoneRules(exitConfirmations: 2))])
    #expect(run(&evaluator, [fix(0), fix(10, north: 200), fix(20, north: 400)]) == [
      "0 checkIn a z/f",
      "10 checkOut a z/f in=0 duration=10",
      "15 checkIn a z/g geoline rightToLeft noCheckOut",
    ])
  }

  @Test func aCrossingWhileAnExitIsPendingDoesNotCheckIn() throws {
    // Three confirmations: the crossing at 15 is judged at the fix of 20, when the exit is
    // still pending (the device still counts as checked in); the check-out confirmed at 30 is
    // stamped 10, but the crossing is not judged again.
    var evaluator = try ZoneEvaluator(
      zones: [yard(lineNorth: 300, ZoneRules(exitConfirmations: 3))])
    #expect(run(&evaluator, [
      fix(0), fix(10, north: 200), fix(20, north: 400), fix(30, north: 500),
    ]) == [
      "0 checkIn a z/f",
      "10 checkOut a z/f in=0 duration=10",
    ])
  }

  @Test func aCrossingAfterTheCheckOutIsSubjectToTheWindowItOpened() throws {
    var evaluator = try ZoneEvaluator(
      zones: [yard(lineNorth: 300, ZoneRules(minimumRetriggerTime: 60, exitConfirmations: 2))])
    #expect(run(&evaluator, [fix(0), fix(10, north: 200), fix(20, north: 400)]) == [
      "0 checkIn a z/f",
      "10 checkOut a z/f in=0 duration=10",
    ])
  }

  @Test func aZoneWithoutCheckOutBlocksCrossingsUntilItsStayEnds() throws {
    // No check-out event, but the stay through the fence still ends at 10.
    var evaluator = try ZoneEvaluator(zones: [yard(lineNorth: -50, ZoneRules(checkOut: false))])
    #expect(run(&evaluator, [fix(0, north: -90), fix(10, north: 150), fix(20, north: -150)]) == [
      "0 checkIn a z/f noCheckOut",
      "16.666667 checkIn a z/g geoline leftToRight noCheckOut",
    ])
  }
}

@Suite struct AntimeridianTests {
  @Test func aCircleAcrossTheAntimeridianChecksInFromBothSides() throws {
    let center = try Coordinate(latitude: -16.5, longitude: 179.9995)
    let zone = Zone(id: "fiji", fences: [try .circle(id: "dateline", center: center, radius: 200)])
    var evaluator = try ZoneEvaluator(zones: [zone])
    let events = run(&evaluator, [
      LocationFix(device: "a", time: t(0), latitude: -16.5, longitude: -179.9995),
      LocationFix(device: "a", time: t(10), latitude: -16.5, longitude: 0.5),
      LocationFix(device: "a", time: t(20), latitude: -16.5, longitude: 179.9999),
    ])
    #expect(events == [
      "0 checkIn a fiji/dateline",
      "10 checkOut a fiji/dateline in=0 duration=10",
      "20 checkIn a fiji/dateline",
    ])
  }

  @Test func aMovementAcrossTheAntimeridianCrossesAGeolineThere() throws {
    let line = try Polyline([
      Coordinate(latitude: -17, longitude: 180), Coordinate(latitude: -16, longitude: 180),
    ])
    let zone = Zone(id: "dateline", geolines: [Geoline(id: "meridian", line: line)])
    var evaluator = try ZoneEvaluator(zones: [zone])
    // Walking north along 180, left is west: moving east from 179.99 to -179.99 is leftToRight.
    let events = run(&evaluator, [
      LocationFix(device: "a", time: t(0), latitude: -16.5, longitude: 179.99),
      LocationFix(device: "a", time: t(10), latitude: -16.5, longitude: -179.99),
    ])
    #expect(events == ["5 checkIn a dateline/meridian geoline leftToRight noCheckOut"])
  }
}
