import FenceEngine
import FenceGeometry
import Testing

/// Large loads are applied in spatial order and indexed in bulk; neither may change an event.
@Suite struct BulkLoadTests {
  /// 400 circle zones on a 20 × 20 grid, 150 m apart, radii 40-100 m, every fifth with a
  /// GEOLINE, dwell and MRT on some.
  static func gridZones(prefix: String = "z", count: Int = 400) throws -> [Zone] {
    var zones: [Zone] = []
    for index in 0..<count {
      let north = Double(index / 20) * 150
      let east = Double(index % 20) * 150
      var zone = try circleZone(
        "\(prefix)\(index)", north: north, east: east, radius: 40 + Double(index % 7) * 10,
        rules: ZoneRules(minimumRetriggerTime: index % 3 == 0 ? 30 : 0,
          dwell: index % 4 == 0 ? 20 : nil))
      if index % 5 == 0 {
        zone.geolines = [try geoline("\(prefix)\(index)-line", [(north - 60, east + 70), (north + 60, east + 70)])]
      }
      zones.append(zone)
    }
    return zones
  }

  /// Ten devices walking diagonals across the grid at 1 Hz.
  static func walks() -> [LocationFix] {
    var fixes: [LocationFix] = []
    for second in 0..<300 {
      for device in 0..<10 {
        let s = Double(second)
        fixes.append(fix(s, north: Double(device) * 290 + s * 3, east: s * 9.5 - Double(device) * 40,
          device: "d\(device)"))
      }
    }
    return fixes
  }

  func replay(_ evaluator: inout ZoneEvaluator, _ fixes: [LocationFix]) -> [ZoneEvent] {
    var events: [ZoneEvent] = []
    for fix in fixes { evaluator.process(fix, into: &events) }
    evaluator.advance(to: t(400), into: &events)
    return events
  }

  @Test func aBulkLoadGivesTheEventsOfZonesAddedOneByOne() throws {
    let zones = try Self.gridZones()
    var bulk = try ZoneEvaluator(zones: zones)
    var single = ZoneEvaluator()
    for zone in zones { try single.add(zone) }
    let fixes = Self.walks()
    let expected = replay(&single, fixes)
    #expect(replay(&bulk, fixes) == expected)
    #expect(expected.count > 100)
    #expect(bulk.zoneCount == 400)
    #expect(bulk.elementCount == 480)
  }

  @Test func aLargeLoadAddedBesideLoadedZonesIsIndexedInBulk() throws {
    // 80 zones first, then 320 more in one load (more than an eighth: the index is packed
    // again), then a replace of the first 80 in one load.
    let zones = try Self.gridZones()
    var evaluator = try ZoneEvaluator(zones: Array(zones.prefix(80)))
    try evaluator.add(Array(zones.dropFirst(80)))
    try evaluator.add(Array(zones.prefix(80)))
    var reference = try ZoneEvaluator(zones: zones)
    let fixes = Self.walks()
    #expect(replay(&evaluator, fixes) == replay(&reference, fixes))
  }

  @Test func replacingEverythingWithALargeLoadKeepsDeviceState() throws {
    let zones = try Self.gridZones()
    let fixes = Self.walks()
    let (first, second) = (Array(fixes.prefix(1500)), Array(fixes.dropFirst(1500)))
    var evaluator = try ZoneEvaluator(zones: zones)
    var reference = try ZoneEvaluator(zones: zones)
    var events: [ZoneEvent] = []
    var expected: [ZoneEvent] = []
    for fix in first {
      evaluator.process(fix, into: &events)
      reference.process(fix, into: &expected)
    }
    try evaluator.replaceAll(with: zones.reversed())
    #expect(replay(&evaluator, second) == replay(&reference, second))
  }
}
