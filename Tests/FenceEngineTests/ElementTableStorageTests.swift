import FenceGeometry
import Testing

@testable import FenceEngine

/// Only circles have an element detail, only polygons a polygon fence, only GEOLINEs a GEOLINE
/// shape: each table is empty while the evaluator holds no element of its kind and comes with
/// the first one (blank or `nil` for the slots before it). A GEOLINE finds its public value by
/// its position among its zone's slots.
@Suite struct ElementTableStorageTests {
  static func square(_ id: String, east: Double) throws -> Zone {
    let ring = [at(north: 0, east: east), at(north: 0, east: east + 300),
                at(north: 300, east: east + 300), at(north: 0, east: east)]
    return Zone(id: id, fences: [Fence(id: id, area: .polygon(MultiPolygon(try Polygon(exterior: ring))))])
  }

  @Test func polygonsAloneKeepNoDetails() throws {
    // A first load large enough for the file-order path, and a small one.
    for count in [3, 300] {
      let zones = try (0..<count).map { try Self.square("p\($0)", east: Double($0) * 500) }
      var evaluator = try ZoneEvaluator(zones: zones)
      #expect(evaluator.elementDetails.isEmpty)
      #expect(evaluator.elementIDs.count == count)
      // The first circle brings the table: blank for the polygons, the circle's own values.
      let circle = try circleZone("c", north: 900, east: 0, radius: 75)
      try evaluator.add([circle])
      #expect(evaluator.elementDetails.count == count + 1)
      let slot = try #require(evaluator.elementCores.firstIndex { $0.kind == .circle })
      #expect(evaluator.elementDetails[slot].radius == 75)
      #expect(evaluator.elementDetails.indices.filter { evaluator.elementDetails[$0].radius != 0 } == [slot])
      #expect(evaluator.zone(id: "c") == circle)
      // Later polygons get a blank detail; a removed circle's is blanked.
      try evaluator.add([try Self.square("late", east: -900)])
      #expect(evaluator.elementDetails.count == count + 2)
      let removed = evaluator.remove(zoneID: "c")
      #expect(removed)
      #expect(evaluator.elementDetails.allSatisfy { $0.radius == 0 && $0.localRadius == 0 })
      #expect(evaluator.zones.count == count + 1)
    }
  }

  @Test func circlesAloneKeepNoPolygonOrGeolineTables() throws {
    for count in [3, 300] {
      let zones = try (0..<count).map {
        try circleZone("c\($0)", north: 0, east: Double($0) * 400, radius: 60)
      }
      var evaluator = try ZoneEvaluator(zones: zones)
      #expect(evaluator.polygonFences.isEmpty)
      #expect(evaluator.geolineShapes.isEmpty)
      #expect(evaluator.elementDetails.count == count)
      try evaluator.add([try Self.square("p", east: -2_000)])
      #expect(evaluator.polygonFences.count == count + 1)
      #expect(evaluator.polygonFences.compactMap { $0 }.count == 1)
      #expect(evaluator.geolineShapes.isEmpty)
      try evaluator.add([Zone(id: "g", geolines: [try geoline("g0", [(-900, 0), (-900, 400)])])])
      #expect(evaluator.geolineShapes.count == count + 2)
      #expect(evaluator.polygonFences.count == count + 2)
      #expect(evaluator.geolineShapes.compactMap { $0 }.map(\.line.vertices.count) == [2])
      #expect(evaluator.zones.count == count + 2)
      #expect(evaluator.zone(id: "p") == (try Self.square("p", east: -2_000)))
      let removed = evaluator.remove(zoneID: "p")
      #expect(removed)
      #expect(evaluator.polygonFences.allSatisfy { $0 == nil })
    }
  }

  @Test func aGeolineIsBoxedFromItsPlaceInItsZone() throws {
    let lines = [
      try geoline("l0", [(0, -500), (0, 500)]),
      try geoline("l1", [(2_000, 100), (2_600, 900)]),
      try geoline("l2", [(-3_000, -40), (-2_000, 40)]),
    ]
    let zone = Zone(
      id: "z",
      fences: [
        try .circle(id: "a", center: at(north: 5_000, east: 5_000), radius: 250),
        Fence(id: "b", area: try Self.square("b", east: 7_000).fences[0].area),
      ],
      geolines: lines)
    let evaluator = try ZoneEvaluator(zones: [zone])
    for line in lines {
      let slot = try #require(evaluator.elementSlot(id: line.id))
      #expect(evaluator.elementBox(slot) == line.line.boundingBox)
    }
    #expect(MemoryLayout<ElementDetail>.stride == 48)
  }
}
