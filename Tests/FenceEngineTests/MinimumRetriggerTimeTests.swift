import FenceEngine
import Testing

@Suite struct MinimumRetriggerTimeTests {
  @Test func theWindowOpensAtTheCheckOutWhenTheZoneChecksOut() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(minimumRetriggerTime: 300, dwell: 30))
    ])
    #expect(run(&evaluator, [
      fix(0),  // check-in
      fix(100, north: 500),  // check-out: window 100..<400
      fix(200),  // suppressed: inside silently (no dwell at 230)
      fix(250, north: 500),  // no check-out for the suppressed stay; the window does not move
      fix(420),  // 420 >= 400: check-in (a window moved to 250 would suppress it)
      fix(460),
    ]) == [
      "0 checkIn a z/z-fence",
      "30 dwell a z/z-fence in=0 dwell=30",
      "100 checkOut a z/z-fence in=0 duration=100",
      "420 checkIn a z/z-fence",
      "450 dwell a z/z-fence in=420 dwell=30",
    ])
  }

  @Test func theWindowOpensAtTheCheckInWhenTheZoneDoesNotCheckOut() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(minimumRetriggerTime: 300, checkOut: false))
    ])
    #expect(run(&evaluator, [
      fix(0), fix(100, north: 500), fix(200), fix(250, north: 500), fix(299), fix(301, north: 500),
      fix(310),
    ]) == [
      "0 checkIn a z/z-fence noCheckOut",
      "310 checkIn a z/z-fence noCheckOut",
    ])
  }

  @Test func aCheckInExactlyAtTheWindowsEndIsNotSuppressed() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(minimumRetriggerTime: 60))
    ])
    #expect(run(&evaluator, [fix(0), fix(10, north: 500), fix(70)]) == [
      "0 checkIn a z/z-fence",
      "10 checkOut a z/z-fence in=0 duration=10",
      "70 checkIn a z/z-fence",
    ])
  }

  @Test func theWindowIsPerDeviceAndZone() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(minimumRetriggerTime: 600)),
      circleZone("y", rules: ZoneRules(minimumRetriggerTime: 600)),
    ])
    #expect(run(&evaluator, [
      fix(0, device: "a"), fix(10, north: 500, device: "a"), fix(20, device: "b"),
      fix(30, device: "a"),
    ]) == [
      "0 checkIn a y/y-fence",
      "0 checkIn a z/z-fence",
      "10 checkOut a y/y-fence in=0 duration=10",
      "10 checkOut a z/z-fence in=0 duration=10",
      "20 checkIn b y/y-fence",
      "20 checkIn b z/z-fence",
    ])
  }
}
