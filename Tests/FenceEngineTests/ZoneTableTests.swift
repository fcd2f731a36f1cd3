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
