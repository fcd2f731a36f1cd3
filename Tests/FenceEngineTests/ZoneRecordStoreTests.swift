import FenceGeometry
import Testing

@testable import FenceEngine

/// The store keeps one to four records in a block of their count, more in an array of the
/// device's own, and gives them back exactly; evaluators that pool their records and evaluators
/// that do not give the same events, snapshots and explanations.
@Suite struct ZoneRecordStoreTests {
  /// Records for zones `zones`, each with fields of its own so that a mix-up shows.
  static func records(_ zones: [Int32]) -> [ZoneRecord] {
    zones.map { zone in
      var record = ZoneRecord(zone: zone)
      record.stay = UInt64(zone) * 1_000 + 7
      record.checkInTime = Timestamp(microsecondsSinceEpoch: Int64(zone) * 3)
      record.exitCount = zone % 3
      record.presence = zone % 2 == 0 ? .checkedIn : .insideSilently
      record.windowStart = zone % 4 == 0 ? nil : Timestamp(microsecondsSinceEpoch: -Int64(zone))
      return record
    }
  }

  static func zones(_ records: [ZoneRecord]) -> [Int32] { records.map(\.zone) }

  /// Where device slot `d` keeps its records: "none", "block" or "array".
  static func place(_ evaluator: ZoneEvaluator, _ d: Int) -> String {
    if evaluator.recordBlock(ofDevice: d) != nil {
      return evaluator.devices[d].records.isEmpty ? "block" : "block and array"
    }
    return evaluator.devices[d].records.isEmpty ? "none" : "array"
  }

  @Test func recordsComeBackExactlyFromEveryPlace() throws {
    for pooling in [true, false] {
      var evaluator = try ZoneEvaluator(zones: [])
      evaluator.recordPoolingFleet = pooling ? 0 : .max
      _ = evaluator.handle(forDevice: "a")
      _ = evaluator.handle(forDevice: "b")
      for count in [0, 1, 2, 3, 4, 5, 6, 3, 0, 2] {
        let original = Self.records((0..<Int32(count)).map { $0 * 5 + 1 })
        var records = evaluator.takeRecords(ofDevice: 1)
        records = original
        evaluator.putRecords(&records, device: 1)
        #expect(records.isEmpty)
        let expected = count == 0 ? "none" : pooling && count <= 4 ? "block" : "array"
        #expect(Self.place(evaluator, 1) == expected, "\(count) records, pooling \(pooling)")
        #expect(evaluator.recordCount(ofDevice: 1) == count)
        let read = evaluator.records(ofDevice: 1)
        #expect(read.count == count)
        for (a, b) in zip(read, original) {
          #expect(a.zone == b.zone && a.stay == b.stay && a.checkInTime == b.checkInTime)
          #expect(a.exitCount == b.exitCount && a.presence == b.presence)
          #expect(a.windowStart == b.windowStart)
        }
        let (_, first, addressed) = evaluator.devices.withUnsafeBufferPointer {
          evaluator.recordAddresses(ofDevice: 1, in: $0)
        }
        #expect(addressed == count)
        if count > 0 {
          #expect(first!.assumingMemoryBound(to: ZoneRecord.self).pointee.zone == original[0].zone)
        }
        // The prefetch's lines: the same first record, and a count only for a block (an
        // array's count is in its header, which the prefetch does not read).
        let (header, lineStart, lineCount) = evaluator.devices.withUnsafeBufferPointer {
          evaluator.recordLines(ofDevice: 1, in: $0)
        }
        let place = Self.place(evaluator, 1)
        #expect(lineCount == (place == "block" ? count : nil), "\(count) records, \(place)")
        #expect((header == nil) == (place == "block"))
        if count > 0 { #expect(lineStart == first) }
        // The other device's records stay none.
        #expect(Self.place(evaluator, 0) == "none")
      }
    }
  }

  @Test func blocksAreReusedAndFreedBySize() {
    var store = ZoneRecordStore()
    let a = store.block(of: Self.records([1, 2]))
    let b = store.block(of: Self.records([3]))
    #expect(store.blockCounts == [1, 1, 0, 0])
    // Put back as many as were taken: the same block, nothing freed.
    var records = store.takeBlock(a)
    records[0].exitCount = 9
    #expect(store.putInBlock(&records) == a)
    #expect(records.isEmpty)
    #expect(store.withBlock(a) { $0[0].exitCount } == 9)
    #expect(store.blockCounts == [1, 1, 0, 0])
    // One more: a block of three, the block of two freed and taken by the next pair.
    records = store.takeBlock(a)
    records.append(Self.records([4])[0])
    let a3 = store.putInBlock(&records)
    #expect(store.blockCounts == [1, 0, 1, 0])
    let c = store.block(of: Self.records([5, 6]))
    #expect(c == a)
    #expect(store.blockCounts == [1, 1, 1, 0])
    #expect(store.withBlock(a3) { Self.zones(Array($0)) } == [1, 2, 4])
    // Taken and not put back into a block: freed.
    records = store.takeBlock(b)
    store.releaseTakenBlock()
    #expect(store.blockCounts == [0, 1, 1, 0])
    #expect(store.block(of: Self.records([7])) == b)
  }

  @Test func aCopyOfTheStoreKeepsItsRecords() {
    var store = ZoneRecordStore()
    let blocks = (0..<5_000).map { store.block(of: Self.records([Int32($0)])) }
    let copy = store
    for bits in blocks {
      var records = store.takeBlock(bits)
      records[0].stay = 1
      #expect(store.putInBlock(&records) == bits)
    }
    #expect(blocks.indices.allSatisfy { i in copy.withBlock(blocks[i]) { $0[0].stay } == UInt64(i) * 1_000 + 7 })
    #expect(blocks.allSatisfy { store.withBlock($0) { $0[0].stay } == 1 })
  }

  /// Seven rings around (600 m north, 3,000 m east), so that walking devices hold from none to
  /// seven records (dwell, MRT, hysteresis and confirmations among them), beside the skipping
  /// tests' zones (within 1,600 m of the origin).
  static func overlappingZones() throws -> [Zone] {
    var zones = try SkippingTests.syntheticZones()
    for (index, radius) in [150.0, 250, 350, 450, 550, 650, 750].enumerated() {
      zones.append(
        try circleZone(
          "ring\(index)", north: 600, east: 3_000, radius: radius,
          rules: ZoneRules(
            minimumRetriggerTime: Double(index) * 15, dwell: 20 + Double(index) * 10,
            exitHysteresis: Double(index), exitConfirmations: 1 + index % 3)))
    }
    return zones
  }

  /// The same walk through evaluators with and without pooling: events, snapshots at a zone
  /// change and at the end, and an explanation.
  @Test func pooledRecordsGiveTheSameEventsSnapshotsAndExplanations() throws {
    let zones = try Self.overlappingZones()
    var random = SkippingTests.Generator(state: 11)
    var fixes: [LocationFix] = []
    // Half among the skipping tests' zones, half among the rings.
    var positions = (0..<40).map { device in
      (north: random.next() * 1200, east: random.next() * 1200 + (device % 2 == 0 ? 0 : 2_400))
    }
    for second in 0..<400 {
      for device in positions.indices {
        let step = random.next() < 0.05 ? 300.0 : 12.0
        positions[device].north += (random.next() - 0.5) * step
        positions[device].east += (random.next() - 0.5) * step
        fixes.append(
          fix(
            Double(second), north: positions[device].north, east: positions[device].east,
            device: "d\(device)"))
      }
    }
    func run(
      pooling: Bool
    ) throws -> (events: [ZoneEvent], snapshots: [[UInt8]], explained: String, blocks: [Int]) {
      var evaluator = try ZoneEvaluator(zones: zones)
      evaluator.recordPoolingFleet = pooling ? 0 : .max
      var events: [ZoneEvent] = []
      var snapshots: [[UInt8]] = []
      var blocks: [Int] = []
      for (i, fix) in fixes.enumerated() {
        if i == fixes.count / 2 {
          blocks = evaluator.recordStore.blockCounts
          #expect(evaluator.remove(zoneIDs: ["ring2", "ring5", "c0"]) == 3)
          snapshots.append(evaluator.snapshot().encoded())
          // Restored into an evaluator of the same kind, which goes on.
          var restored = try ZoneEvaluator(zones: zones)
          restored.recordPoolingFleet = evaluator.recordPoolingFleet
          _ = restored.remove(zoneIDs: ["ring2", "ring5", "c0"])
          try restored.restore(evaluator.snapshot())
          evaluator = restored
        }
        evaluator.process(fix, into: &events)
      }
      let explanation = evaluator.explain(
        fix(401, north: 600, east: 3_000, device: "d1"), into: &events)
      evaluator.advance(to: t(4_000), into: &events)
      snapshots.append(evaluator.snapshot().encoded())
      return (events, snapshots, "\(explanation)", blocks)
    }
    let pooled = try run(pooling: true)
    let plain = try run(pooling: false)
    #expect(pooled.events == plain.events)
    #expect(pooled.snapshots == plain.snapshots)
    #expect(pooled.explained == plain.explained)
    let kinds = Set(plain.events.map(\.kind))
    #expect(kinds.isSuperset(of: [.checkIn, .checkOut, .dwell]))
    #expect(plain.events.count == 398)
    // Halfway, the pooling evaluator held blocks of every size, the other none.
    #expect(pooled.blocks.count == 4 && pooled.blocks.allSatisfy { $0 > 0 })
    #expect(plain.blocks == [0, 0, 0, 0])
  }

  /// A pooling evaluator's devices end in every kind of home.
  @Test func aWalkFillsBlocksOfEverySize() throws {
    var evaluator = try ZoneEvaluator(zones: Self.overlappingZones())
    evaluator.recordPoolingFleet = 0
    var events: [ZoneEvent] = []
    // Devices standing at 0 to 7 rings deep.
    for depth in 0...7 {
      let east = 3_000 + 800 - Double(depth) * 100
      evaluator.process(fix(0, north: 600, east: east, device: "d\(depth)"), into: &events)
    }
    let counts = (0...7).map { evaluator.recordCount(ofDevice: $0) }
    #expect(counts == [0, 1, 2, 3, 4, 5, 6, 7])
    #expect(evaluator.recordStore.blockCounts == [1, 1, 1, 1])
    #expect(Self.place(evaluator, 5) == "array" && Self.place(evaluator, 4) == "block")
  }
}
