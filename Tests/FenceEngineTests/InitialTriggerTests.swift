import FenceEngine
import Testing

@Suite struct InitialTriggerTests {
  @Test func aDeviceFirstSeenInsideChecksInByDefault() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    #expect(run(&evaluator, [fix(0), fix(10, north: 500)]) == [
      "0 checkIn a z/z-fence",
      "10 checkOut a z/z-fence in=0 duration=10",
    ])
  }

  @Test func withInitialTriggerOffAFirstFixInsideIsSilentForThatStay() throws {
    var evaluator = try ZoneEvaluator(zones: [
      circleZone("z", rules: ZoneRules(dwell: 30, initialTrigger: false))
    ])
    #expect(run(&evaluator, [fix(0), fix(100), fix(200, north: 500), fix(300), fix(400, north: 500)])
      == [
        "300 checkIn a z/z-fence",
        "330 dwell a z/z-fence in=300 dwell=30",
        "400 checkOut a z/z-fence in=300 duration=100",
      ])
  }

  @Test func theFirstFixAfterAZoneIsAddedIsAnInitialTrigger() throws {
    var evaluator = ZoneEvaluator()
    #expect(run(&evaluator, [fix(0, device: "a"), fix(0, north: 900, device: "b")]) == [])
    try evaluator.add(circleZone("on"))
    try evaluator.add(circleZone("off", rules: ZoneRules(initialTrigger: false)))
    // a: inside both at its first fix after the adds. b: outside first, then enters.
    #expect(run(&evaluator, [
      fix(10, device: "a"), fix(10, north: 900, device: "b"), fix(20, device: "b"),
    ]) == [
      "10 checkIn a on/on-fence",
      "20 checkIn b off/off-fence",
      "20 checkIn b on/on-fence",
    ])
  }

  @Test func aReplacedZoneIsNotAnInitialTrigger() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z", north: 2000, rules: ZoneRules(initialTrigger: false))])
    #expect(run(&evaluator, [fix(0)]) == [])
    // The zone moves onto the device: this is an entry, not a first sighting.
    try evaluator.add(circleZone("z", rules: ZoneRules(initialTrigger: false)))
    #expect(run(&evaluator, [fix(10)]) == ["10 checkIn a z/z-fence"])
  }
}
