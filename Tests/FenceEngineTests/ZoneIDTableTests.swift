import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceEngine

/// After a first large load the zone id table is built on first use (`ZoneIDTable`): every
/// lookup, change, copy and snapshot must behave exactly as with the table filed at the load.
@Suite struct ZoneIDTableTests {
  /// 407 zones, one of them with a fence named as the zone: a load large enough to take the
  /// file-order path.
  private func loaded() throws -> (ZoneEvaluator, [Zone]) {
    let zones =
      try FileOrderLoadTests.zones() + [try circleZone("own", fence: "own", north: -900, radius: 30)]
    var evaluator = ZoneEvaluator()
    try evaluator.add(zones)
    return (evaluator, zones)
  }

  @Test func lookupsFindEveryZoneWithoutMaterializing() throws {
    let (evaluator, zones) = try loaded()
    #expect(evaluator.zoneSlotByID.isDeferred)
    #expect(evaluator.zoneCount == 407)
    for zone in zones { #expect(evaluator.zone(id: zone.id) == zone) }
    #expect(evaluator.zone(id: "nowhere") == nil)
    // A fence found through its zone (its id is its zone's), and others.
    #expect(evaluator.elementSlot(id: "own") != nil)
    #expect(evaluator.elementSlot(id: "pair3-a") != nil)
    #expect(evaluator.elementSlot(id: "z201-fence") != nil)
    #expect(evaluator.elementSlot(id: "z201") == nil)
    // The lookups built the table in the shared box; the evaluator's own value waits still.
    #expect(evaluator.zoneSlotByID.isDeferred)
    // Slot for slot, the table an eager load files.
    var eager = ZoneEvaluator()
    try eager.add(zones, fileOrderAllowed: false)
    #expect(!eager.zoneSlotByID.isDeferred)
    for zone in zones {
      #expect(evaluator.zoneSlot(id: zone.id) == eager.zoneSlot(id: zone.id))
    }
  }

  /// The build handed out for another thread (a daemon's, after a load or restore) fills the
  /// shared box once: handed out once, run on another thread, then every lookup finds the eager
  /// table's slots, and the first change takes the built table as the evaluator's own.
  @Test func theHandedOutBuildFillsTheBoxOnce() async throws {
    var (evaluator, zones) = try loaded()
    let build = try #require(evaluator.deferredZoneIDTableBuild())
    #expect(evaluator.deferredZoneIDTableBuild() == nil)
    #expect(!evaluator.zoneSlotByID.isBuiltInBox)
    await Task.detached { build() }.value
    #expect(evaluator.zoneSlotByID.isDeferred)
    #expect(evaluator.zoneSlotByID.isBuiltInBox)
    var eager = ZoneEvaluator()
    try eager.add(zones, fileOrderAllowed: false)
    for zone in zones { #expect(evaluator.zoneSlot(id: zone.id) == eager.zoneSlot(id: zone.id)) }
    #expect(evaluator.zoneSlot(id: "nowhere") == nil)
    let removed = evaluator.remove(zoneID: zones[3].id)
    #expect(removed)
    #expect(!evaluator.zoneSlotByID.isDeferred)
    #expect(evaluator.deferredZoneIDTableBuild() == nil)
    #expect(evaluator.zoneCount == 406)
    #expect(evaluator.zone(id: zones[3].id) == nil)
    for zone in zones where zone.id != zones[3].id {
      #expect(evaluator.zoneSlot(id: zone.id) == eager.zoneSlot(id: zone.id))
    }
    // An evaluator whose table is filed eagerly has no build to hand out.
    #expect(eager.deferredZoneIDTableBuild() == nil)
  }

  /// A change materializes the table in the evaluator changed; a copy taken before keeps its
  /// own zones, deferred, whether or not a lookup built the shared table first.
  @Test(arguments: [false, true])
  func changesLeaveCopiesAsTheyWere(lookedUpFirst: Bool) throws {
    var (evaluator, zones) = try loaded()
    if lookedUpFirst { #expect(evaluator.zone(id: zones[5].id) == zones[5]) }
    let copy = evaluator
    let removed = evaluator.remove(zoneID: zones[0].id)
    #expect(removed)
    #expect(!evaluator.zoneSlotByID.isDeferred)
    #expect(evaluator.zoneCount == 406)
    #expect(evaluator.zone(id: zones[0].id) == nil)
    try evaluator.add(try circleZone("fresh", north: 9_000, east: 9_000, radius: 40))
    #expect(evaluator.zoneCount == 407)
    #expect(evaluator.zone(id: "fresh")?.fences.map(\.id) == ["fresh-fence"])

    #expect(copy.zoneSlotByID.isDeferred)
    #expect(copy.zoneCount == 407)
    #expect(copy.zone(id: zones[0].id) == zones[0])
    #expect(copy.zone(id: "fresh") == nil)
    for zone in zones.dropFirst() { #expect(evaluator.zone(id: zone.id) == zone) }
  }

  /// The first change after the load adds, replaces, or replaces everything: the table it
  /// builds is the whole zone table, before and after the change.
  @Test func theFirstChangeBuildsTheWholeTable() throws {
    var (added, zones) = try loaded()
    try added.add(try circleZone("fresh", north: 9_000, east: 9_000, radius: 40))
    #expect(added.zoneCount == 408)
    #expect(added.zones.map(\.id) == (zones.map(\.id) + ["fresh"]).sorted())

    var (replaced, _) = try loaded()
    var changed = zones[7]
    changed.customData = ["berth": .number(7)]
    try replaced.add(changed)
    #expect(replaced.zoneCount == 407)
    #expect(replaced.zone(id: changed.id) == changed)

    var (everything, _) = try loaded()
    let half = Array(zones.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
    try everything.replaceAll(with: half)
    #expect(everything.zoneCount == 204)
    #expect(everything.zones == half.sorted { $0.id < $1.id })
    #expect(everything.zone(id: zones[1].id) == nil)
  }

  /// A snapshot restores into an evaluator whose table is deferred, and reads the same.
  @Test func snapshotsRestoreIntoADeferredTable() throws {
    var (source, _) = try loaded()
    var events: [ZoneEvent] = []
    for fix in BulkLoadTests.walks().prefix(300) { source.process(fix, into: &events) }
    #expect(events.count > 10)
    var (restored, _) = try loaded()
    try restored.restore(source.snapshot())
    #expect(restored.snapshot().encoded() == source.snapshot().encoded())
  }

  /// Random changes, lookups, copies and fixes, the same on an evaluator whose table was
  /// deferred and on one that filed it at the load: every answer, count, zone list, event and
  /// snapshot the same, and a copy taken along the way keeps what it had.
  @Test(arguments: [UInt64(71), 72, 73])
  func randomChangesAnswerAsTheEagerTable(seed: UInt64) throws {
    let (start, zones) = try loaded()
    var deferred = start
    var eager = ZoneEvaluator()
    try eager.add(zones, fileOrderAllowed: false)
    var random = SeededGenerator(seed: seed)
    var ids = zones.map(\.id)
    var fresh = 0
    var copies: [(ZoneEvaluator, [String])] = []
    let fixes = BulkLoadTests.walks()
    var next = 0
    for step in 0..<120 {
      switch random.int(below: 6) {
      case 0:
        let id = ids[random.int(below: ids.count)]
        #expect(deferred.zone(id: id) == eager.zone(id: id))
        #expect(deferred.zoneSlot(id: id) != nil)
      case 1 where ids.count > 10:
        let id = ids.remove(at: random.int(below: ids.count))
        let a = deferred.remove(zoneID: id)
        let b = eager.remove(zoneID: id)
        #expect(a && b)
      case 2:
        fresh += 1
        let zone = try circleZone(
          "fresh\(fresh)", north: random.double(in: -500...3_000), east: random.double(in: -500...3_000),
          radius: 60)
        try deferred.add(zone)
        try eager.add(zone)
        ids.append(zone.id)
      case 3:
        var zone = try #require(eager.zone(id: ids[random.int(below: ids.count)]))
        zone.customData = ["step": .number(Double(step))]
        try deferred.add(zone)
        try eager.add(zone)
      case 4:
        copies.append((deferred, ids))
      default:
        var a: [ZoneEvent] = []
        var b: [ZoneEvent] = []
        for fix in fixes[next..<min(next + 40, fixes.count)] {
          deferred.process(fix, into: &a)
          eager.process(fix, into: &b)
        }
        next = min(next + 40, fixes.count)
        #expect(a == b)
      }
      #expect(deferred.zoneCount == ids.count && eager.zoneCount == ids.count)
      #expect(deferred.zone(id: "nowhere") == nil)
    }
    #expect(deferred.zones == eager.zones)
    #expect(deferred.snapshot().encoded() == eager.snapshot().encoded())
    for (copy, copyIDs) in copies {
      #expect(copy.zoneCount == copyIDs.count)
      #expect(copyIDs.allSatisfy { copy.zoneSlot(id: $0) != nil })
    }
  }
}
