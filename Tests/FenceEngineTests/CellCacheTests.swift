import FenceEngine
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// The cell cache (`Configuration.cellCacheCapacity`) only saves work: the events must be
/// exactly those of an evaluator without it, with a cache large enough to keep every cell and
/// with one so small that it is emptied every few fixes.
@Suite struct CellCacheTests {
  /// The harbor zones, Manhattan (33 parts), and a grid of circles of 200 m to 1.6 km over the
  /// harbor, so that fixes meet cells wholly inside, wholly outside and across boundaries.
  static func harborAndManhattanZones() throws -> [Zone] {
    var zones = try HarborTests.harborZones()
    let manhattan = try #require(
      try PolygonFixtures.read(
        path: fixturePath("polygons/nyc-manhattan.geojson"), nameProperty: "name"
      ).first)
    zones.append(Zone(
      id: "manhattan", fences: [Fence(id: "manhattan-shore", area: .polygon(manhattan.shape))],
      rules: ZoneRules(dwell: 300, exitHysteresis: 20)))
    for row in 0..<6 {
      for column in 0..<6 {
        let center = try Coordinate(
          latitude: 40.58 + Double(row) * 0.03, longitude: -74.12 + Double(column) * 0.025)
        zones.append(Zone(
          id: "circle-\(row)-\(column)",
          fences: [try .circle(
            id: "circle-\(row)-\(column)-area", center: center,
            radius: 200 + Double((row * 6 + column) % 8) * 200)],
          rules: ZoneRules(minimumRetriggerTime: Double(column) * 60, dwell: 120)))
      }
    }
    return zones
  }

  static func replay(
    _ zones: [Zone], _ fixes: [LocationFix], capacity: Int, skipping: Bool = false
  ) throws -> (events: [ZoneEvent], hits: Int, fills: Int, accepted: Int) {
    var evaluator = try ZoneEvaluator(
      configuration: .init(skipsUnchangedFixes: skipping, cellCacheCapacity: capacity),
      zones: zones)
    let events = replayEvents(fixes, through: &evaluator, advancingBy: 3600)
    let statistics = evaluator.cellCacheStatistics
    return (events, statistics.hits, statistics.fills, evaluator.acceptedFixCount)
  }

  @Test func harborHourGivesTheSameEventsWithAndWithoutTheCache() throws {
    let zones = try Self.harborAndManhattanZones()
    let fixes = try HarborTests.fixes(fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv"))
    #expect(fixes.count == 8_689)
    let plain = try Self.replay(zones, fixes, capacity: 0)
    #expect(plain.hits == 0 && plain.fills == 0)
    #expect(plain.events.count == 531)
    let tiny = try Self.replay(zones, fixes, capacity: 8)
    #expect(tiny.events == plain.events)
    let full = try Self.replay(zones, fixes, capacity: 65_536)
    #expect(full.events == plain.events)
    // Every accepted fix is answered by a filed cell (or a parent with nothing to test) or
    // files one: 691 cells, from 814 parents (the table grows once, past 1,024 entries).
    #expect(full.accepted == 8_687)
    #expect(full.hits == full.accepted - 691)
    #expect(full.fills == 691 + 814)
    #expect(tiny.fills > full.fills)
    let skipping = try Self.replay(zones, fixes, capacity: 65_536, skipping: true)
    #expect(skipping.events == plain.events)
  }

  @Test(.enabled(if: HarborTests.hasWeek))
  func harborWeekGivesTheSameEventsWithAndWithoutTheCache() throws {
    let zones = try Self.harborAndManhattanZones()
    let fixes = Array(try HarborTests.fixes(HarborTests.weekPath).prefix(40_000))
    let plain = try Self.replay(zones, fixes, capacity: 0)
    let full = try Self.replay(zones, fixes, capacity: 65_536)
    #expect(full.events == plain.events)
    #expect(plain.events.count > 1_000)
    #expect(Double(full.hits) > 0.8 * Double(full.accepted))
  }

  /// Devices wander with jitter across star-shaped polygons with holes and circles, while
  /// zones are added, replaced and removed: each change must empty the cache.
  @Test func syntheticWalksWithZoneChangesGiveTheSameEvents() throws {
    func star(_ id: String, north: Double, east: Double, spikes: Int) throws -> Zone {
      var ring: [Coordinate] = []
      for k in 0..<(2 * spikes) {
        let angle = Double(k) * .pi / Double(spikes)
        let reach = k % 2 == 0 ? 400.0 : 150.0
        ring.append(at(north: north + reach * sin(angle), east: east + reach * cos(angle)))
      }
      ring.append(ring[0])
      let hole = [
        at(north: north - 40, east: east - 40), at(north: north - 40, east: east + 40),
        at(north: north + 40, east: east + 40), at(north: north + 40, east: east - 40),
        at(north: north - 40, east: east - 40),
      ]
      return Zone(
        id: id,
        fences: [Fence(
          id: "\(id)-area", area: .polygon(MultiPolygon(try Polygon(exterior: ring, holes: [hole]))))],
        rules: ZoneRules(minimumRetriggerTime: 30, dwell: 20, exitConfirmations: 2))
    }
    var zones: [Zone] = []
    for k in 0..<9 {
      zones.append(try star("star-\(k)", north: Double(k / 3) * 700, east: Double(k % 3) * 700, spikes: 5 + k))
      zones.append(try circleZone(
        "circle-\(k)", north: Double(k / 3) * 700 + 300, east: Double(k % 3) * 700 - 250,
        radius: 120, rules: ZoneRules(exitHysteresis: 10)))
    }
    let replacement = try star("star-4", north: 760, east: 640, spikes: 3)
    let added = try circleZone("late", north: 350, east: 350, radius: 500)

    var generator = SeededGenerator(seed: 21)
    var positions = (0..<12).map { _ in
      (generator.double(in: -300...1_700), generator.double(in: -300...1_700))
    }
    var batches: [[LocationFix]] = []
    for step in 0..<3 {
      var batch: [LocationFix] = []
      for second in (step * 400)..<((step + 1) * 400) {
        for d in positions.indices {
          positions[d].0 += generator.double(in: -25...25)
          positions[d].1 += generator.double(in: -25...25)
          batch.append(fix(
            Double(second), north: positions[d].0, east: positions[d].1, device: "d\(d)"))
        }
      }
      batches.append(batch)
    }

    func run(capacity: Int) throws -> [ZoneEvent] {
      var evaluator = try ZoneEvaluator(
        configuration: .init(cellCacheCapacity: capacity), zones: zones)
      var events: [ZoneEvent] = []
      for fix in batches[0] { evaluator.process(fix, into: &events) }
      try evaluator.add(replacement)
      try evaluator.add(added)
      for fix in batches[1] { evaluator.process(fix, into: &events) }
      evaluator.remove(zoneID: "star-1")
      evaluator.remove(zoneID: "late")
      for fix in batches[2] { evaluator.process(fix, into: &events) }
      return events
    }
    let plain = try run(capacity: 0)
    #expect(plain.count > 300)
    #expect(try run(capacity: 4) == plain)
    #expect(try run(capacity: 65_536) == plain)
  }
}
