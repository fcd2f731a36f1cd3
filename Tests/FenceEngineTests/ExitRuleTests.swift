import FenceEngine
import Testing

@Suite struct ExitRuleTests {
  @Test func exitHysteresisKeepsACheckedInDeviceInsideNearTheEdge() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", radius: 100, rules: ZoneRules(exitHysteresis: 25))
    ])
    #expect(run(&evaluator, [
      fix(0, north: 115),  // outside, not checked in: hysteresis does not apply
      fix(10),  // check-in
      fix(20, north: 115),  // 15 m out, within 25 m: still inside
      fix(30, north: 140),  // 40 m out: check-out
      fix(40, north: 115),  // outside again, not checked in
    ]) == [
      "10 checkIn a z/z-fence",
      "30 checkOut a z/z-fence in=10 duration=20",
    ])
  }

  /// Hysteresis measures every fence of the zone, not only the one that checked the device in;
  /// the zone's GEOLINE is no fence and keeps no one inside.
  @Test func exitHysteresisMeasuresEveryFenceOfAZoneWithAGeoline() throws {
    var evaluator = try ZoneEvaluator(zones: [
      Zone(
        id: "z",
        fences: [
          try .circle(id: "A", center: at(), radius: 100),
          try .circle(id: "B", center: at(east: 400), radius: 100),
        ],
        geolines: [try geoline("g", [(200, -500), (200, 900)])],
        rules: ZoneRules(exitHysteresis: 25))
    ])
    #expect(run(&evaluator, [
      fix(0),  // in A: check-in
      fix(10, east: 515),  // 315 m out of A, 15 m out of B: still inside through B
      fix(20, north: 190, east: -300),  // 10 m from the GEOLINE, 255 m out of A: check-out
    ]) == [
      "0 checkIn a z/A",
      "20 checkOut a z/A in=0 duration=20",
    ])
  }

  @Test func exitConfirmationsCheckOutAfterKOutsideFixesStampedWithTheFirst() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(exitConfirmations: 3))
    ])
    var events: [ZoneEvent] = []
    let fixes = [
      fix(0), fix(1, north: 200), fix(2), fix(3, north: 200), fix(4, north: 210),
      fix(5), fix(6, north: 300, speed: 7, course: 12), fix(7, north: 310), fix(8, north: 320),
      fix(9, north: 330),
    ]
    for f in fixes { evaluator.process(f, into: &events) }
    #expect(events.map(describe) == [
      "0 checkIn a z/z-fence",
      "6 checkOut a z/z-fence in=0 duration=6",
    ])
    #expect(events[1].latitude == fixes[6].latitude)
    #expect(events[1].longitude == fixes[6].longitude)
    #expect(events[1].speed == 7)
    #expect(events[1].course == 12)
  }

  @Test(arguments: [
    ZoneRules(exitHysteresis: 30),
    ZoneRules(exitConfirmations: 3),
    ZoneRules(exitHysteresis: 10, exitConfirmations: 2),
  ])
  func oneHertzJitterAcrossTheEdgeGivesExactlyOneCheckInAndOneCheckOut(_ rules: ZoneRules) throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", radius: 100, rules: rules)])
    // Approach, then 120 s jittering between 92 and 108 m from the centre in a pattern that
    // never stays outside for three fixes running, then leave.
    var fixes = (0..<10).map { fix(Double($0), north: 500 - Double($0) * 40) }
    let pattern: [Double] = [92, 104, 97, 108, 101, 95, 106, 99]
    for second in 10..<130 { fixes.append(fix(Double(second), north: pattern[second % 8])) }
    fixes += (130..<140).map { fix(Double($0), north: 200 + Double($0 - 130) * 50) }
    let events = run(&evaluator, fixes)
    #expect(events.count == 2)
    #expect(events.first?.contains("checkIn") == true)
    #expect(events.last?.contains("checkOut") == true)
  }

  @Test func withoutExitRulesJitterChecksInAndOutEachTime() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", radius: 100)])
    let events = run(&evaluator, [fix(0, north: 92), fix(1, north: 104), fix(2, north: 97)])
    #expect(events == [
      "0 checkIn a z/z-fence",
      "1 checkOut a z/z-fence in=0 duration=1",
      "2 checkIn a z/z-fence",
    ])
  }

  @Test func hysteresisUsesTheNearestFenceOfTheZone() throws {
    let zone = Zone(
      id: "z",
      fences: [
        try .circle(id: "west", center: at(east: -150), radius: 100),
        try .circle(id: "east", center: at(east: 150), radius: 100),
      ], rules: ZoneRules(exitHysteresis: 60))
    var evaluator = try ZoneEvaluator(zones: [zone])
    // The origin is 50 m from both circles; 100 m north of it is farther from both.
    #expect(run(&evaluator, [fix(0, east: -150), fix(10), fix(20, north: 100)]) == [
      "0 checkIn a z/west",
      "20 checkOut a z/west in=0 duration=20",
    ])
  }
}
