import FenceGeometry
import Testing

@testable import FenceEngine

/// Dwells that fall due together come in deadline order, then zone id, then device name, however
/// many they are (above 32 the evaluator sorts them with the standard library's sort instead of
/// by insertion, which was quadratic).
@Suite struct ManyDueDwellsTests {
  @Test(arguments: [5, 40, 300])
  func dwellsDueTogetherComeByZoneThenDevice(devices: Int) throws {
    let rules = ZoneRules(dwell: 60)
    var evaluator = try ZoneEvaluator(zones: [
      try circleZone("b-quay", radius: 500, rules: rules),
      try circleZone("a-pier", radius: 500, rules: rules),
    ])
    // Devices check in at one instant, in reverse name order; a second group 10 s later.
    let names = (0..<devices).map { "d" + String(1000 + $0).dropFirst() }
    var fixes = names.reversed().map { fix(0, device: $0) }
    fixes.append(fix(10, device: "late"))
    _ = run(&evaluator, fixes)
    let fired = advance(&evaluator, to: 100)
    var expected: [String] = []
    for zone in ["a-pier", "b-quay"] {
      for name in names { expected.append("60 dwell \(name) \(zone)/\(zone)-fence in=0 dwell=60") }
    }
    for zone in ["a-pier", "b-quay"] {
      expected.append("70 dwell late \(zone)/\(zone)-fence in=10 dwell=60")
    }
    #expect(fired == expected)
  }
}
