import FenceGeometry
import Testing

@testable import FenceEngine

/// A circle's core keeps its radius and makes its circle again; only polygons have a polygon
/// fence, only GEOLINEs a GEOLINE shape: each of those tables is empty while the evaluator holds
/// no element of its kind and comes with the first one (`nil` for the slots before it). A GEOLINE finds its public value by
/// its position among its zone's slots.
@Suite struct ElementTableStorageTests {
  static func square(_ id: String, east: Double) throws -> Zone {
    let ring = [at(north: 0, east: east), at(north: 0, east: east + 300),
                at(north: 300, east: east + 300), at(north: 0, east: east)]
    return Zone(id: id, fences: [Fence(id: id, area: .polygon(MultiPolygon(try Polygon(exterior: ring))))])
  }

  /// A circle's core keeps its radius in the 8 bytes a polygon's keeps its test in, and makes
  /// the circle again bit for bit: no table of circle details (48 bytes a circle).
  @Test func aCirclesCoreRemakesTheCircleAdded() throws {
    let centers = [
      (40.7, -74.0), (0, 0), (-33.8688, 151.2093), (89.999, 179.9), (-89.5, -180),
      (60.123456789, 24.987654321),
    ]
    for (latitude, longitude) in centers {
      for radius in [0.001, 1, 99.9, 100, 487.3, 25_000, 300_000] {
        let circle = try Circle(
          center: try Coordinate(latitude: latitude, longitude: longitude), radius: radius)
        let core = ElementCore(fence: .circle(circle), zone: 3, nativePolygonTest: true)
        #expect(core.kind == .circle)
        #expect(core.radius.bitPattern == radius.bitPattern)
        #expect(core.polygonTest == nil)
        let remade = core.circle
        #expect(remade == circle)
        #expect(remade.centerECEF.x.bitPattern == circle.centerECEF.x.bitPattern)
        #expect(remade.chordSquaredLimit.bitPattern == circle.chordSquaredLimit.bitPattern)
        #expect(remade.localRadius.bitPattern == circle.localRadius.bitPattern)
      }
    }
  }

  @Test func aPolygonsCoreHoldsItsTestAndNoRadius() throws {
    let area = try Self.square("p", east: 0).fences[0].area
    let native = ElementCore(fence: area, zone: 0, nativePolygonTest: true)
    let test = try #require(native.polygonTest)
    #expect(native.radius == 0)
    // The test answers as the shape does: inside, outside.
    #expect(test.contains(latitude: at(north: 50, east: 250).latitude, longitude: at(north: 50, east: 250).longitude))
    #expect(!test.contains(latitude: at(north: 50, east: 400).latitude, longitude: at(north: 50, east: 400).longitude))
    let prepared = ElementCore(fence: area, zone: 0, nativePolygonTest: false)
    #expect(prepared.polygonTest == nil)
    #expect(ElementCore().polygonTest == nil && ElementCore().radius == 0)
    #expect(ElementCore(geolineOf: 2).polygonTest == nil)
  }

  @Test func circlesComeBackFromTheirCoresAndRemovedSlotsAreBlank() throws {
    // A first load large enough for the file-order path, and a small one.
    for count in [3, 300] {
      let zones = try (0..<count).map { try Self.square("p\($0)", east: Double($0) * 500) }
      var evaluator = try ZoneEvaluator(zones: zones)
      let circle = try circleZone("c", north: 900, east: 0, radius: 75)
      try evaluator.add([circle])
      let slot = try #require(evaluator.elementCores.firstIndex { $0.kind == .circle })
      #expect(evaluator.elementCores[slot].radius == 75)
      #expect(evaluator.elementCores.indices.filter { evaluator.elementCores[$0].radius != 0 } == [slot])
      #expect(evaluator.zone(id: "c") == circle)
      let removed = evaluator.remove(zoneID: "c")
      #expect(removed)
      #expect(evaluator.elementCores[slot].kind == .vacant)
      #expect(evaluator.elementCores.allSatisfy { $0.radius == 0 })
      #expect(evaluator.zones.count == count)
    }
  }

  /// An element whose id is its zone's keeps no copy of it: the element id table is empty
  /// while every element is such, and comes with the first id of its own ("" for the slots
  /// before it). Ids, lookups, events and removals read the zone's id instead.
  @Test func idsThatAreTheirZonesAreNotKeptTwice() throws {
    // A first load large enough for the file-order path, and a small one.
    for count in [3, 300] {
      let zones = try (0..<count).map {
        try circleZone("c\($0)", fence: "c\($0)", north: 0, east: Double($0) * 400, radius: 60)
      }
      var evaluator = try ZoneEvaluator(zones: zones)
      #expect(evaluator.elementIDs.isEmpty)
      // Nor in the id table: found through their zones, counted beside it.
      #expect(evaluator.elementSlotByID.isEmpty)
      #expect(evaluator.elementCount == count)
      #expect(evaluator.zones == zones.sorted { $0.id < $1.id })
      // Still taken: another zone may not use one.
      #expect(throws: ZoneError.self) {
        try evaluator.add([try circleZone("other", fence: "c0", north: 2_000, east: 0)])
      }
      for index in 0..<count {
        let slot = try #require(evaluator.elementSlot(id: "c\(index)"))
        #expect(evaluator.elementID(at: slot) == "c\(index)")
      }
      #expect(evaluator.elementSlot(id: "c0-fence") == nil)
      #expect(run(&evaluator, [fix(0, north: 0, east: 400), fix(10, north: 0, east: 200)]) == [
        "0 checkIn a c1/c1", "10 checkOut a c1/c1 in=0 duration=10",
      ])
      // An id of its own brings the table; a GEOLINE may be named as its zone too.
      let own = try circleZone("z", fence: "z-fence", north: 900, east: 0, radius: 60)
      let lined = Zone(id: "g", geolines: [try geoline("g", [(-900, 0), (-900, 400)])])
      try evaluator.add([own, lined])
      #expect(evaluator.elementIDs.count == count + 2)
      #expect(evaluator.elementIDs.filter { !$0.isEmpty } == ["z-fence"])
      #expect(evaluator.zone(id: "z") == own && evaluator.zone(id: "g") == lined)
      #expect(evaluator.elementSlot(id: "g") != nil && evaluator.elementSlot(id: "z-fence") != nil)
      #expect(evaluator.elementSlotByID.count == 1 && evaluator.elementCount == count + 2)
      // Replaced with a fence of its own id, removed: the ids follow.
      let renamed = try circleZone("c1", fence: "c1-other", north: 0, east: 400, radius: 60)
      try evaluator.add([renamed])
      #expect(evaluator.elementSlot(id: "c1") == nil)
      #expect(evaluator.zone(id: "c1") == renamed)
      let removedC2 = evaluator.remove(zoneID: "c2")
      #expect(removedC2)
      #expect(evaluator.elementSlot(id: "c2") == nil)
      #expect(evaluator.zones.map(\.id).sorted() == (zones.map(\.id).filter { $0 != "c2" } + ["g", "z"]).sorted())
      #expect(evaluator.elementCount == count + 1)
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
  }
}
