import FenceGeometry
import FenceTesting
import Testing

@testable import FenceEngine

/// The per-fix step's shorter way for records of zones with plain rules
/// (`checkOutAndInPlainly`) gives exactly the events and device states of the general steps:
/// two evaluators, one with the shorter way turned off, over random zones (circles, squares,
/// GEOLINEs), rules plain and not, zone changes during the tracks, and random walks.
@Suite struct PlainStepTests {
  /// Rules, plain or not, drawn for each zone.
  static let ruleChoices: [ZoneRules] = [
    .default,
    ZoneRules(checkOut: false),
    ZoneRules(initialTrigger: false),
    ZoneRules(exitHysteresis: 60),
    ZoneRules(checkOut: false, initialTrigger: false, exitHysteresis: 30),
    ZoneRules(exitConfirmations: 2),
    ZoneRules(minimumRetriggerTime: 90),
    ZoneRules(dwell: 45),
  ]

  /// Zones over a 3 km square around the origin; with `allPlain`, only the plain rules of
  /// `ruleChoices` (the first five).
  static func zones(_ random: inout SplitMix64, count: Int, allPlain: Bool) throws -> [Zone] {
    var zones: [Zone] = []
    for k in 0..<count {
      let rules = ruleChoices[random.next(below: allPlain ? 5 : ruleChoices.count)]
      let north = Double(random.next(below: 3_000))
      let east = Double(random.next(below: 3_000))
      let size = Double(100 + random.next(below: 600))
      // Ids not in slot order, so that sorting by id matters.
      let id = "z\((k * 7) % count)-\(k)"
      var fences: [Fence] = []
      var geolines: [Geoline] = []
      switch random.next(below: 8) {
      case 0:
        let ring = [
          at(north: north, east: east), at(north: north, east: east + size),
          at(north: north + size, east: east + size), at(north: north + size, east: east),
          at(north: north, east: east),
        ]
        fences.append(Fence(id: "\(id)-square", area: .polygon(MultiPolygon(try Polygon(exterior: ring)))))
      case 1:
        geolines.append(
          try geoline("\(id)-line", [(north, east), (north + size, east + size)]))
      case 2:
        // Two overlapping circles: the best-ranked fence is the one checked in through.
        fences.append(try .circle(id: "\(id)-a", center: at(north: north, east: east), radius: size))
        fences.append(
          try .circle(id: "\(id)-b", center: at(north: north + size / 2, east: east), radius: size))
      default:
        fences.append(try .circle(id: "\(id)-c", center: at(north: north, east: east), radius: size))
      }
      zones.append(
        Zone(
          id: id, customData: ["k": .number(Double(k))], fences: fences, geolines: geolines,
          rules: rules))
    }
    return zones
  }

  /// Random walks of `devices` devices over the zones' square, 20-90 s and up to 500 m a step,
  /// in time order.
  static func fixes(_ random: inout SplitMix64, devices: Int, steps: Int) -> [LocationFix] {
    var positions = (0..<devices).map { _ in
      (north: Double(random.next(below: 3_000)), east: Double(random.next(below: 3_000)))
    }
    var fixes: [LocationFix] = []
    var seconds = 0.0
    for _ in 0..<steps {
      seconds += Double(20 + random.next(below: 70))
      for device in 0..<devices {
        positions[device].north += Double(random.next(below: 1_001)) - 500
        positions[device].east += Double(random.next(below: 1_001)) - 500
        positions[device].north = min(max(positions[device].north, -300), 3_300)
        positions[device].east = min(max(positions[device].east, -300), 3_300)
        fixes.append(
          fix(
            seconds + Double(device) / 10, north: positions[device].north,
            east: positions[device].east, device: "d\(device)", speed: Double(device)))
      }
    }
    return fixes
  }

  /// Runs `fixes` through both evaluators, applying `change` to both before fix `changeAt`,
  /// then advances both past the last fix; expects the same events and device states.
  /// Returns how many fixes took the shorter way and the events.
  static func compare(
    zones: [Zone], fixes: [LocationFix], configuration: ZoneEvaluator.Configuration = .init(),
    poolsRecords: Bool = false, changeAt: Int? = nil,
    change: (inout ZoneEvaluator) throws -> Void = { _ in }
  ) throws -> (plainSteps: Int, events: [ZoneEvent]) {
    var plain = try ZoneEvaluator(configuration: configuration, zones: zones)
    var general = try ZoneEvaluator(configuration: configuration, zones: zones)
    general.takesPlainSteps = false
    if poolsRecords {
      // Records kept in the store's blocks, as a large fleet's are.
      plain.recordPoolingFleet = 0
      general.recordPoolingFleet = 0
    }
    var expected: [ZoneEvent] = []
    var actual: [ZoneEvent] = []
    for (k, f) in fixes.enumerated() {
      if k == changeAt {
        try change(&plain)
        try change(&general)
      }
      general.process(f, into: &expected)
      plain.process(f, into: &actual)
    }
    if let last = fixes.last?.time.adding(seconds: 600) {
      general.advance(to: last, into: &expected)
      plain.advance(to: last, into: &actual)
    }
    #expect(actual == expected)
    #expect(actual.map(\.id) == expected.map(\.id))
    for device in Set(fixes.map(\.device)) {
      #expect(plain.deviceStatus(named: device) == general.deviceStatus(named: device))
      // The records kept, field by field (finished ones dropped alike).
      let records = [plain, general].map { evaluator in
        evaluator.records(ofDevice: Int(evaluator.deviceSlot(named: device)!)).map {
          "\($0.zone) \($0.presence) \($0.stay) \($0.checkInTime) \($0.checkInFenceSlot) "
            + "\($0.exitCount) \($0.windowStart as Any) \($0.willCheckOut) \($0.dwell)"
        }
      }
      #expect(records[0] == records[1])
    }
    #expect(general.plainStepCount == 0)
    return (plain.plainStepCount, actual)
  }

  @Test(arguments: 1...6)
  func allPlainZonesTakeTheShorterWayToTheSameEvents(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let zones = try Self.zones(&random, count: 40, allPlain: true)
    let fixes = Self.fixes(&random, devices: 8, steps: 60)
    let (plainSteps, events) = try Self.compare(
      zones: zones, fixes: fixes, poolsRecords: seed % 2 == 0)
    // The shorter way took most steps that changed something, with check-outs and check-ins.
    #expect(plainSteps > 100)
    #expect(events.contains { $0.kind == .checkOut })
    #expect(events.contains { $0.kind == .checkIn && $0.trigger == .fence })
  }

  @Test(arguments: 1...6)
  func mixedRulesGiveTheSameEvents(seed: UInt64) throws {
    var random = SplitMix64(seed: 100 + seed)
    let zones = try Self.zones(&random, count: 40, allPlain: false)
    let fixes = Self.fixes(&random, devices: 8, steps: 60)
    let (plainSteps, events) = try Self.compare(zones: zones, fixes: fixes)
    #expect(plainSteps > 0)
    #expect(events.contains { $0.kind == .dwell })
    #expect(events.contains { $0.trigger == .geoline })
  }

  /// Zones replaced with plain rules during exits the old rules were still confirming, added
  /// and removed, halfway through the tracks.
  @Test(arguments: 1...4)
  func zoneChangesDuringTheTracksGiveTheSameEvents(seed: UInt64) throws {
    var random = SplitMix64(seed: 200 + seed)
    var zones = try Self.zones(&random, count: 30, allPlain: true)
    for k in zones.indices where k % 3 == 0 { zones[k].rules = ZoneRules(exitConfirmations: 3) }
    let fixes = Self.fixes(&random, devices: 8, steps: 60)
    let added = try Self.zones(&random, count: 5, allPlain: true).enumerated().map { k, zone in
      var zone = zone
      zone.id = "added-\(k)"
      zone.fences = FenceList(zone.fences.map { fence in
        var fence = fence
        fence.id = "added-\(k)-\(fence.id)"
        return fence
      })
      zone.geolines = zone.geolines.map { line in
        var line = line
        line.id = "added-\(k)-\(line.id)"
        return line
      }
      return zone
    }
    let (plainSteps, _) = try Self.compare(zones: zones, fixes: fixes, changeAt: fixes.count / 2) {
      evaluator in
      var replaced = zones.filter { $0.rules.exitConfirmations == 3 }
      for k in replaced.indices { replaced[k].rules = .default }
      try evaluator.add(replaced + added)
      _ = evaluator.remove(zoneIDs: zones.suffix(4).map(\.id))
    }
    #expect(plainSteps > 50)
  }

  /// The gathered zones' sorts compare ids in place (`zoneIDPrecedes`) as `zoneID` copies
  /// would: every pair of slots, free ones ("") included.
  @Test func zoneIDsCompareInPlaceAsCopiesDo() throws {
    let ids = ["b", "a", "ab", "B", "é", "e", "z9", "z10", "a b", "Z", "zz"]
    var evaluator = try ZoneEvaluator(
      zones: ids.enumerated().map { k, id in try circleZone(id, north: Double(k) * 500) })
    _ = evaluator.remove(zoneIDs: ["z9", "a"])
    let slots = Int32(0)..<Int32(evaluator.zoneSlots.count)
    #expect(evaluator.zoneSlots.contains { $0 == nil })
    evaluator.zoneSlots.withUnsafeBufferPointer { table in
      for a in slots {
        for b in slots {
          let expected = ZoneEvaluator.zoneID(a, in: table) < ZoneEvaluator.zoneID(b, in: table)
          #expect(ZoneEvaluator.zoneIDPrecedes(a, b, in: table) == expected, "slots \(a), \(b)")
        }
      }
    }
  }

  /// With proximity monitoring that triggers only the monitored fences.
  @Test func proximityMonitoringGivesTheSameEvents() throws {
    var random = SplitMix64(seed: 300)
    let zones = try Self.zones(&random, count: 40, allPlain: true)
    let fixes = Self.fixes(&random, devices: 6, steps: 60)
    let configuration = ZoneEvaluator.Configuration(
      proximity: .init(count: 4, radius: 1_500, triggersOnlyMonitored: true))
    let (plainSteps, events) = try Self.compare(
      zones: zones, fixes: fixes, configuration: configuration)
    #expect(plainSteps > 50)
    #expect(events.contains { $0.kind == .monitoredSetChanged })
  }
}

extension SplitMix64 {
  /// A value in 0..<limit (the remainder's slight bias does not matter to these tests).
  fileprivate mutating func next(below limit: Int) -> Int {
    Int(next() % UInt64(limit))
  }
}
