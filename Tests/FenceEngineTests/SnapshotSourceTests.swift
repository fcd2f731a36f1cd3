import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceEngine

/// A store's snapshot copy (`ZoneEvaluator.SnapshotSource`) keeps the state of the moment it
/// was taken, while the original goes on changing zones without copying the tables the copy
/// no longer shares: the spatial indexes and element id table (left out of the copy), and the
/// zone tables once the copy made its own (`ownZoneTables()`, on the snapshot's thread).
@Suite struct SnapshotSourceTests {
  private static func address<T>(_ table: [T]) -> UnsafeRawPointer? {
    table.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  /// Where the original's zone and element tables live.
  private static func addresses(_ evaluator: ZoneEvaluator) -> [UnsafeRawPointer?] {
    [
      address(evaluator.zoneSlots), address(evaluator.elementIDs), address(evaluator.elementCores),
      address(evaluator.elementRanks),
    ]
  }

  @Test(arguments: [true, false])
  func aCopyWithItsOwnTablesKeepsItsStateWhileTheOriginalChangesInPlace(fileOrder: Bool) throws {
    let zones = try FileOrderLoadTests.zones()  // 406 zones, 492 elements
    var evaluator = ZoneEvaluator()
    try evaluator.add(zones, fileOrderAllowed: fileOrder)
    var events: [ZoneEvent] = []
    for fix in SnapshotTests.walks(seed: 3, count: 300) { evaluator.process(fix, into: &events) }
    #expect(!events.isEmpty)
    let before = evaluator.snapshot()
    let zonesBefore = evaluator.zones
    let removedID = zonesBefore[5].id

    let source = evaluator.snapshotSource()
    source.ownZoneTables()
    let owned = Self.addresses(evaluator)
    let removed = evaluator.remove(zoneID: removedID)
    #expect(removed)
    try evaluator.add(try circleZone("after-the-capture", north: -3_000, radius: 50))
    // The original changed its tables in place: none was copied.
    #expect(Self.addresses(evaluator) == owned)
    #expect(evaluator.zone(id: removedID) == nil)
    #expect(evaluator.zoneCount == 406)

    // The copy still holds the state of the capture, zones and devices alike, and finds its
    // zones by id.
    let copy = try #require(source.copy)
    #expect(copy.snapshot() == before)
    #expect(copy.snapshot().encoded() == before.encoded())
    #expect(copy.zones == zonesBefore)
    #expect(copy.zone(id: removedID) == zonesBefore[5])
    #expect(copy.zone(id: "after-the-capture") == nil)

    source.releaseAllButGEOS()
    #expect(source.copy == nil)
    source.release()
  }

  @Test func withoutItsOwnTablesTheCopyStillKeepsItsStateAndTheOriginalCopiesOnce() throws {
    let zones = try FileOrderLoadTests.zones()
    var evaluator = ZoneEvaluator()
    try evaluator.add(zones)
    let before = evaluator.snapshot()
    let source = evaluator.snapshotSource()
    let shared = Self.addresses(evaluator)
    let removed = evaluator.remove(zoneID: zones[0].id)
    #expect(removed)
    let copied = Self.addresses(evaluator)
    #expect(copied[0] != shared[0] && copied[2] != shared[2])
    // The copy's own tables are then the ones it held: asking for them copies nothing more.
    source.ownZoneTables()
    #expect(Self.addresses(try #require(source.copy)) == shared)
    #expect(try #require(source.copy).snapshot() == before)
    source.release()
  }
}
