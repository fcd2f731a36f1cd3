@testable import FenceEngine
import FenceTestSupport
import Testing

/// A batch (``ZoneEvaluator/process(_:devices:into:)``) asks for later fixes' memory while it
/// works: it must give exactly the events, event ids and state of the same fixes processed
/// one by one, whichever of its look-ahead stages run.
@Suite struct BatchProcessingTests {
  /// 5,000 overlapping circle zones 150 m apart (a point grid's worth), with dwell, MRT and
  /// exit confirmations on some, and a GEOLINE across the field.
  static func zones() throws -> [Zone] {
    var zones: [Zone] = []
    var random = SeededGenerator(seed: 7)
    for k in 0..<5_000 {
      let north = Double(k / 70) * 150
      let east = Double(k % 70) * 150
      let rules: ZoneRules
      switch k % 4 {
      case 0: rules = ZoneRules(dwell: 25)
      case 1: rules = ZoneRules(minimumRetriggerTime: 120)
      case 2: rules = ZoneRules(exitConfirmations: 2)
      default: rules = .default
      }
      zones.append(
        try circleZone(
          "z\(k)", north: north, east: east, radius: 60 + Double(random.int(below: 60)),
          rules: rules, customData: ["k": .number(Double(k))]))
    }
    zones.append(Zone(id: "line", geolines: [try geoline("g", [(5_000, -500), (5_000, 11_000)])]))
    return zones
  }

  /// `devices` devices, `steps` fixes each, interleaved in time, wandering up to 300 m a step
  /// over the field (some fixes rejected: a repeated time every 97th).
  static func fixes(devices: Int, steps: Int) -> [LocationFix] {
    var random = SeededGenerator(seed: 11)
    var positions = (0..<devices).map { _ in
      (north: Double(random.int(below: 10_000)), east: Double(random.int(below: 10_000)))
    }
    var fixes: [LocationFix] = []
    for step in 0..<steps {
      for d in 0..<devices {
        positions[d].north += Double(random.int(below: 601) - 300)
        positions[d].east += Double(random.int(below: 601) - 300)
        let index = fixes.count
        let seconds = Double(step * 10) + (index % 97 == 96 ? -10 : 0)
        fixes.append(
          fix(seconds, north: positions[d].north, east: positions[d].east, device: "d\(d)"))
      }
    }
    return fixes
  }

  /// Rejections reported as events; the cell cache on or off.
  static func configuration(cellCache: Bool) -> ZoneEvaluator.Configuration {
    var configuration = ZoneEvaluator.Configuration()
    configuration.reportsRejections = true
    if !cellCache { configuration.cellCacheCapacity = 0 }
    return configuration
  }

  /// Events and final snapshot of `fixes` processed one by one.
  static func oneByOne(
    _ configuration: ZoneEvaluator.Configuration, _ zones: [Zone], _ fixes: [LocationFix]
  ) throws -> ([ZoneEvent], [UInt8]) {
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones)
    var events: [ZoneEvent] = []
    for fix in fixes { evaluator.process(fix, into: &events) }
    evaluator.advance(to: t(100_000), into: &events)
    return (events, evaluator.snapshot().encoded())
  }

  /// Events and final snapshot of `fixes` processed in batches of `size`, and whether the
  /// index answered from a point grid.
  static func inBatches(
    of size: Int, _ configuration: ZoneEvaluator.Configuration, _ zones: [Zone],
    _ fixes: [LocationFix]
  ) throws -> (events: [ZoneEvent], snapshot: [UInt8], grid: Bool) {
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones)
    let handles = fixes.map { evaluator.handle(forDevice: $0.device) }
    var events: [ZoneEvent] = []
    var start = 0
    while start < fixes.count {
      let end = min(start + size, fixes.count)
      evaluator.process(fixes[start..<end], devices: handles[start..<end], into: &events)
      start = end
    }
    evaluator.advance(to: t(100_000), into: &events)
    return (events, evaluator.snapshot().encoded(), evaluator.fenceIndex.answersPointsFromGrid)
  }

  /// The scenario's 40 devices and 30 steps one by one, then in batches of `batchSize`.
  static func bothWays(batchSize: Int, cellCache: Bool) throws -> (
    expected: [ZoneEvent], expectedState: [UInt8],
    batch: (events: [ZoneEvent], snapshot: [UInt8], grid: Bool)
  ) {
    let zones = try Self.zones()
    let fixes = Self.fixes(devices: 40, steps: 30)
    let configuration = Self.configuration(cellCache: cellCache)
    let (expected, expectedState) = try Self.oneByOne(configuration, zones, fixes)
    let batch = try Self.inBatches(of: batchSize, configuration, zones, fixes)
    return (expected, expectedState, batch)
  }

  @Test(arguments: [1, 2, 5, 4_096])
  func batchesOverAPointGridGiveTheEventsOfOneByOne(size: Int) throws {
    // No cell cache: every fix asks the index, so every look-ahead stage runs.
    let (expected, expectedState, batch) = try Self.bothWays(batchSize: size, cellCache: false)
    #expect(batch.grid)
    #expect(expected.count == 2_237)
    #expect(Set(expected.map(\.kind)) == [.checkIn, .checkOut, .dwell, .rejected])
    #expect(expected.contains { $0.zone == "line" })
    #expect(batch.events == expected)
    #expect(batch.snapshot == expectedState)
  }

  @Test func batchesWithTheCellCacheGiveTheEventsOfOneByOne() throws {
    let (expected, expectedState, batch) = try Self.bothWays(batchSize: 64, cellCache: true)
    #expect(batch.events == expected)
    #expect(batch.snapshot == expectedState)
  }

  @Test func batchesByDeviceNameGiveTheEventsOfOneByOne() throws {
    let zones = try Self.zones()
    let fixes = Self.fixes(devices: 25, steps: 20)
    let configuration = Self.configuration(cellCache: false)
    let (expected, expectedState) = try Self.oneByOne(configuration, zones, fixes)
    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones)
    var events: [ZoneEvent] = []
    evaluator.process(Array(fixes[..<300]), into: &events)
    evaluator.process(Array(fixes[300...]), into: &events)
    evaluator.advance(to: t(100_000), into: &events)
    #expect(!expected.isEmpty)
    #expect(events == expected)
    #expect(evaluator.snapshot().encoded() == expectedState)
    #expect(evaluator.deviceCount == 25)
  }

  /// A batch tests the fences its look-ahead found at a fix's point instead of searching again,
  /// when it found them all (at most four): a fix in six fences at once must still check in to
  /// all six, as one by one.
  @Test func aFixInMoreFencesThanTheLookAheadNotesChecksInToEveryOne() throws {
    var zones = try Self.zones()
    // Six circles around one point in the middle of the field, 20 m apart, 100 m across.
    for k in 0..<6 {
      zones.append(
        try circleZone("stack\(k)", north: 5_025, east: 5_025 + Double(k) * 20, radius: 100))
    }
    // Three devices, one after another, from the field's corner to the point and back.
    var fixes: [LocationFix] = []
    for step in 0..<4 {
      for d in 0..<3 {
        let metres = step == 2 ? 5_075 : Double(step) * 100
        fixes.append(
          fix(Double(step * 10), north: metres, east: metres, device: "s\(d)"))
      }
    }
    let configuration = Self.configuration(cellCache: false)
    let (expected, _) = try Self.oneByOne(configuration, zones, fixes)
    let batch = try Self.inBatches(of: 12, configuration, zones, fixes)
    #expect(batch.grid)
    let stackCheckIns = expected.filter {
      $0.kind == .checkIn && ($0.zone ?? "").hasPrefix("stack")
    }
    #expect(stackCheckIns.count == 18)
    #expect(batch.events == expected)
  }
}
