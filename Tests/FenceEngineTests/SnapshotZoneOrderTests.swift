import FenceGeometry
import FenceTestSupport
import FenceTesting
import Foundation
import Testing

@testable import FenceEngine

/// A store's snapshots keep the zones' order and fingerprint from one snapshot to the next while
/// no zone changes (`snapshot(reusing:)`): every snapshot must be the one made from scratch.
@Suite struct SnapshotZoneOrderTests {
  @Test func reusedOrdersGiveTheSnapshotMadeFromScratch() throws {
    let fixes = SnapshotTests.walks(seed: 7, count: 600)
    // `b-later` begins between the 300th and the 301st fix.
    let start = fixes[299].time.adding(seconds: 0.5)
    var lifetime = ZoneRules()
    lifetime.validFrom = start
    let later = Zone(
      id: "b-later", fences: [try .circle(id: "later-c", center: at(north: 150, east: 150), radius: 150)], rules: lifetime)
    var evaluator = try ZoneEvaluator(zones: try SkippingTests.syntheticZones() + [later])
    var order: ZoneEvaluator.SnapshotZoneOrder?
    var events: [ZoneEvent] = []
    var remade: [String] = []
    var reused = 0
    /// Takes a snapshot both ways and compares them; counts whether the order was made again.
    func check(_ step: String) throws {
      let before = order?.generation
      let kept = order != nil && before == evaluator.zoneGeneration
      let snapshot = evaluator.snapshot(reusing: &order)
      let fresh = evaluator.snapshot()
      #expect(snapshot == fresh, "\(step)")
      #expect(snapshot.encoded() == fresh.encoded(), "\(step)")
      if kept { reused += 1 } else { remade.append(step) }
    }
    // The first fixes start the zone clock, which notes `b-later`'s lifetime (a zone change,
    // at the second fix).
    for fix in fixes[..<2] { evaluator.process(fix, into: &events) }
    try check("start")
    for fix in fixes[2..<150] { evaluator.process(fix, into: &events) }
    try check("fixes only")
    try check("again, nothing changed")
    try evaluator.add([try Zone.circle("new-a", center: at(north: 700, east: 2_000), radius: 90)])
    try check("a zone added")
    for fix in fixes[150..<300] { evaluator.process(fix, into: &events) }
    try check("fixes after the addition")
    let removed = evaluator.remove(zoneID: "new-a")
    #expect(removed)
    try check("a zone removed")
    // The zone clock arms `b-later` (a zone state change) at its start.
    evaluator.advance(to: start, into: &events)
    try check("the lifetime began")
    for fix in fixes[300..<450] { evaluator.process(fix, into: &events) }
    try check("fixes after the lifetime began")
    // Restored from a snapshot of another run: the same zones, other add sequences.
    var other = try ZoneEvaluator(zones: try SkippingTests.syntheticZones() + [later])
    for fix in fixes[..<50] { other.process(fix, into: &events) }
    try evaluator.restore(other.snapshot())
    try check("restored")
    try evaluator.replaceAll(with: try SkippingTests.syntheticZones())
    try check("every zone replaced")
    for fix in fixes[450...] { evaluator.process(fix, into: &events) }
    try check("fixes at the end")
    #expect(
      remade == [
        "start", "a zone added", "a zone removed", "the lifetime began", "restored",
        "every zone replaced",
      ])
    #expect(reused == 5)
  }

  /// `loaded(configuration:zones:)` gives the id order `zoneSlotsInIDOrder()` sorts, from the
  /// order the zones were applied in when they come in ascending id order: a large set (put in
  /// spatial order, applied in file order), one with a lifetime (applied in spatial order, not
  /// in file order), a small one; and sorted when they do not come in id order. Restoring
  /// with it gives what the public restore gives, and the order it hands back is the one the
  /// next snapshot would make.
  @Test func loadedZonesGiveTheirIDOrderWithoutASort() throws {
    var generator = SeededGenerator(seed: 17)
    func circle(_ id: String, lifetime: Bool = false) throws -> Zone {
      var zone = try Zone.circle(
        id, center: at(north: Double.random(in: 0...2000, using: &generator),
          east: Double.random(in: 0...2000, using: &generator)), radius: 50)
      if lifetime { zone.rules.validUntil = Timestamp(microsecondsSinceEpoch: 9_000_000_000_000_000) }
      return zone
    }
    let ids = (0..<600).map { "z\(100_000 + $0 * 7)" }
    let sets: [(label: String, zones: [Zone])] = [
      ("large", try ids.map { try circle($0) }),
      ("with a lifetime", try ids.map { try circle($0, lifetime: $0.hasSuffix("7")) }),
      ("small", try ids.prefix(40).map { try circle($0) }),
      ("not in id order", try ids.shuffled(using: &generator).map { try circle($0) }),
    ]
    for (label, zones) in sets {
      let (evaluator, slots) = try ZoneEvaluator.loaded(configuration: .default, zones: zones)
      #expect(slots == evaluator.zoneSlotsInIDOrder(), "\(label)")
      // The large set was put in spatial order: its slots are not its id order.
      if label == "large" { #expect(slots != Array(0..<Int32(600))) }

      var source = try ZoneEvaluator(zones: zones)
      // A device checked in to the first zone (and any circle over it), so that the snapshot
      // holds records.
      let box = zones[0].fences[0].area.boundingBox
      var events: [ZoneEvent] = []
      source.process(
        LocationFix(
          device: "d", time: Timestamp(microsecondsSinceEpoch: 1_000_000),
          latitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2),
        into: &events)
      #expect(!events.isEmpty && events.allSatisfy { $0.kind == .checkIn }, "\(label)")
      let snapshot = source.snapshot()
      var restored = evaluator
      let order = try restored.restore(snapshot, zoneSlotsInIDOrder: slots)
      var reference = evaluator
      try reference.restore(snapshot)
      #expect(restored.snapshot() == reference.snapshot(), "\(label)")
      #expect(order.slots == slots && order.fingerprint == snapshot.zoneFingerprint, "\(label)")
    }
  }

  /// The order after zone changes, brought up to date from the one before, is the sorted order:
  /// random rounds of removals, additions (ids before, between and after the others, many
  /// refilling freed slots) and replacements; and from orders that are not this evaluator's
  /// (reversed, shuffled, with a slot twice, slots out of range).
  @Test func ordersBroughtUpToDateAreTheSortedOrder() throws {
    func circle(_ id: String) throws -> Zone {
      try Zone.circle(id, center: at(north: 10, east: 10), radius: 50)
    }
    var evaluator = try ZoneEvaluator(
      zones: try (0..<200).map { try circle("m\(1000 + $0 * 10)") })
    var previous = evaluator.zoneSlotsInIDOrder()
    var generator = SeededGenerator(seed: 11)
    var next = 0
    // How many zones each round's update had to sort and merge in (the rest were kept).
    var sortedPerRound: [Int] = []
    for _ in 0..<60 {
      let ids = evaluator.zones.map(\.id)
      for _ in 0..<Int.random(in: 0...4, using: &generator) {
        _ = evaluator.remove(zoneID: ids.randomElement(using: &generator)!)
      }
      var added: [Zone] = []
      for _ in 0..<Int.random(in: 0...4, using: &generator) {
        next += 1
        // Before every other id, after them, or between two.
        let prefix = ["a", "z", "m"].randomElement(using: &generator)!
        added.append(try circle("\(prefix)\(1000 + Int.random(in: 0..<2000, using: &generator))-\(next)"))
      }
      if Bool.random(using: &generator), let replaced = ids.randomElement(using: &generator),
        evaluator.zone(id: replaced) != nil
      {
        added.append(try circle(replaced))
      }
      try evaluator.add(added)
      let sorted = evaluator.zoneSlotsInIDOrder()
      let updated = evaluator.zoneSlotsInIDOrder(updating: previous)
      #expect(updated.slots == sorted)
      sortedPerRound.append(updated.sorted)
      previous = sorted
    }
    // The rounds went through both ways: nothing to merge, and added or refilled zones.
    #expect(sortedPerRound.filter { $0 == 0 }.count == 11)
    #expect(sortedPerRound.reduce(0, +) == 138)
    #expect(evaluator.zones.count == 194)
    #expect(evaluator.zoneSlotsInIDOrder(updating: previous) == (previous, 0))
    var shuffled = previous
    shuffled.shuffle(using: &generator)
    for other in [
      Array(previous.reversed()), shuffled, previous + previous.prefix(3), [], [-1, 5_000] + previous,
    ] {
      #expect(evaluator.zoneSlotsInIDOrder(updating: other).slots == previous)
    }
  }

  /// A freed slot refilled by a zone whose id sorts after all others is the only one sorted:
  /// the slots after it in the old order are kept.
  @Test func aRefilledSlotIsTheOnlyOneSorted() throws {
    var evaluator = try ZoneEvaluator(
      zones: try (0..<100).map {
        try Zone.circle("m\(1000 + $0)", center: at(north: 10, east: 10), radius: 50)
      })
    let previous = evaluator.zoneSlotsInIDOrder()
    let removed = evaluator.remove(zoneID: "m1040")
    #expect(removed)
    try evaluator.add([try Zone.circle("z-last", center: at(north: 10, east: 10), radius: 50)])
    let slot = try #require(evaluator.zoneSlot(id: "z-last"))
    #expect(slot == previous[40])
    let updated = evaluator.zoneSlotsInIDOrder(updating: previous)
    #expect(updated.slots == evaluator.zoneSlotsInIDOrder())
    #expect(updated.sorted == 1)
  }
}
