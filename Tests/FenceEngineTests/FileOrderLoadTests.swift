import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceEngine

/// A first large load is applied in the order of its array, then permuted into the slots that
/// applying it in spatial order gives (`ZoneEvaluator+FileOrder.swift`): the evaluator's state
/// must be exactly that of the spatial-order path, table by table.
@Suite struct FileOrderLoadTests {
  /// The 400 grid zones of `BulkLoadTests` (every fifth with a GEOLINE), shuffled so that file
  /// order and spatial order differ, and six zones of two named fences each.
  static func zones() throws -> [Zone] {
    var zones = try BulkLoadTests.gridZones()
    var generator = SeededGenerator(seed: 12)
    zones.shuffle(using: &generator)
    for index in 0..<6 {
      let east = Double(index) * 400 + 75
      zones.insert(
        Zone(
          id: "pair\(index)",
          fences: [
            try .circle(id: "pair\(index)-b", name: "b", center: at(north: 1_500, east: east), radius: 60),
            try .circle(id: "pair\(index)-a", center: at(north: 1_580, east: east), radius: 50),
          ]),
        at: index * 60)
    }
    return zones
  }

  /// A fix inside both fences of a pair checks in through the fence with the lower id, which
  /// comes second in its zone (rank 0 in `elementRanks`), on both load paths, and again after
  /// the slots were freed and taken by zones of other shapes.
  @Test func aFixInsideTwoFencesChecksInThroughTheLowerID() throws {
    let zones = try Self.zones()
    for fileOrderAllowed in [true, false] {
      var evaluator = ZoneEvaluator()
      try evaluator.add(zones, fileOrderAllowed: fileOrderAllowed)
      var events: [ZoneEvent] = []
      evaluator.process(fix(0, north: 1_545, east: 75, device: "d"), into: &events)
      // (The fix is inside a grid zone too.)
      #expect(events.map(describe) == ["0 checkIn d pair0/pair0-a", "0 checkIn d z201/z201-fence"])
      // The pairs go, single-fence zones take their slots, then a zone of three fences.
      #expect(evaluator.remove(zoneIDs: (0..<6).map { "pair\($0)" }) == 6)
      try evaluator.add(
        (0..<6).map { try circleZone("solo\($0)", north: 1_545, east: Double($0) * 400 + 75, radius: 30) })
      #expect(evaluator.elementRanks.allSatisfy { $0 == 0 })
      try evaluator.add([
        Zone(
          id: "triple",
          fences: [
            try .circle(id: "t3", center: at(north: 3_000, east: 0), radius: 100),
            try .circle(id: "t1", center: at(north: 3_050, east: 0), radius: 100),
            try .circle(id: "t2", center: at(north: 3_025, east: 0), radius: 100),
          ])
      ])
      events = []
      evaluator.process(fix(10, north: 3_020, east: 0, device: "e"), into: &events)
      #expect(events.map(describe) == ["10 checkIn e triple/t1"])
      #expect(evaluator.elementRanks.filter { $0 != 0 }.sorted() == [1, 2])
    }
  }

  @Test func fileOrderGivesTheTablesOfSpatialOrder() throws {
    let zones = try Self.zones()
    #expect(ZoneEvaluator().canApplyInFileOrder(zones))
    var fileOrder = ZoneEvaluator()
    try fileOrder.add(zones, fileOrderAllowed: true)
    var spatialOrder = ZoneEvaluator()
    try spatialOrder.add(zones, fileOrderAllowed: false)

    #expect(fileOrder.zoneSlots.count == 406)
    #expect(fileOrder.zoneSlots.map { $0?.id } == spatialOrder.zoneSlots.map { $0?.id })
    #expect(fileOrder.elementIDs.count == 492)
    #expect(fileOrder.elementIDs == spatialOrder.elementIDs)
    #expect(fileOrder.zoneSlots.map(slotList) == spatialOrder.zoneSlots.map(slotList))
    #expect(fileOrder.elementCores.map(\.zone) == spatialOrder.elementCores.map(\.zone))
    #expect(fileOrder.elementRanks == spatialOrder.elementRanks)
    #expect(fileOrder.elementRanks.count == 492 && fileOrder.elementRanks.filter { $0 == 1 }.count == 6)
    #expect(fileOrder.elementCores.map(\.kind) == spatialOrder.elementCores.map(\.kind))
    #expect(
      fileOrder.elementCores.map(\.degreeTest.center) == spatialOrder.elementCores.map(\.degreeTest.center))
    #expect(fileOrder.elementCores.map(\.radius) == spatialOrder.elementCores.map(\.radius))
    #expect(fileOrder.elementCores.filter { $0.radius > 0 }.count == spatialOrder.elementCores.filter { $0.kind == .circle }.count)
    #expect(
      fileOrder.elementCores.map { $0.polygonTest != nil } == spatialOrder.elementCores.map { $0.polygonTest != nil })
    #expect(fileOrder.geolineShapes.map { $0?.line.vertices } == spatialOrder.geolineShapes.map { $0?.line.vertices })
    #expect(fileOrder.zoneCores.map(\.addedSequence) == spatialOrder.zoneCores.map(\.addedSequence))
    #expect(fileOrder.zoneCores.map(\.dwell) == spatialOrder.zoneCores.map(\.dwell))
    #expect(fileOrder.fenceNames == spatialOrder.fenceNames)
    #expect(fileOrder.fenceNames.count == 6)
    #expect(fileOrder.addSequence == spatialOrder.addSequence)
    // The id tables were filed in the same order: their buckets are walked in the same order.
    // (The file-order load defers its zone id table; built, it is filed as the other's.)
    #expect(fileOrder.zoneSlotByID.isDeferred && !spatialOrder.zoneSlotByID.isDeferred)
    #expect(filedOrder(fileOrder) == filedOrder(spatialOrder))
    #expect(filedOrder(fileOrder.elementSlotByID) == filedOrder(spatialOrder.elementSlotByID))
    #expect(fileOrder.zones == zones.sorted { $0.id < $1.id })
    #expect(fileOrder.snapshot().encoded() == spatialOrder.snapshot().encoded())

    // And the same events for the same walks.
    let fixes = BulkLoadTests.walks()
    let expected = replayEvents(fixes, through: &spatialOrder, advancingBy: 100)
    #expect(expected.count > 100)
    #expect(replayEvents(fixes, through: &fileOrder, advancingBy: 100) == expected)
  }

  /// A first zone set given to `replaceAll` (a store's) takes the file-order path too, with the
  /// same state as `add`'s.
  @Test func aFirstReplaceAllIsAFirstLoad() throws {
    let zones = try Self.zones()
    var replaced = ZoneEvaluator()
    try replaced.replaceAll(with: zones)
    var added = ZoneEvaluator()
    try added.add(zones, fileOrderAllowed: false)
    #expect(replaced.elementIDs == added.elementIDs)
    #expect(replaced.elementCores.map(\.zone) == added.elementCores.map(\.zone))
    #expect(replaced.snapshot().encoded() == added.snapshot().encoded())
  }

  /// Loads that are not a first one, or that carry rules v2, take the spatial-order path.
  @Test func onlyFirstLoadsWithoutRulesV2GoInFileOrder() throws {
    let zones = try Self.zones()
    var loaded = ZoneEvaluator()
    try loaded.add(try circleZone("first"))
    #expect(!loaded.canApplyInFileOrder(zones))
    #expect(!ZoneEvaluator().canApplyInFileOrder(Array(zones.prefix(255))))
    var conditioned = zones
    conditioned[7].rules.conditions = ZoneConditions(maximumSpeed: 10)
    #expect(!ZoneEvaluator().canApplyInFileOrder(conditioned))
    var expiring = zones
    expiring[9].rules.validUntil = t(1_000)
    #expect(!ZoneEvaluator().canApplyInFileOrder(expiring))
  }

  @Test func permutingTakesEachValueFromItsSource() {
    var table = ["a", "b", "c", "d", "e", "f"]
    // Two cycles (0 ← 2 ← 4 ← 0 and 1 ← 5 ← 1) and a fixed point (3).
    ZoneEvaluator.permute(&table, takingFrom: [2, 5, 4, 3, 0, 1], leaving: "")
    #expect(table == ["c", "f", "e", "d", "a", "b"])
  }

  private func slotList(_ zone: CompiledZone?) -> [Int32] {
    var slots: [Int32] = []
    zone?.slots.forEach { slots.append($0) }
    return slots
  }

  private func filedOrder(_ evaluator: ZoneEvaluator) -> [Int32] {
    evaluator.zoneSlots.withUnsafeBufferPointer {
      filedOrder(evaluator.zoneSlotByID.builtTable(zones: $0))
    }
  }

  private func filedOrder(_ table: IDSlotTable) -> [Int32] {
    var slots: [Int32] = []
    table.forEachSlot { slots.append($0) }
    return slots
  }
}
