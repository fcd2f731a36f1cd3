import FenceEngine
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// Several engines, each holding the devices whose id hashes to it, give exactly the events of
/// one engine (sorted by time, then device, keeping each device's order).
@Suite struct ShardingTests {
  /// One engine over every fix, then an advance well past the last; sorted by time and
  /// device unless `sorted` is false.
  static func sequential(
    _ zones: [Zone], _ fixes: [LocationFix], end: Timestamp, sorted: Bool = true
  ) throws -> [ZoneEvent] {
    var evaluator = try ZoneEvaluator(zones: zones)
    var events: [ZoneEvent] = []
    for fix in fixes { evaluator.process(fix, into: &events) }
    evaluator.advance(to: end, into: &events)
    if sorted { ShardedEvaluator.sortByTimeAndDevice(&events) }
    return events
  }

  /// A sharded run in batches of `batchSize` fixes, then the same final advance.
  static func sharded(
    _ zones: [Zone], _ fixes: [LocationFix], end: Timestamp, shards: Int, batchSize: Int,
    configuration: ZoneEvaluator.Configuration = .default
  ) throws -> [ZoneEvent] {
    let evaluator = try ShardedEvaluator(
      shardCount: shards, configuration: configuration, zones: zones)
    var events: [ZoneEvent] = []
    for start in stride(from: 0, to: fixes.count, by: batchSize) {
      evaluator.process(Array(fixes[start..<min(start + batchSize, fixes.count)]), into: &events)
    }
    evaluator.advance(to: end, into: &events)
    ShardedEvaluator.sortByTimeAndDevice(&events)
    return events
  }

  @Test func devicesAreRoutedByTheirIdsFNV1aHash() {
    // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c; of "367000150", 0x7b748bc7205e2023.
    #expect(ShardedEvaluator.shard(forDevice: "a", shardCount: 4) == 0)
    #expect(ShardedEvaluator.shard(forDevice: "a", shardCount: 7) == 5)
    #expect(ShardedEvaluator.shard(forDevice: "367000150", shardCount: 4) == 3)
    #expect(ShardedEvaluator.shard(forDevice: "367000140", shardCount: 7) == 2)
    #expect(ShardedEvaluator.shard(forDevice: "device-42", shardCount: 1) == 0)
  }

  @Test(arguments: [1, 4])
  func theHarborFirstHourShardedGivesTheEventsOfOneEngine(_ shards: Int) throws {
    let fixes = try HarborTests.fixes(ConcurrencyTests.firstHourPath)
    let zones = try HarborTests.harborZones()
    let end = try #require(fixes.last).time.adding(seconds: 86_400)
    let expected = try Self.sequential(zones, fixes, end: end)
    let actual = try Self.sharded(zones, fixes, end: end, shards: shards, batchSize: 500)
    #expect(expected.count > 20)
    #expect(Set(expected.map(\.kind)).isSuperset(of: [.checkIn, .checkOut, .dwell]))
    #expect(actual == expected)
    // Every shard holds some of the 170 vessels.
    let evaluator = try ShardedEvaluator(shardCount: shards, zones: zones)
    var ignored: [ZoneEvent] = []
    evaluator.process(fixes, into: &ignored)
    #expect(evaluator.deviceCounts.allSatisfy { $0 > 20 })
  }

  @Test(.enabled(if: HarborTests.hasWeek))
  func theHarborWeekSplitAcrossFourEnginesGivesTheEventsOfOne() throws {
    let fixes = SnapshotTests.harborWeek
    try #require(fixes.count > 100_000)
    let zones = try HarborTests.harborZones()
    let end = try #require(fixes.last).time.adding(seconds: 86_400)
    let expected = try Self.sequential(zones, fixes, end: end)
    #expect(Set(expected.map(\.kind)).isSuperset(of: [.checkIn, .checkOut, .dwell]))
    #expect(try Self.sharded(zones, fixes, end: end, shards: 4, batchSize: 5000) == expected)
  }

  /// Rebalancing: half way through, every shard's state is encoded, decoded and restored into
  /// a new sharded evaluator (as a new owner of the partitions would), which continues.
  @Test func shardsMovedHalfWayThroughContinueWithTheEventsOfOneEngine() throws {
    let fixes = try HarborTests.fixes(ConcurrencyTests.firstHourPath)
    let zones = try HarborTests.harborZones()
    let end = try #require(fixes.last).time.adding(seconds: 86_400)
    let expected = try Self.sequential(zones, fixes, end: end)
    var events: [ZoneEvent] = []
    let before = try ShardedEvaluator(shardCount: 3, zones: zones)
    let half = fixes.count / 2
    before.process(Array(fixes[..<half]), into: &events)
    let moved = try before.snapshots().map { try EvaluatorSnapshot(decoding: $0.encoded()) }
    let after = try ShardedEvaluator(zones: zones.reversed(), restoring: moved)
    after.process(Array(fixes[half...]), into: &events)
    after.advance(to: end, into: &events)
    ShardedEvaluator.sortByTimeAndDevice(&events)
    #expect(events == expected)
  }

  /// Zone changes between batches (a removal while a dwell is due in a shard that got no fix
  /// since, a replacement with other rules, an addition) keep the equality: every shard is at
  /// the same time when a change arrives.
  @Test(arguments: [1, 3])
  func zoneChangesBetweenBatchesKeepTheEventsOfOneEngine(_ shards: Int) throws {
    let zones = try SkippingTests.syntheticZones()
    let fixes = SnapshotTests.walks(seed: 5, count: 900)
    let batch = 60
    var single = try ZoneEvaluator(zones: zones)
    let sharded = try ShardedEvaluator(shardCount: shards, zones: zones)
    var expected: [ZoneEvent] = []
    var actual: [ZoneEvent] = []
    for (round, start) in stride(from: 0, to: fixes.count, by: batch).enumerated() {
      let part = Array(fixes[start..<min(start + batch, fixes.count)])
      for fix in part { single.process(fix, into: &expected) }
      sharded.process(part, into: &actual)
      let zone = zones[round % zones.count]
      switch round % 3 {
      case 0:
        #expect(single.remove(zoneID: zone.id) == sharded.remove(zoneID: zone.id))
      case 1:
        var changed = zone
        changed.rules.dwell = changed.rules.dwell.map { $0 + 7 } ?? 20
        try single.add(changed)
        try sharded.add([changed])
      default:
        try single.replaceAll(with: zones)
        try sharded.replaceAll(with: zones)
      }
    }
    let end = try #require(fixes.last).time.adding(seconds: 7200)
    single.advance(to: end, into: &expected)
    sharded.advance(to: end, into: &actual)
    ShardedEvaluator.sortByTimeAndDevice(&expected)
    ShardedEvaluator.sortByTimeAndDevice(&actual)
    #expect(Set(expected.map(\.kind)).isSuperset(of: [.checkIn, .checkOut, .dwell]))
    #expect(actual == expected)
  }

  @Test(arguments: [1, 4])
  func aShardedMonitorFedInBatchesGivesTheEventsOfOneEngine(_ shards: Int) async throws {
    let fixes = try HarborTests.fixes(ConcurrencyTests.firstHourPath)
    let zones = try HarborTests.harborZones()
    let end = try #require(fixes.last).time.adding(seconds: 86_400)
    let emitted = try Self.sequential(zones, fixes, end: end, sorted: false)
    var expected = emitted
    ShardedEvaluator.sortByTimeAndDevice(&expected)
    let monitor = try ShardedMonitor(shardCount: shards, zones: zones)
    #expect(monitor.shardCount == shards)
    let collector = Task {
      var events: [ZoneEvent] = []
      for await event in monitor.events { events.append(event) }
      return events
    }
    for start in stride(from: 0, to: fixes.count, by: 700) {
      monitor.submit(contentsOf: fixes[start..<min(start + 700, fixes.count)])
    }
    monitor.advance(to: end)
    #expect(monitor.time == end)
    monitor.finish()
    var events = await collector.value
    // Each device's events arrive in the order one engine emits them.
    var byDevice: [String: [ZoneEvent]] = [:]
    for event in events { byDevice[event.device, default: []].append(event) }
    var emittedByDevice: [String: [ZoneEvent]] = [:]
    for event in emitted { emittedByDevice[event.device, default: []].append(event) }
    #expect(byDevice == emittedByDevice)
    ShardedEvaluator.sortByTimeAndDevice(&events)
    #expect(events == expected)
  }
}
