import FenceEngine
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// `FenceMonitor` from many tasks at once: no data race (CI runs this suite under TSan), every
/// event delivered once, in the order the engine decided it.
@Suite struct ConcurrencyTests {
  /// The harbor's first hour, from the copy in `Fixtures/` (always present).
  static let firstHourPath = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")

  static func harborFixes() throws -> [LocationFix] {
    try HarborTests.fixes(firstHourPath)
  }

  static func collect(_ stream: AsyncStream<ZoneEvent>) -> Task<[ZoneEvent], Never> {
    Task {
      var events: [ZoneEvent] = []
      for await event in stream { events.append(event) }
      return events
    }
  }

  @Test func aMonitorFedFromOneTaskYieldsExactlyTheEvaluatorsEventsInOrder() async throws {
    let zones = try HarborTests.harborZones()
    let fixes = try Self.harborFixes()
    var evaluator = try ZoneEvaluator(zones: zones)
    var expected: [ZoneEvent] = []
    for fix in fixes.prefix(4000) { evaluator.process(fix, into: &expected) }
    for fix in fixes.dropFirst(4000) { evaluator.process(fix, into: &expected) }
    let end = try #require(fixes.last).time.adding(seconds: 3600)
    evaluator.advance(to: end, into: &expected)

    let monitor = try FenceMonitor(zones: zones)
    let collector = Self.collect(monitor.events)
    monitor.submit(contentsOf: fixes.prefix(4000))
    for fix in fixes.dropFirst(4000) { monitor.submit(fix) }
    monitor.advance(to: end)
    #expect(monitor.time == end)
    #expect(monitor.acceptedFixCount == evaluator.acceptedFixCount)
    #expect(monitor.deviceCount == evaluator.deviceCount)
    #expect(monitor.rejections == evaluator.rejections)
    monitor.finish()
    let events = await collector.value
    #expect(expected.count > 20)
    #expect(events == expected)
  }

  /// Eight tasks submit the fixes of their own devices at once. Which device's fix comes first
  /// is up to the scheduler, so dwells (which fire when any device moves time on) may differ;
  /// check-ins and check-outs depend only on each device's own fixes and must be those of a
  /// sequential run, in order.
  @Test func concurrentSubmittersGiveEachDeviceItsSequentialCheckInsAndCheckOutsInOrder()
    async throws
  {
    let zones = try HarborTests.harborZones()
    let fixes = try Self.harborFixes()
    var evaluator = try ZoneEvaluator(zones: zones)
    var sequential: [ZoneEvent] = []
    for fix in fixes { evaluator.process(fix, into: &sequential) }

    let monitor = try FenceMonitor(zones: zones)
    let collector = Self.collect(monitor.events)
    var groups = Array(repeating: [LocationFix](), count: 8)
    for fix in fixes { groups[ShardedEvaluator.shard(forDevice: fix.device, shardCount: 8)].append(fix) }
    await withTaskGroup(of: Void.self) { group in
      for batch in groups {
        group.addTask {
          // Small slices, so that the tasks interleave under the lock.
          for start in stride(from: 0, to: batch.count, by: 7) {
            monitor.submit(contentsOf: batch[start..<min(start + 7, batch.count)])
          }
        }
      }
    }
    monitor.finish()
    let events = await collector.value

    func checkInsAndOuts(_ events: [ZoneEvent]) -> [String: [ZoneEvent]] {
      var byDevice: [String: [ZoneEvent]] = [:]
      for event in events where event.kind == .checkIn || event.kind == .checkOut {
        byDevice[event.device, default: []].append(event)
      }
      return byDevice
    }
    #expect(checkInsAndOuts(events) == checkInsAndOuts(sequential))
    #expect(monitor.acceptedFixCount == evaluator.acceptedFixCount)
    // Every dwell lies inside a stay of its device, delivered after its check-in.
    var inside: [String: Timestamp] = [:]
    for event in events {
      guard let zone = event.zone else { continue }
      let key = "\(event.device)/\(zone)"
      switch event.kind {
      case .checkIn where event.trigger == .fence: inside[key] = event.time
      case .checkOut: inside[key] = nil
      case .dwell: #expect(inside[key] == event.checkInTime, "\(key)")
      default: break
      }
    }
  }

  @Test func zoneChangesSnapshotsAndReadsRaceWithSubmitsWithoutHarm() async throws {
    let zones = try HarborTests.harborZones()
    let fixes = try Self.harborFixes()
    let monitor = try FenceMonitor(configuration: .init(skipsUnchangedFixes: true), zones: zones)
    let collector = Self.collect(monitor.events)
    let narrows = try #require(zones.first { $0.id == "narrows" })
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for start in stride(from: 0, to: fixes.count, by: 50) {
          monitor.submit(contentsOf: fixes[start..<min(start + 50, fixes.count)])
        }
      }
      group.addTask {
        for round in 0..<40 {
          if round % 2 == 0 {
            monitor.remove(zoneID: "narrows")
          } else {
            try? monitor.add([narrows])
          }
          _ = monitor.snapshot()
          _ = monitor.time
        }
      }
      group.addTask {
        for round in 0..<40 {
          if let time = monitor.time { monitor.advance(to: time.adding(seconds: Double(round))) }
        }
      }
    }
    #expect(throws: ZoneError.self) { try monitor.add([Zone(id: "empty")]) }
    let snapshot = monitor.snapshot()
    let copy = try FenceMonitor(configuration: .init(skipsUnchangedFixes: true), zones: zones)
    try copy.restore(snapshot)
    #expect(copy.snapshot() == snapshot)
    #expect(monitor.acceptedFixCount + monitor.rejections.total == fixes.count)
    monitor.finish()
    let events = await collector.value
    #expect(events.contains { $0.kind == .checkIn })
  }

  @Test func releasingTheMonitorEndsItsStream() async throws {
    var monitor: FenceMonitor? = try FenceMonitor(zones: [try circleZone("depot")])
    let stream = try #require(monitor?.events)
    monitor?.submit(fix(0))
    monitor = nil
    var kinds: [ZoneEvent.Kind] = []
    for await event in stream { kinds.append(event.kind) }
    #expect(kinds == [.checkIn])
  }

  @Test func aMonitorRestoredFromAnotherContinuesItsEvents() async throws {
    let zones = [try circleZone("depot", rules: ZoneRules(dwell: 60))]
    let first = try FenceMonitor(zones: zones)
    first.submit(fix(0))
    let second = try FenceMonitor(zones: zones)
    try second.restore(EvaluatorSnapshot(decoding: first.snapshot().encoded()))
    let collector = Self.collect(second.events)
    second.submit(fix(90, north: 500))
    second.finish()
    let lines = await collector.value.map(describe)
    #expect(lines == ["60 dwell a depot/depot-fence in=0 dwell=60",
      "90 checkOut a depot/depot-fence in=0 duration=90"])
  }
}
