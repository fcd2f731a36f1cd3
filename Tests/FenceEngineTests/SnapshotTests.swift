import FenceEngine
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// Snapshot, encode, decode and restore into a fresh evaluator, then continue: the events must
/// be exactly those of an uninterrupted run.
@Suite struct SnapshotTests {
  /// Random walks of a few devices over the zones of `SkippingTests` (circles with dwell, MRT
  /// and hysteresis, polygons with exit confirmations, GEOLINEs, quiet zones without initial
  /// trigger or check-out), with some rejected fixes mixed in.
  static func walks(seed: UInt64, count: Int) -> [LocationFix] {
    var random = SeededGenerator(seed: seed)
    var positions = (0..<4).map { _ in
      (north: random.double(in: -100...1600), east: random.double(in: -100...1600))
    }
    var fixes: [LocationFix] = []
    var seconds = 0.0
    for _ in 0..<count {
      seconds += random.double(in: 1...40).rounded()
      let device = random.int(below: positions.count)
      if random.int(below: 8) == 0 {
        positions[device] = (random.double(in: -100...1600), random.double(in: -100...1600))
      } else {
        positions[device].north += random.double(in: -70...70)
        positions[device].east += random.double(in: -70...70)
      }
      var next = fix(
        seconds, north: positions[device].north, east: positions[device].east,
        device: "d\(device)", speed: random.double(in: 0...5), course: random.double(in: 0...360))
      switch random.int(below: 40) {
      case 0: next.accuracy = 500  // lowAccuracy
      case 1: next.time = t(seconds - 100)  // outOfOrder for a device seen before
      default: break
      }
      fixes.append(next)
    }
    return fixes
  }

  static let configurations: [ZoneEvaluator.Configuration] = [
    .default,
    .init(skipsUnchangedFixes: true),
    .init(proximity: .init(count: 5, radius: 400, triggersOnlyMonitored: true)),
  ]

  /// Runs `fixes`, and at every `cuts` index encodes a snapshot, decodes it and continues in a
  /// fresh evaluator built from `zones` (in reverse order, to show that the load order does not
  /// matter). Returns the uninterrupted and the resumed events and final evaluators.
  static func compare(
    _ zones: [Zone], _ fixes: [LocationFix], configuration: ZoneEvaluator.Configuration = .default,
    cutEvery step: Int
  ) throws -> (plain: [ZoneEvent], resumed: [ZoneEvent], last: ZoneEvaluator, snapshots: Int) {
    var plain = try ZoneEvaluator(configuration: configuration, zones: zones)
    var plainEvents: [ZoneEvent] = []
    for fix in fixes { plain.process(fix, into: &plainEvents) }
    if let last = fixes.last { plain.advance(to: last.time.adding(seconds: 7200), into: &plainEvents) }

    var evaluator = try ZoneEvaluator(configuration: configuration, zones: zones)
    var events: [ZoneEvent] = []
    var snapshots = 0
    for (index, fix) in fixes.enumerated() {
      if index > 0, index % step == 0 {
        let snapshot = evaluator.snapshot()
        let decoded = try EvaluatorSnapshot(decoding: snapshot.encoded())
        #expect(decoded == snapshot)
        var fresh = try ZoneEvaluator(configuration: configuration, zones: zones.reversed())
        try fresh.restore(decoded)
        evaluator = fresh
        snapshots += 1
      }
      evaluator.process(fix, into: &events)
    }
    if let last = fixes.last { evaluator.advance(to: last.time.adding(seconds: 7200), into: &events) }
    #expect(evaluator.acceptedFixCount == plain.acceptedFixCount)
    #expect(evaluator.skippedFixCount == plain.skippedFixCount)
    #expect(evaluator.rejections == plain.rejections)
    #expect(evaluator.time == plain.time)
    #expect(evaluator.deviceCount == plain.deviceCount)
    return (plainEvents, events, evaluator, snapshots)
  }

  @Test(arguments: 0..<configurations.count)
  func restoringAfterEveryFixGivesTheEventsOfAnUninterruptedRun(_ configuration: Int) throws {
    let zones = try SkippingTests.syntheticZones()
    let fixes = Self.walks(seed: 11, count: 600)
    let result = try Self.compare(
      zones, fixes, configuration: Self.configurations[configuration], cutEvery: 1)
    #expect(result.resumed == result.plain)
    #expect(result.snapshots == 599)
    // The walk must reach every kind of state the snapshot carries.
    let kinds = Set(result.plain.map(\.kind))
    #expect(kinds.isSuperset(of: [.checkIn, .checkOut, .dwell]))
    #expect(result.plain.contains { $0.trigger == .geoline })
    #expect(result.last.rejections.total > 0)
    if Self.configurations[configuration].proximity != nil {
      #expect(kinds.contains(.monitoredSetChanged))
    }
    if Self.configurations[configuration].skipsUnchangedFixes {
      #expect(result.last.skippedFixCount > 0)
    }
  }

  @Test func pendingExitsWaitingDwellsAndMRTWindowsSurviveARestore() throws {
    // Exit confirmations 2 and dwell 60 s: the device leaves once (exit pending) across the
    // dwell deadline, the snapshot is taken then, and the return inside releases the dwell.
    let zones = [
      try circleZone("depot", radius: 100,
        rules: ZoneRules(minimumRetriggerTime: 500, dwell: 60, exitConfirmations: 2)),
    ]
    let fixes = [
      fix(0, north: 0), fix(30, north: 300), fix(61, north: 5000, device: "other"),
      fix(90, north: 10), fix(100, north: 300), fix(110, north: 320), fix(200, north: 0),
      fix(700, north: 300), fix(710, north: 300), fix(720, north: 0),
    ]
    var expected: [String] = []
    var plain = try ZoneEvaluator(zones: zones)
    expected = run(&plain, fixes)
    #expect(expected == [
      "0 checkIn a depot/depot-fence",
      "60 dwell a depot/depot-fence in=0 dwell=60",
      "100 checkOut a depot/depot-fence in=0 duration=100",
      "720 checkIn a depot/depot-fence",
    ])
    for cut in 1..<fixes.count {
      var first = try ZoneEvaluator(zones: zones)
      var events = run(&first, Array(fixes[..<cut]))
      var second = try ZoneEvaluator(zones: zones)
      try second.restore(try EvaluatorSnapshot(decoding: first.snapshot().encoded()))
      events += run(&second, Array(fixes[cut...]))
      #expect(events == expected, "cut before fix \(cut)")
    }
  }

  /// Zones for ``checkOutsOfAZoneChangeWaitingInTheEvaluatorSurviveARestore()``: the depot
  /// checks out on removal and carries nested custom data.
  static func exitOnRemoveZones() throws -> [Zone] {
    var rules = ZoneRules.default
    rules.exitOnRemove = true
    let data: JSONObject = [
      "berth": .number(7.5), "name": .string("Pier \u{2693}"),
      "tags": .array([.string("ferry"), .null, .bool(true), .bool(false)]),
      "contact": .object(["phone": .string("+1 212"), "hours": .array([.array([])])]),
    ]
    return [
      try circleZone("depot", rules: rules, customData: data),
      try circleZone("quiet", east: 1000),
    ]
  }

  @Test func checkOutsOfAZoneChangeWaitingInTheEvaluatorSurviveARestore() throws {
    let zones = try Self.exitOnRemoveZones()
    var plain = try ZoneEvaluator(zones: zones)
    let before = run(&plain, [fix(0), fix(10, north: 5, device: "b"), fix(20, east: 1000, device: "c")])
    #expect(before == ["0 checkIn a depot/depot-fence", "10 checkIn b depot/depot-fence",
          "20 checkIn c quiet/quiet-fence"])
    // Removed without an event list: the two check-outs wait for the next call.
    let removed = plain.remove(zoneID: "depot")
    #expect(removed)
    let snapshot = plain.snapshot()
    #expect(snapshot.pendingEventCount == 2)
    #expect(plain.snapshot(includingDevice: { $0 == "b" }).pendingEventCount == 1)
    let decoded = try EvaluatorSnapshot(decoding: snapshot.encoded())
    #expect(decoded == snapshot)

    var restored = try ZoneEvaluator(zones: [zones[1]])
    try restored.restore(decoded)
    let next = [fix(30, east: 1000, device: "c")]
    var expected: [ZoneEvent] = []
    for fix in next { plain.process(fix, into: &expected) }
    var resumed: [ZoneEvent] = []
    for fix in next { restored.process(fix, into: &resumed) }
    #expect(expected.map(describe) == [
      "20 checkOut a depot/depot-fence in=0 duration=20",
      "20 checkOut b depot/depot-fence in=10 duration=10",
    ])
    #expect(expected.map(\.checkOutReason) == [.zoneRemoved, .zoneRemoved])
    #expect(expected.first?.customData == zones[0].customData)
    // Whole events: ids, custom data, position and reason as the uninterrupted run gave them.
    #expect(resumed == expected)
  }

  /// A replace whose new version is closed (schedule) or over (lifetime) ends the stays at the
  /// next call's clock step: a snapshot taken before that call must give the same check-outs.
  @Test(arguments: [false, true])
  func aStayEndedByAReplaceBeforeTheNextCallEndsTheSameAfterARestore(bySchedule: Bool) throws {
    var rules = ZoneRules.default
    rules.exitOnRemove = true
    let before = [try circleZone("depot", rules: rules, customData: ["berth": .number(1)])]
    if bySchedule {
      // The tests' day is a Tuesday: a Monday window is closed.
      rules.schedule = ZoneSchedule(
        timeZone: "UTC",
        windows: [.init(days: [.mon], from: .init(parsing: "08:00")!, to: .init(parsing: "09:00")!)])
    } else {
      rules.validUntil = t(5)
    }
    let after = [try circleZone("depot", rules: rules, customData: ["berth": .number(2)])]
    var plain = try ZoneEvaluator(zones: before)
    let first = run(&plain, [fix(0), fix(10)])
    #expect(first == ["0 checkIn a depot/depot-fence"])
    try plain.replaceAll(with: after)
    let snapshot = try EvaluatorSnapshot(decoding: plain.snapshot().encoded())
    var restored = try ZoneEvaluator(zones: after)
    try restored.restore(snapshot)

    let next = [fix(20), fix(30, north: 500), fix(40)]
    var expected: [ZoneEvent] = []
    for fix in next { plain.process(fix, into: &expected) }
    var resumed: [ZoneEvent] = []
    for fix in next { restored.process(fix, into: &resumed) }
    #expect(expected.map(describe) == ["10 checkOut a depot/depot-fence in=0 duration=10"])
    #expect(expected.first?.checkOutReason == (bySchedule ? .scheduleClosed : .zoneRemoved))
    #expect(expected.first?.customData == ["berth": .number(2)])
    #expect(resumed == expected)
  }

  @Test func onlyASnapshotWithWaitingEventsIsWrittenAsVersion2() throws {
    // Without waiting events the encoding is version 1's, byte for byte (older readers read it).
    let plain = try Self.sampleEncoding()
    #expect(plain[4] == 1 && plain[5] == 0)
    let waiting = try Self.sampleEncodingWithWaitingEvents()
    #expect(waiting[4] == 2 && waiting[5] == 0)
    // Version 1 has no count of waiting events: one more byte at the end is refused.
    var marked = try Self.sampleEncoding()
    marked.removeLast(8)
    marked.append(0)
    let total = UInt64(marked.count + 8)
    for i in 0..<8 { marked[6 + i] = UInt8(truncatingIfNeeded: total >> (8 * UInt64(i))) }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in marked { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    for i in 0..<8 { marked.append(UInt8(truncatingIfNeeded: hash >> (8 * UInt64(i)))) }
    #expect(Self.fault(decoding: marked) == .malformed("1 bytes left after the last device"))
    // The same bytes as version 2 hold zero waiting events, and decode as the original.
    marked[4] = 2
    marked.removeLast(8)
    hash = 0xcbf2_9ce4_8422_2325
    for byte in marked { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    for i in 0..<8 { marked.append(UInt8(truncatingIfNeeded: hash >> (8 * UInt64(i)))) }
    #expect(try EvaluatorSnapshot(decoding: marked) == EvaluatorSnapshot(decoding: plain))
  }

  @Test func aZoneAddedAfterADevicesLastFixStillGivesItsInitialTriggerAfterARestore() throws {
    let depot = try circleZone("depot", north: 1000, radius: 100)
    let silent = try circleZone("silent", radius: 100, rules: ZoneRules(initialTrigger: false))
    let loud = try circleZone("loud", east: 50, radius: 100)
    var evaluator = try ZoneEvaluator(zones: [depot])
    _ = run(&evaluator, [fix(0), fix(10, device: "b")])
    try evaluator.add([silent, loud])
    // The fresh evaluator loads all three at once: only the snapshot knows that "silent" and
    // "loud" are new to both devices.
    var fresh = try ZoneEvaluator(zones: [loud, silent, depot])
    try fresh.restore(try EvaluatorSnapshot(decoding: evaluator.snapshot().encoded()))
    let later = [fix(20), fix(30, device: "b")]
    let expected = run(&evaluator, later)
    #expect(expected == ["20 checkIn a loud/loud-fence", "30 checkIn b loud/loud-fence"])
    #expect(run(&fresh, later) == expected)
  }

  @Test func handlesCountersAndTimeAreRestored() throws {
    var evaluator = try ZoneEvaluator(zones: [try circleZone("depot")])
    _ = run(&evaluator, [
      fix(3, device: "x"), fix(5, device: "y"), fix(2, device: "x"), fix(6, device: "x", accuracy: 200),
    ])
    let y = evaluator.handle(forDevice: "y")
    let snapshot = evaluator.snapshot()
    #expect(snapshot.deviceNames == ["x", "y"])
    #expect(snapshot.deviceCount == 2)
    #expect(snapshot.time == t(5))
    var fresh = try ZoneEvaluator(zones: [try circleZone("depot")])
    _ = fresh.handle(forDevice: "someone else")
    try fresh.restore(snapshot)
    #expect(fresh.handle(forDevice: "y") == y)
    #expect(fresh.deviceCount == 2)
    #expect(fresh.time == t(5))
    #expect(fresh.acceptedFixCount == 2)
    #expect(fresh.rejections[.outOfOrder] == 1)
    #expect(fresh.rejections[.lowAccuracy] == 1)
  }

  // MARK: - Zone fingerprints

  @Test func theFingerprintIgnoresLoadOrderAndNamesButNotRulesShapesOrCustomData() throws {
    let zones = try SkippingTests.syntheticZones()
    let reference = try ZoneEvaluator(zones: zones).zoneFingerprint
    #expect(try ZoneEvaluator(zones: zones.reversed()).zoneFingerprint == reference)
    var renamed = zones
    renamed[0].name = "Renamed"
    renamed[0].description = "Described"
    #expect(try ZoneEvaluator(zones: renamed).zoneFingerprint == reference)

    var variants: [[Zone]] = []
    var rule = zones
    rule[0].rules.dwell = 31
    variants.append(rule)
    var data = zones
    data[0].customData = ["k": .number(1)]
    variants.append(data)
    var shape = zones
    shape[0].fences[0] = try .circle(id: shape[0].fences[0].id, center: at(), radius: 90.5)
    variants.append(shape)
    var direction = zones
    direction[2].geolines[0].direction = .leftToRight
    variants.append(direction)
    variants.append(Array(zones.dropLast()))
    for (index, variant) in variants.enumerated() {
      #expect(try ZoneEvaluator(zones: variant).zoneFingerprint != reference, "variant \(index)")
    }
  }

  @Test func restoringIntoAnEvaluatorWithOtherZonesIsAClearErrorAndChangesNothing() throws {
    var source = try ZoneEvaluator(zones: [try circleZone("depot")])
    _ = run(&source, [fix(0)])
    var other = try ZoneEvaluator(zones: [try circleZone("depot", radius: 101)])
    _ = run(&other, [fix(0, device: "b")])
    let snapshot = source.snapshot()
    #expect {
      try other.restore(snapshot)
    } throws: { error in
      guard let error = error as? SnapshotError,
        case .zoneMismatch(let a, let b) = error.fault
      else { return false }
      return a == snapshot.zoneFingerprint && b == other.zoneFingerprint
        && "\(error)".contains("restore into an evaluator built from the same zones")
    }
    #expect(other.deviceCount == 1)
    #expect(other.snapshot().deviceNames == ["b"])
  }

  // MARK: - Bad bytes

  static func sampleEncoding() throws -> [UInt8] {
    var evaluator = try ZoneEvaluator(
      configuration: .init(proximity: .init(count: 5, radius: 400)),
      zones: try SkippingTests.syntheticZones())
    var events: [ZoneEvent] = []
    for fix in walks(seed: 3, count: 120) { evaluator.process(fix, into: &events) }
    return evaluator.snapshot().encoded()
  }

  /// A snapshot holding two waiting check-outs of a removed zone, with nested custom data.
  static func sampleEncodingWithWaitingEvents() throws -> [UInt8] {
    var evaluator = try ZoneEvaluator(zones: try exitOnRemoveZones())
    _ = run(&evaluator, [fix(0), fix(10, north: 5, device: "b")])
    _ = evaluator.remove(zoneID: "depot")
    return evaluator.snapshot().encoded()
  }

  static func fault(decoding bytes: [UInt8]) -> SnapshotError.Fault? {
    do {
      _ = try EvaluatorSnapshot(decoding: bytes)
      return nil
    } catch let error as SnapshotError {
      return error.fault
    } catch {
      return .malformed("unexpected \(error)")
    }
  }

  @Test func everyTruncationIsReportedAsTruncated() throws {
    let bytes = try Self.sampleEncoding()
    #expect(Self.fault(decoding: bytes) == nil)
    for length in 0..<bytes.count {
      let fault = Self.fault(decoding: Array(bytes[..<length]))
      switch fault {
      case .truncated(let needed, let available):
        #expect(available == length)
        #expect(needed > length, "length \(length)")
      default:
        Issue.record("length \(length): \(String(describing: fault))")
      }
    }
  }

  @Test func wrongMagicVersionTrailingBytesAndChangedBytesAreClearErrors() throws {
    let bytes = try Self.sampleEncoding()
    var magic = bytes
    magic[0] = 0x7B
    #expect(Self.fault(decoding: magic) == .wrongMagic([0x7B, 0x4B, 0x45, 0x53]))
    var version = bytes
    version[4] = 3
    #expect(Self.fault(decoding: version) == .unsupportedVersion(3, supported: 2))
    #expect(Self.fault(decoding: bytes + [0]) == .trailingBytes(1))
    let error = SnapshotError(.unsupportedVersion(3, supported: 2), offset: 4)
    #expect("\(error)" == "snapshot byte 4: format version 3 is not supported (this code reads 2)")
    for position in stride(from: 14, to: bytes.count, by: 7) {
      var changed = bytes
      changed[position] ^= 0x10
      let fault = Self.fault(decoding: changed)
      guard case .checksumMismatch = fault else {
        Issue.record("byte \(position): \(String(describing: fault))")
        continue
      }
    }
  }

  /// Random changes with a valid checksum reach the body's checks: each must throw or decode,
  /// never trap.
  @Test(arguments: [false, true])
  func changedBodiesWithAValidChecksumNeverTrap(waitingEvents: Bool) throws {
    let bytes =
      waitingEvents ? try Self.sampleEncodingWithWaitingEvents() : try Self.sampleEncoding()
    var random = SeededGenerator(seed: 99)
    var malformed = 0
    for _ in 0..<3000 {
      var changed = bytes
      for _ in 0...random.int(below: 3) {
        changed[14 + random.int(below: bytes.count - 22)] = UInt8(random.int(below: 256))
      }
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in changed[..<(changed.count - 8)] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      for i in 0..<8 { changed[changed.count - 8 + i] = UInt8(truncatingIfNeeded: hash >> (8 * UInt64(i))) }
      switch Self.fault(decoding: changed) {
      case .malformed, .truncated: malformed += 1
      case nil: break
      case let other: Issue.record("unexpected \(String(describing: other))")
      }
    }
    #expect(malformed > 100)
  }

  // MARK: - New York Harbor

  /// The harbor week's fixes in time order, read once for every suite that replays them.
  static let harborWeek: [LocationFix] = {
    guard HarborTests.hasWeek else { return [] }
    return (try? HarborTests.fixes(HarborTests.weekPath)) ?? []
  }()

  @Test func theHarborFirstHourResumedEvery500FixesGivesTheUninterruptedEvents() throws {
    let fixes = try HarborTests.fixes(ConcurrencyTests.firstHourPath)
    let result = try Self.compare(try HarborTests.harborZones(), fixes, cutEvery: 500)
    #expect(result.snapshots == 17)
    #expect(result.plain.count > 20)
    #expect(result.resumed == result.plain)
  }

  @Test(.enabled(if: HarborTests.hasWeek))
  func theHarborWeekResumedEvery10000FixesGivesTheUninterruptedEvents() throws {
    let fixes = Self.harborWeek
    try #require(fixes.count > 100_000)
    let result = try Self.compare(try HarborTests.harborZones(), fixes, cutEvery: 10_000)
    #expect(result.snapshots == (fixes.count - 1) / 10_000)
    #expect(Set(result.plain.map(\.kind)).isSuperset(of: [.checkIn, .checkOut, .dwell]))
    #expect(result.resumed == result.plain)
  }
}

/// Zone fingerprints are stored in snapshots: a store written by an earlier version restores
/// only while the same zones give the same fingerprint. These values were computed before the
/// fingerprint read the rules from the zone cores instead of `ZoneRules` values.
@Suite struct ZoneFingerprintStabilityTests {
  /// Zones whose every rule differs from the defaults somewhere, rules v2 included.
  static func ruledZones() throws -> [Zone] {
    var zones: [Zone] = []
    let rules: [ZoneRules] = [
      ZoneRules(),
      ZoneRules(minimumRetriggerTime: 30, dwell: 60),
      ZoneRules(checkOut: false, initialTrigger: false),
      ZoneRules(exitHysteresis: 25.5, exitConfirmations: 3),
      ZoneRules(exitOnRemove: true),
      ZoneRules(validFrom: Timestamp(microsecondsSinceEpoch: 1_600_000_000_000_000)),
      ZoneRules(conditions: ZoneConditions(minimumSpeed: 2)),
    ]
    for (index, rule) in rules.enumerated() {
      zones.append(
        try Zone.circle(
          "r\(index)", center: at(north: Double(index) * 300), radius: 100, rules: rule,
          customData: index.isMultiple(of: 2) ? [:] : ["k": .number(Double(index))]))
    }
    return zones
  }

  @Test func theFingerprintOfTheseZonesStaysTheSame() throws {
    #expect(try ZoneEvaluator(zones: SkippingTests.syntheticZones()).zoneFingerprint == 0x5a5b_0f5b_e00d_ba73)
    #expect(try ZoneEvaluator(zones: HarborTests.harborZones()).zoneFingerprint == 0xa999_3087_d844_0b42)
    #expect(try ZoneEvaluator(zones: Self.ruledZones()).zoneFingerprint == 0x88df_8187_655e_382e)
  }
}
