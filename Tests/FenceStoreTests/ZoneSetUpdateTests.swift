import FenceEngine
import FenceGeometry
import FenceTestSupport
import FenceTesting
import Foundation
import Testing

@testable import FenceStore

/// The snapshots' zone set brought up to date from the ids of the changed zones: always the
/// bytes of the whole set encoded again, and a store that uses it recovers its zones.
@Suite struct ZoneSetUpdateTests {
  /// A circle zone `id` whose radius and custom data say which version it is.
  static func circleZone(_ id: String, version: Int, at index: Int) throws -> Zone {
    Zone(
      id: id, customData: ["version": .number(Double(version))],
      fences: [
        try .circle(
          id: "\(id)-c", center: base.moved(north: Double(index % 40) * 300, east: Double(index / 40) * 300),
          radius: 20 + Double(version))
      ])
  }

  /// Ids that sort in an order other than the one they are made in (and around the varied
  /// zones' ids), so that additions land between kept records, before the first and after the
  /// last.
  static func id(_ k: Int) -> String {
    ["a", "m", "z", "é", "Z", "0"][k % 6] + String(k * 7919 % 1000)
  }

  @Test func updatingGivesTheWholeEncoding() throws {
    var evaluator = ZoneEvaluator()
    try evaluator.add(try ZoneSetCodingTests.varied())
    try evaluator.add((0..<300).map { try Self.circleZone(Self.id($0), version: 0, at: $0) })
    var bytes = ZoneSetCoding.encode(evaluator.zones)
    var random = SplitMix64(seed: 13)
    var next = 300
    var rounds: [(added: Int, replaced: Int, removed: Int)] = []
    for round in 1...12 {
      var changed: Set<String> = []
      var tally = (added: 0, replaced: 0, removed: 0)
      let present = evaluator.zones.map(\.id)
      // Remove a few, replace a few, add a few (round 7 adds none, round 9 removes none).
      for _ in 0..<(round == 9 ? 0 : 1 + Int(random.next() % 4)) {
        let victim = present[Int(random.next() % UInt64(present.count))]
        if evaluator.remove(zoneID: victim) {
          changed.insert(victim)
          tally.removed += 1
        }
      }
      for _ in 0..<(1 + Int(random.next() % 4)) {
        let target = present[Int(random.next() % UInt64(present.count))]
        guard let old = evaluator.zone(id: target), old.fences.count == 1,
          case .circle = old.fences[0].area
        else { continue }
        try evaluator.add([try Self.circleZone(target, version: round, at: Int(random.next() % 500))])
        changed.insert(target)
        tally.replaced += 1
      }
      if round != 7 {
        for _ in 0..<(1 + Int(random.next() % 5)) {
          let id = Self.id(next)
          next += 1
          guard evaluator.zone(id: id) == nil else { continue }
          try evaluator.add([try Self.circleZone(id, version: round, at: next)])
          changed.insert(id)
          tally.added += 1
        }
      }
      let updated = try ZoneSetCoding.updating(bytes, changedIDs: changed) { evaluator.zone(id: $0) }
      #expect(difference(updated, ZoneSetCoding.encode(evaluator.zones)) == nil, "round \(round)")
      #expect(try ZoneSetCoding.decode(updated).count == evaluator.zoneCount)
      bytes = updated
      rounds.append(tally)
    }
    // The rounds did what they were meant to: every kind of change, many times.
    #expect(rounds.map(\.added).reduce(0, +) > 20)
    #expect(rounds.map(\.replaced).reduce(0, +) > 10)
    #expect(rounds.map(\.removed).reduce(0, +) > 10)
    #expect(rounds[6].added == 0 && rounds[8].removed == 0)

    // Naming unchanged zones, or none, gives the same bytes.
    let unchanged = Set(evaluator.zones.prefix(5).map(\.id))
    #expect(difference(try ZoneSetCoding.updating(bytes, changedIDs: unchanged) { evaluator.zone(id: $0) }, bytes) == nil)
    #expect(difference(try ZoneSetCoding.updating(bytes, changedIDs: []) { _ in nil }, bytes) == nil)
    // Every zone removed: the empty set's bytes.
    let all = Set(evaluator.zones.map(\.id))
    #expect(difference(try ZoneSetCoding.updating(bytes, changedIDs: all) { _ in nil }, ZoneSetCoding.encode([])) == nil)
    // And built up again from nothing.
    #expect(
      difference(
        try ZoneSetCoding.updating(ZoneSetCoding.encode([]), changedIDs: all) { evaluator.zone(id: $0) },
        bytes) == nil)
  }

  @Test func damagedBytesAreRefused() throws {
    var evaluator = ZoneEvaluator()
    try evaluator.add(try ZoneSetCodingTests.varied())
    let bytes = ZoneSetCoding.encode(evaluator.zones)
    for cut in [5, bytes.count / 2, bytes.count - 1] {
      #expect(throws: PayloadError.self) {
        try ZoneSetCoding.updating(Array(bytes.prefix(cut)), changedIDs: ["depot"]) { evaluator.zone(id: $0) }
      }
    }
    #expect(throws: PayloadError.self) {
      try ZoneSetCoding.updating(bytes + [0], changedIDs: []) { _ in nil }
    }
    #expect(throws: PayloadError.self) {
      try ZoneSetCoding.updating(Array("{}".utf8), changedIDs: []) { _ in nil }
    }
  }

  /// A store's snapshots after zone changes hold the whole encoding of its zones (made from the
  /// previous snapshot's bytes and the changed ids), also after a restart, whose replayed zone
  /// changes are noted as the live ones are.
  @Test func aStoreSnapshotsTheZonesItHolds() throws {
    try withTemporaryDirectory { directory in
      let path = directory.sub("store")
      let database = (path as NSString).appendingPathComponent("fence.sqlite")
      func latestZoneSet() throws -> [UInt8] {
        let storage = try SQLiteStorage(path: database)
        defer { try? storage.close() }
        return try #require(try storage.latestSnapshot()).zoneSet
      }
      let first = try (0..<40).map { try Self.circleZone(Self.id($0), version: 0, at: $0) }
      do {
        let store = try FenceStore(directory: path)
        _ = try store.execute(.replaceAllZones(first))
        try store.snapshot()
        #expect(difference(try latestZoneSet(), ZoneSetCoding.encode(store.zones)) == nil)
        _ = try store.execute(.removeZone(Self.id(3)))
        _ = try store.execute(.addZones([try Self.circleZone(Self.id(5), version: 1, at: 5)]))
        _ = try store.execute(.addZones([try Self.circleZone(Self.id(77), version: 1, at: 77)]))
        try store.snapshot()
        let expected = ZoneSetCoding.encode(store.zones)
        #expect(store.zones.count == 40)
        #expect(difference(try latestZoneSet(), expected) == nil)
        // Changes the next snapshot does not see before the restart: the log replays them.
        _ = try store.execute(.removeZone(Self.id(7)))
        _ = try store.execute(.addZones([try Self.circleZone(Self.id(9), version: 2, at: 9)]))
        try store.storage.close()  // as a kill would leave it: no snapshot on the way out
      }
      let store = try FenceStore(directory: path)
      #expect(store.recovery.commandsReplayed == 2)
      #expect(store.zones.count == 39)
      #expect(store.zones.first { $0.id == Self.id(9) }?.customData["version"] == .number(2))
      try store.snapshot()
      #expect(difference(try latestZoneSet(), ZoneSetCoding.encode(store.zones)) == nil)
      try store.close()
    }
  }
}

/// Where two byte arrays first differ and their lengths, or nil when they are equal: a failure
/// names the spot instead of printing tens of kilobytes.
private func difference(_ a: [UInt8], _ b: [UInt8]) -> String? {
  guard a != b else { return nil }
  let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
  return "first difference at byte \(first) (\(a.count) bytes against \(b.count))"
}
