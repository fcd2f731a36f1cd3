import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceEngine

/// A large load leaves each zone and element table room for an eighth more
/// (`ZoneEvaluator.loadCapacity(for:)`), and a zone change after a snapshot was taken keeps
/// that room: a daemon's first zones added after a load, a restore or a snapshot do not copy a
/// table to grow it.
@Suite struct LoadRoomTests {
  private static func address<T>(_ table: [T]) -> UnsafeRawPointer? {
    table.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  /// The capacities of the tables every zone change grows (the sparse ones, such as the fence
  /// ranks of zones of several fences, grow only with such zones).
  private static func capacities(_ evaluator: ZoneEvaluator) -> [Int] {
    [
      evaluator.zoneSlots.capacity, evaluator.zoneCores.capacity, evaluator.elementCores.capacity,
      evaluator.elementIDs.capacity,
    ]
  }

  @Test(arguments: [true, false])
  func aLoadLeavesRoomThatAChangeAfterASnapshotKeeps(fileOrder: Bool) throws {
    let zones = try FileOrderLoadTests.zones()  // 406 zones, 492 elements
    var evaluator = ZoneEvaluator()
    try evaluator.add(zones, fileOrderAllowed: fileOrder)
    #expect(evaluator.zoneSlotByID.isDeferred == fileOrder)
    #expect(ZoneEvaluator.loadCapacity(for: 406) == 456)
    let loaded = Self.capacities(evaluator)
    #expect(loaded[0] >= 456 && loaded[1] >= 456)
    #expect(loaded[2...].allSatisfy { $0 >= 553 })

    // A snapshot's copy shares the tables; the removal copies them with their room.
    let source = evaluator.snapshotSource()
    let shared = Self.address(evaluator.zoneSlots)
    let removed = evaluator.remove(zoneID: zones[0].id)
    #expect(removed)
    #expect(Self.address(evaluator.zoneSlots) != shared)
    #expect(Self.capacities(evaluator) == loaded)
    source.release()

    // 49 zones more fit without a table moving.
    let owned = Self.address(evaluator.zoneSlots)
    for k in 0..<49 {
      try evaluator.add(try circleZone("room\(k)", north: -2_000 - Double(k) * 300, radius: 40))
    }
    #expect(evaluator.zoneCount == 454)
    #expect(Self.address(evaluator.zoneSlots) == owned)
    #expect(Self.capacities(evaluator) == loaded)
    #expect(evaluator.zone(id: "room48")?.fences.map(\.id) == ["room48-fence"])
  }

  /// A large change after a large load (256 zones or more: reserved in one go) fits in the
  /// room the load left, without a table moving, and so does the next.
  @Test(arguments: [true, false])
  func aLargeChangeAfterALoadFitsInItsRoom(fileOrder: Bool) throws {
    func circles(_ prefix: String, _ count: Int, north: Double) throws -> [Zone] {
      try (0..<count).map { k in
        let row = Double(k / 64)
        let column = Double(k % 64)
        return try circleZone("\(prefix)\(k)", north: north + row * 150, east: column * 150, radius: 40)
      }
    }
    var evaluator = ZoneEvaluator()
    try evaluator.add(try circles("load", 4_096, north: 0), fileOrderAllowed: fileOrder)
    let loaded = Self.capacities(evaluator)
    #expect(loaded.allSatisfy { $0 >= 4_608 })
    let table = Self.address(evaluator.zoneSlots)
    try evaluator.add(try circles("more", 256, north: 20_000))
    try evaluator.add(try circles("again", 256, north: 30_000))
    #expect(evaluator.zoneCount == 4_608)
    #expect(Self.address(evaluator.zoneSlots) == table)
    #expect(Self.capacities(evaluator) == loaded)
    #expect(evaluator.zone(id: "again255")?.fences.map(\.id) == ["again255-fence"])
  }
}
