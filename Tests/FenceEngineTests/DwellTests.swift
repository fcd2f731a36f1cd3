import FenceEngine
import Testing

@Suite struct DwellTests {
  let fiveMinutes = ZoneRules(dwell: 300)

  @Test func theSpecsWorkedExampleGivesTheDwellBeforeTheCheckOut() throws {
    // Inside at 10:00, next seen outside at 10:07, D = 5 min: dwell at 10:05, check-out at 10:07.
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", rules: fiveMinutes)])
    #expect(run(&evaluator, [fix(0), fix(420, north: 500)]) == [
      "0 checkIn a z/z-fence",
      "300 dwell a z/z-fence in=0 dwell=300",
      "420 checkOut a z/z-fence in=0 duration=420",
    ])
  }

  @Test func aDwellFiresOnceWhenAnotherDevicesFixMovesTimePastItsDeadline() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", rules: fiveMinutes), circleZone("y", north: 2000)])
    #expect(run(&evaluator, [
      fix(0, device: "a"), fix(299, north: 900, device: "b"), fix(300, north: 2000, device: "b"),
      fix(400, north: 900, device: "b"), fix(500, device: "a"),
    ]) == [
      "0 checkIn a z/z-fence",
      "300 dwell a z/z-fence in=0 dwell=300",
      "300 checkIn b y/y-fence",
      "400 checkOut b y/y-fence in=300 duration=100",
    ])
  }

  @Test func advancingTheEngineTimeFiresDueDwellsOnlyOnce() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", rules: fiveMinutes)])
    #expect(run(&evaluator, [fix(0)]) == ["0 checkIn a z/z-fence"])
    #expect(advance(&evaluator, to: 299.999999) == [])
    #expect(advance(&evaluator, to: 300) == ["300 dwell a z/z-fence in=0 dwell=300"])
    #expect(advance(&evaluator, to: 1000) == [])
    #expect(evaluator.time == t(1000))
    #expect(advance(&evaluator, to: 10) == [])
    #expect(evaluator.time == t(1000))
  }

  @Test func leavingBeforeTheDwellTimeGivesNoDwell() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", rules: fiveMinutes)])
    #expect(run(&evaluator, [fix(0), fix(299, north: 500), fix(400)]) == [
      "0 checkIn a z/z-fence",
      "299 checkOut a z/z-fence in=0 duration=299",
      "400 checkIn a z/z-fence",
    ])
    #expect(advance(&evaluator, to: 699) == [])
    #expect(advance(&evaluator, to: 700) == ["700 dwell a z/z-fence in=400 dwell=300"])
  }

  @Test func dueDwellsOfSeveralDevicesComeInDeadlineOrderThenZoneIDThenDevice() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("b", rules: ZoneRules(dwell: 60)),
      circleZone("a", north: 1000, rules: ZoneRules(dwell: 60)),
    ])
    let events = run(&evaluator, [
      fix(0, device: "x"),  // b, due 60
      fix(0, north: 1000, device: "y"),  // a, due 60
      fix(0, device: "w"),  // b, due 60
      fix(-10, north: 1000, device: "v"),  // a, due 50 (earlier device time is fine)
      fix(100, north: 5000, device: "u"),
    ])
    #expect(events == [
      "0 checkIn x b/b-fence",
      "0 checkIn y a/a-fence",
      "0 checkIn w b/b-fence",
      "-10 checkIn v a/a-fence",
      "50 dwell v a/a-fence in=-10 dwell=60",
      "60 dwell y a/a-fence in=0 dwell=60",
      "60 dwell w b/b-fence in=0 dwell=60",
      "60 dwell x b/b-fence in=0 dwell=60",
    ])
  }

  @Test func aDueDwellWaitsForAPendingExitAndIsEmittedWhenTheDeviceIsInsideAgain() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(dwell: 300, exitConfirmations: 2))
    ])
    #expect(run(&evaluator, [fix(0), fix(200, north: 500)]) == ["0 checkIn a z/z-fence"])
    // Another device moves time past the deadline: the exit is pending, so the dwell waits.
    #expect(run(&evaluator, [fix(350, north: 3000, device: "b")]) == [])
    #expect(advance(&evaluator, to: 360) == [])
    // Inside again: the dwell comes first, stamped with its deadline.
    #expect(run(&evaluator, [fix(400), fix(500, north: 500), fix(510, north: 500)]) == [
      "300 dwell a z/z-fence in=0 dwell=300",
      "500 checkOut a z/z-fence in=0 duration=500",
    ])
  }

  @Test func aDueDwellIsDroppedWhenThePendingExitIsConfirmedBeforeItsDeadline() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(dwell: 300, exitConfirmations: 2))
    ])
    #expect(run(&evaluator, [fix(0), fix(200, north: 500), fix(400, north: 500), fix(500)]) == [
      "0 checkIn a z/z-fence",
      "200 checkOut a z/z-fence in=0 duration=200",
      "500 checkIn a z/z-fence",
    ])
    #expect(advance(&evaluator, to: 10_000) == ["800 dwell a z/z-fence in=500 dwell=300"])
  }

  @Test func aDwellDueAtTheFirstOutsideFixFiresBecauseTheStayLastedD() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(dwell: 300, exitConfirmations: 2))
    ])
    #expect(run(&evaluator, [fix(0), fix(300, north: 500), fix(301, north: 500)]) == [
      "0 checkIn a z/z-fence",
      "300 dwell a z/z-fence in=0 dwell=300",
      "300 checkOut a z/z-fence in=0 duration=300",
    ])
  }

  @Test func aDwellCarriesTheDevicesLastPositionBeforeTheDeadline() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", rules: fiveMinutes)])
    var events: [ZoneEvent] = []
    let inside = fix(100, north: 20, speed: 1, course: 45)
    evaluator.process(fix(0), into: &events)
    evaluator.process(inside, into: &events)
    evaluator.process(fix(400, north: 40), into: &events)
    let dwell = try #require(events.first { $0.kind == .dwell })
    #expect(dwell.latitude == inside.latitude)
    #expect(dwell.longitude == inside.longitude)
    #expect(dwell.speed == 1)
    #expect(dwell.course == 45)
    #expect(dwell.trigger == nil)
  }

  @Test func aZeroDwellFiresAtTheNextTimeStep() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", rules: ZoneRules(dwell: 0))])
    #expect(run(&evaluator, [fix(0), fix(1)]) == [
      "0 checkIn a z/z-fence",
      "0 dwell a z/z-fence in=0 dwell=0",
    ])
  }
}
