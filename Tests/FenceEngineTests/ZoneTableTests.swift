import FenceGeometry
import Testing

@testable import FenceEngine

/// The evaluator keeps zones without their fences and gives the fences back from its element
/// tables: `zones` and `zone(id:)` must return exactly what was added, names included, through
/// loads large enough for the spatial order, replacements and removals.
@Suite struct ZoneTableTests {
  static func zones() throws -> [Zone] {
    var zones: [Zone] = []
    // More than the spatial-order threshold, so that slots are not in array order.
    for k in 0..<300 {
      var zone = try circleZone(
        "z\(k)", north: Double(k % 17) * 900, east: Double(k / 17) * 700,
        radius: 40 + Double(k % 7) * 13.25, customData: ["k": .number(Double(k))])
      if k % 3 == 0 { zone.fences[0].name = "named \(k)" }
      zones.append(zone)
    }
    let ring = [at(north: 0, east: 0), at(north: 0, east: 300), at(north: 300, east: 300),
                at(north: 0, east: 0)]
    let square = MultiPolygon(try Polygon(exterior: ring))
    zones.append(
      Zone(
        id: "mixed", name: "Mixed", description: "two fences and a line",
        fences: [
          Fence(id: "mixed-b", name: "B", area: .polygon(square)),
          try .circle(id: "mixed-a", center: at(north: 5_000, east: 5_000), radius: 250),
        ],
        geolines: [try geoline("mixed-line", [(0, -500), (0, 500)])],
        rules: ZoneRules(dwell: 60, exitHysteresis: 5)))
    return zones
  }

  @Test func zonesComeBackExactlyAsAdded() throws {
    let added = try Self.zones()
    let evaluator = try ZoneEvaluator(zones: added)
    #expect(evaluator.zones == added.sorted { $0.id < $1.id })
    #expect(evaluator.zone(id: "mixed") == added.last)
    #expect(evaluator.zone(id: "z3")?.fences[0].name == "named 3")
    #expect(evaluator.zone(id: "z4")?.fences[0].name == nil)
    // The circle is the same value, its derived numbers included.
    #expect(evaluator.zone(id: "z5")?.fences == added[5].fences)
    #expect(evaluator.zone(id: "absent") == nil)
  }

  /// The zone table keeps only `exitOnRemove` and the rules v2 box of a zone's rules; the rest
  /// comes back from the zone's core. Every rule, set and unset, must survive that.
  @Test func rulesComeBackExactlyAsAdded() throws {
    var variants: [ZoneRules] = [
      .default,
      ZoneRules(minimumRetriggerTime: 30.5, dwell: 0.25),
      ZoneRules(dwell: nil, checkOut: false, initialTrigger: false),
      ZoneRules(checkOut: false, initialTrigger: true),
      ZoneRules(checkOut: true, initialTrigger: false),
      ZoneRules(exitHysteresis: 12.75, exitConfirmations: 1_000_000, exitOnRemove: true),
      ZoneRules(minimumRetriggerTime: -0.0, exitConfirmations: 3),
    ]
    var v2 = ZoneRules(dwell: 60)
    v2.conditions = ZoneConditions(maximumSpeed: 10)
    v2.validFrom = Timestamp(microsecondsSinceEpoch: 1_600_000_000_000_000)
    v2.exitOnRemove = true
    variants.append(v2)
    let zones = try variants.enumerated().map { k, rules in
      try circleZone("r\(k)", north: Double(k) * 900, east: 0, radius: 50, rules: rules)
    }
    let evaluator = try ZoneEvaluator(zones: zones)
    for zone in zones {
      let back = try #require(evaluator.zone(id: zone.id))
      #expect(back.rules == zone.rules, "\(zone.id)")
      #expect(back == zone)
      // -0.0 stays -0.0.
      #expect(back.rules.minimumRetriggerTime.bitPattern == zone.rules.minimumRetriggerTime.bitPattern)
    }
    #expect(MemoryLayout<CompiledZone?>.stride == 32)
  }

  /// The zone table holds a zone's custom data itself, or inside its rare parts when the zone
  /// has some (here `exitOnRemove`, a name): either way the zone and its events give it back.
  @Test func customDataComesBackWithAndWithoutRareParts() throws {
    let data: JSONObject = ["berth": .number(7), "operator": .string("NYC Ferry")]
    var named = try circleZone("named", north: 900, customData: data)
    named.name = "Pier 11"
    let zones = [
      try circleZone("plain", customData: data),
      try circleZone("removable", north: 1_800, rules: ZoneRules(exitOnRemove: true), customData: data),
      named,
      try circleZone("bare", north: 2_700),
    ]
    var evaluator = try ZoneEvaluator(zones: zones)
    for zone in zones { #expect(evaluator.zone(id: zone.id) == zone, "\(zone.id)") }
    var events: [ZoneEvent] = []
    for (k, north) in [0.0, 1_800, 900, 2_700].enumerated() {
      evaluator.process(fix(Double(k), north: north, device: "d\(k)"), into: &events)
    }
    #expect(events.map(\.zone) == ["plain", "removable", "named", "bare"])
    #expect(events.map(\.customData) == [data, data, data, [:]])
  }

  /// A zone's slots: one without an array; several with the fence count at the array's head,
  /// which no reader sees as a slot.
  @Test func elementSlotsGiveFencesThenGeolines() {
    func read(_ slots: ElementSlots) -> (all: [Int32], fences: [Int32], count: Int, fenceCount: Int) {
      var all: [Int32] = []
      var fences: [Int32] = []
      slots.forEach { all.append($0) }
      slots.forEachFence { fences.append($0) }
      return (all, fences, slots.count, slots.fenceCount)
    }
    let mixed = read(ElementSlots([7, 3, 9, 12, 4], fences: 3))
    #expect(mixed.all == [7, 3, 9, 12, 4] && mixed.fences == [7, 3, 9])
    #expect(mixed.count == 5 && mixed.fenceCount == 3)
    let lines = read(ElementSlots([5, 6], fences: 0))
    #expect(lines.all == [5, 6] && lines.fences.isEmpty && lines.count == 2 && lines.fenceCount == 0)
    let fence = read(ElementSlots([8], fences: 1))
    #expect(fence.all == [8] && fence.fences == [8] && fence.count == 1 && fence.fenceCount == 1)
    let line = read(ElementSlots([8], fences: 0))
    #expect(line.all == [8] && line.fences.isEmpty && line.count == 1 && line.fenceCount == 0)
    let run = read(ElementSlots(first: 20, count: 4, fences: 2))
    #expect(run.all == [20, 21, 22, 23] && run.fences == [20, 21] && run.count == 4 && run.fenceCount == 2)
    #expect(MemoryLayout<ElementSlots>.size == 8)
  }

  @Test func replacedAndRemovedZonesLeaveNoFencesOrNamesBehind() throws {
    var added = try Self.zones()
    var evaluator = try ZoneEvaluator(zones: added)
    // Replace a named zone by one without names, with another fence in another place.
    var replacement = try circleZone("z3", fence: "z3-other", north: 100, east: 100, radius: 75)
    replacement.customData = ["new": .bool(true)]
    try evaluator.add(replacement)
    added[3] = replacement
    // Remove a named zone; add a new one that reuses its element slot, without a name.
    let removed = evaluator.remove(zoneID: "z6")
    #expect(removed)
    added.remove(at: 6)
    let reuse = try circleZone("new", north: -100, east: -100)
    try evaluator.add(reuse)
    added.append(reuse)
    #expect(evaluator.zones == added.sorted { $0.id < $1.id })
    #expect(evaluator.zone(id: "new")?.fences[0].name == nil)
    #expect(evaluator.zone(id: "z3")?.fences.map(\.id) == ["z3-other"])
  }
}
