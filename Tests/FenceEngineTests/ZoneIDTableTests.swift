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
}
