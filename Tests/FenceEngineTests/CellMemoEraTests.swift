import FenceGeometry
import Testing

@testable import FenceEngine

/// A device's cell memo keeps the cache's emptyings in 32 bits (`CellMemo`), and the device
/// state leaves the monitored set to a side table that only proximity monitoring fills.
@Suite struct CellMemoEraTests {
  /// An evaluator whose device "a" has a memo of its cell: two fixes at one point (the first
  /// visit to a parent is answered by the index, the second files the cell).
  static func evaluatorWithAMemo() throws -> ZoneEvaluator {
    var evaluator = try ZoneEvaluator(
      configuration: .init(cellCacheCapacity: 1_024),
      zones: [try circleZone("z", north: 10, east: 40, radius: 150)])
    var events: [ZoneEvent] = []
    evaluator.process(fix(0, north: 10, east: 30), into: &events)
    evaluator.process(fix(5, north: 10, east: 30), into: &events)
    #expect(events.map(\.kind) == [.checkIn])
    #expect(evaluator.devices[0].cellMemo.key != 0)
    return evaluator
  }

  /// The point of the fixes above.
  static let point = at(north: 10, east: 30)

  @Test func theMemoAnswersItsCellWhileTheCacheIsNotEmptied() throws {
    var evaluator = try Self.evaluatorWithAMemo()
    let hits = evaluator.cellCache.hits
    let answer = evaluator.cellEntry(
      latitude: Self.point.latitude, longitude: Self.point.longitude, device: 0)
    #expect(answer.entry != nil)
    #expect(answer.fromMemo)
    #expect(evaluator.cellCache.hits == hits + 1)
  }

  /// The emptying that brings the count to 2³² plus the memo's count has the memo's low 32
  /// bits: the memo must be forgotten, not read. The cache, emptied, then sees the cell's
  /// parent for the first time and leaves the fix to the index (`nil`).
  @Test func aMemoFromAnEarlierEraIsNotTaken() throws {
    var evaluator = try Self.evaluatorWithAMemo()
    let made = evaluator.cellCache.emptyings
    evaluator.cellCache.emptyings = made + (1 << 32) - 1
    evaluator.cellCache.removeAll()
    #expect(evaluator.cellCache.emptyings == made + (1 << 32))
    #expect(evaluator.devices[0].cellMemo.emptyings == UInt32(truncatingIfNeeded: made))
    let answer = evaluator.cellEntry(
      latitude: Self.point.latitude, longitude: Self.point.longitude, device: 0)
    #expect(answer.entry == nil)
    #expect(!answer.fromMemo)
    #expect(evaluator.devices[0].cellMemo.key == 0)
    #expect(evaluator.cellMemoEra == 1)
  }

  /// Without proximity monitoring no device has a monitored set, and the table holds nothing;
  /// with it, every device that had a fix has one, and a snapshot brings them back.
  @Test func monitoredSetsAreKeptOnlyWithProximityMonitoring() throws {
    let zones = [
      try circleZone("near", north: 0, east: 200), try circleZone("far", north: 0, east: 5_000),
    ]
    var plain = try ZoneEvaluator(zones: zones)
    var events: [ZoneEvent] = []
    plain.process(fix(0, device: "a"), into: &events)
    plain.process(fix(1, device: "b"), into: &events)
    #expect(plain.monitoredSets.isEmpty)
    #expect(plain.deviceStatus(named: "a")?.monitored == [])

    var monitoring = try ZoneEvaluator(
      configuration: .init(proximity: .init(count: 1, radius: 1_000)), zones: zones)
    events = []
    monitoring.process(fix(0, device: "a"), into: &events)
    monitoring.process(fix(1, east: 4_900, device: "b"), into: &events)
    #expect(monitoring.monitoredSets.count == 2)
    #expect(monitoring.deviceStatus(named: "a")?.monitored == ["near-fence"])
    #expect(monitoring.deviceStatus(named: "b")?.monitored == ["far-fence"])
    var restored = try ZoneEvaluator(
      configuration: .init(proximity: .init(count: 1, radius: 1_000)), zones: zones)
    try restored.restore(monitoring.snapshot())
    #expect(restored.deviceStatus(named: "b")?.monitored == ["far-fence"])
    #expect(restored.monitoredSets == monitoring.monitoredSets)
  }
}
