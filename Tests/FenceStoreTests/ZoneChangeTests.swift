import FenceFormats
@testable import FenceEngine
@testable import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// Zones changing in the middle of a stream, as durable commands ordered with the fixes: a zone
/// replaced with another radius keeps the device's stay, an added zone checks in from the next
/// fix, a removed zone drops its state without an event, removing an absent zone commits
/// nothing; and a restart (clean or killed) between any two of them changes nothing.
@Suite struct StoreZoneChangeTests {
  enum Restart: String, CaseIterable, CustomTestStringConvertible {
    /// One store throughout.
    case none
    /// Closed (a snapshot) and reopened between commands.
    case close
    /// Killed between commands: its files copied while open, the copy reopened.
    case crash

    var testDescription: String { rawValue }
  }

  static let z = try! Zone.circle("z", center: base, radius: 100, customData: ["v": .number(1)])
  static let zWider = try! Zone.circle(
    "z", center: base, radius: 300, customData: ["v": .number(2)])
  static let w = try! Zone.circle("w", center: base.moved(north: 2000), radius: 100)

  /// Runs the story step by step, restarting as told after every step; checks each answer and
  /// each step's events exactly.
  @Test(arguments: Restart.allCases, [1, 1000])
  func zonesChangeInTheMiddleOfAStream(restart: Restart, snapshotEvery: Int) async throws {
    try await offThePool {
      typealias Step = (command: StoreCommand, answer: String?, events: [String])
      let a = "a"
      let steps: [Step] = [
        (.replaceAllZones([Self.z]), "{\"zones\":1,\"fences\":1,\"geolines\":0}", []),
        (
          .fixes([fix(a, 0, base), fix(a, 10, base.moved(north: 150)), fix(a, 20, base)]), nil,
          ["0 checkIn a z/z", "10 checkOut a z/z in=0 duration=10", "20 checkIn a z/z"]
        ),
        // Replaced with a 300 m radius: the stay goes on.
        (.addZones([Self.zWider]), "{\"zones\":1,\"fences\":1,\"geolines\":0}", []),
        (
          .fixes([
            fix(a, 30, base.moved(north: 200)), fix(a, 40, base.moved(north: 400)),
            fix(a, 50, base.moved(north: 250)),
          ]), nil, ["40 checkOut a z/z in=20 duration=20", "50 checkIn a z/z"]
        ),
        (.addZones([Self.w]), "{\"zones\":2,\"fences\":2,\"geolines\":0}", []),
        (
          .fixes([fix(a, 60, base.moved(north: 2000))]), nil,
          ["60 checkOut a z/z in=50 duration=10", "60 checkIn a w/w"]
        ),
        // Removed while the device is inside: no event, its state dropped.
        (.removeZone("w"), "{\"zones\":1,\"fences\":1,\"geolines\":0}", []),
        // Absent zones: nothing committed.
        (.removeZone("w"), nil, []),
        (.removeZone("nope"), nil, []),
        (.fixes([fix(a, 70, base.moved(north: 2000)), fix(a, 80, base)]), nil, ["80 checkIn a z/z"]),
        // The whole set replaced: z back to 100 m (the stay kept), w new.
        (.replaceAllZones([Self.z, Self.w]), "{\"zones\":2,\"fences\":2,\"geolines\":0}", []),
        (
          .fixes([fix(a, 90, base.moved(north: 150)), fix(a, 100, base.moved(north: 2000))]), nil,
          ["90 checkOut a z/z in=80 duration=10", "100 checkIn a w/w"]
        ),
        // Replaced by w alone: z removed.
        (.replaceAllZones([Self.w]), "{\"zones\":1,\"fences\":1,\"geolines\":0}", []),
        (
          .fixes([fix(a, 110, base), fix(a, 120, base.moved(north: 2000))]), nil,
          ["110 checkOut a w/w in=100 duration=10", "120 checkIn a w/w"]
        ),
      ]

      var reference = Reference()
      try withTemporaryDirectory("zones-\(restart)-\(snapshotEvery)") { directory in
        var generation = 0
        var path = directory.sub("0")
        var store = try openStore(path, snapshotEvery: snapshotEvery)
        for (index, step) in steps.enumerated() {
          let eventsBefore = reference.eventSeq
          let commandsBefore = reference.commandSeq
          let expected = try reference.apply(step.command)
          let answer = try store.execute(step.command)
          expectAnswer(answer, expected)
          if let json = step.answer {
            #expect(answer?.json == json, "step \(index)")
          } else if case .removeZone = step.command {
            #expect(answer == nil, "step \(index)")
            #expect(store.statistics.commandSeq == commandsBefore, "step \(index)")
          } else {
            #expect(answer?.events == step.events.count, "step \(index)")
          }
          let events = try store.events(after: eventsBefore).map { try ZoneEvent(ndjsonLine: $0.line) }
          #expect(events.map(describe) == step.events, "step \(index)")
          #expect(store.zones == reference.evaluator.zones, "step \(index)")

          switch restart {
          case .none: break
          case .close:
            try store.close()
            store = try openStore(path, snapshotEvery: snapshotEvery)
            #expect(store.recovery.snapshotCommandSeq == reference.commandSeq || reference.commandSeq == 0)
            #expect(store.recovery.commandsReplayed == 0)
          case .crash:
            generation += 1
            let next = directory.sub("\(generation)")
            // The snapshot due after the step is written in the background: the copy waits for it.
            store.waitForSnapshots()
            try crashCopy(from: path, to: next)
            let crashed = store
            store = try openStore(next, snapshotEvery: snapshotEvery)
            try crashed.close()
            path = next
            let replayed = snapshotEvery == 1 ? 0 : Int(reference.commandSeq)
            #expect(store.recovery.commandsReplayed == replayed, "step \(index)")
          }
          #expect(store.recovery.commandSeq == reference.commandSeq || restart == .none)
          #expect(store.statistics.commandSeq == reference.commandSeq, "step \(index)")
          #expect(store.statistics.eventSeq == reference.eventSeq, "step \(index)")
          #expect(store.zones == reference.evaluator.zones, "step \(index)")
        }
        #expect(reference.commandSeq == 12)
        #expect(reference.eventSeq == 12)
        let stored = try store.events(after: 0)
        expectGapless(stored)
        #expect(stored.map(\.line) == reference.lines)
        // The check-out after the replace carries the new zone's data.
        let checkOut = try ZoneEvent(ndjsonLine: stored[3].line)
        #expect(describe(checkOut) == "40 checkOut a z/z in=20 duration=20")
        #expect(checkOut.customData == ["v": .number(2)])
        #expect(store.zones.map(\.id) == ["w"])
        try store.close()
      }
    }
  }

  @Test func theReplacedRadiusIsTheOneLoadedAfterARestart() async throws {
    try await offThePool {
      try withTemporaryDirectory("zones-radius") { directory in
        let store = try openStore(directory.path)
        try store.execute(.replaceAllZones([Self.z, Self.w]))
        try store.execute(.addZones([Self.zWider]))
        try store.close()
        let reopened = try openStore(directory.path)
        guard case .circle(let circle)? = reopened.zone(id: "z")?.fences.first?.area else {
          Issue.record("z is not a circle after the restart")
          return
        }
        #expect(circle.radius == 300)
        #expect(circle.center == base)
        #expect(reopened.zone(id: "z")?.customData == ["v": .number(2)])
        #expect(reopened.zone(id: "w") == Self.w)
        #expect(reopened.zones == [Self.w, Self.zWider])
        try reopened.close()
      }
    }
  }

  @Test func aZoneThatDoesNotLoadChangesNothing() async throws {
    try await offThePool {
      try withTemporaryDirectory("zones-invalid") { directory in
        let store = try openStore(directory.path)
        try store.execute(.replaceAllZones([Self.z]))
        // A fence id used by another zone.
        let clash = Zone(
          id: "other", fences: [try .circle(id: "z", center: base.moved(north: 5000), radius: 50)])
        #expect(throws: ZoneError.self) { try store.execute(.addZones([clash])) }
        #expect(throws: ZoneError.self) { try store.execute(.replaceAllZones([Self.w, clash, Self.w])) }
        #expect(store.statistics.commandSeq == 1)
        #expect(store.zones == [Self.z])
        let answer = try #require(try store.execute(.fixes([fix("a", 0, base)])))
        #expect(answer.commandSeq == 2)
        #expect(answer.firstSeq == 1)
        try store.close()
        let reopened = try openStore(directory.path)
        #expect(reopened.recovery.commandSeq == 2)
        #expect(reopened.zones == [Self.z])
        try reopened.close()
      }
    }
  }

  /// Names and descriptions do not change events, so the engine's zone fingerprint leaves them
  /// out; the zones a store serves after a restart must still be the ones last acknowledged.
  @Test func aRenamedZoneKeepsItsNewNameAfterARestart() async throws {
    try await offThePool {
      var old = Self.z
      old.name = "Old name"
      old.description = "old description"
      var renamed = Self.z
      renamed.name = "New name"
      renamed.description = "new description"
      try withTemporaryDirectory("zones-renamed") { directory in
        let store = try openStore(directory.path)
        try store.execute(.replaceAllZones([old]))
        try store.close()  // a snapshot with the old names
        let second = try openStore(directory.path)
        try second.execute(.addZones([renamed]))
        #expect(second.zone(id: "z")?.name == "New name")
        try second.close()  // a snapshot with the new names
        let third = try openStore(directory.path)
        #expect(third.recovery.snapshotCommandSeq == 2)
        #expect(third.zone(id: "z")?.name == "New name")
        #expect(third.zone(id: "z")?.description == "new description")
        #expect(third.zones == [renamed])
        try third.close()
      }
    }
  }

  /// A store with no zone at all (never loaded, or all removed) snapshots and recovers.
  @Test func aStoreWithoutZonesSnapshotsAndRecovers() async throws {
    try await offThePool {
      try withTemporaryDirectory("zones-none") { directory in
        let store = try openStore(directory.path)
        let answer = try #require(try store.execute(.fixes([fix("a", 0, base), fix("a", 0, base)])))
        #expect(answer.accepted == 1)
        #expect(answer.rejected[.duplicate] == 1)
        #expect(answer.events == 0)
        #expect(answer.firstSeq == nil)
        try store.close()
        let second = try openStore(directory.path)
        #expect(second.recovery.snapshotCommandSeq == 1)
        #expect(second.zones.isEmpty)
        try second.execute(.replaceAllZones([Self.z]))
        try second.execute(.fixes([fix("a", 10, base)]))
        #expect(try second.execute(.removeZone("z"))?.json == "{\"zones\":0,\"fences\":0,\"geolines\":0}")
        try second.close()
        let third = try openStore(directory.path)
        #expect(third.recovery.snapshotCommandSeq == 4)
        #expect(third.zones.isEmpty)
        #expect(try third.execute(.replaceAllZones([]))?.json == "{\"zones\":0,\"fences\":0,\"geolines\":0}")
        try crashCopy(from: directory.path, to: directory.sub("crashed"))
        try third.close()
        let crashed = try openStore(directory.sub("crashed"))
        #expect(crashed.recovery.commandsReplayed == 1)
        #expect(crashed.recovery.commandSeq == 5)
        #expect(try allEvents(crashed).map(describe) == ["10 checkIn a z/z"])
        try crashed.close()
      }
    }
  }

  /// A self-intersecting polygon: the native engine takes it, but the loader (and so the
  /// writer of the command log) refuses it. The store must refuse it as a whole: nothing
  /// committed, the engine as before, and the store still opens.
  @Test func aZoneTheLogCannotHoldIsRefusedAndNothingIsCommitted() async throws {
    try await offThePool {
      let bowTie = try Zone.polygon(
        "bow-tie",
        [
          base.moved(north: -100, east: -100), base.moved(north: 100, east: 100),
          base.moved(north: 100, east: -100), base.moved(north: -100, east: 100),
        ])
      var engine = ZoneEvaluator()
      try engine.add([bowTie])  // the engine alone accepts it
      try withTemporaryDirectory("zones-bow-tie") { directory in
        let store = try openStore(directory.path)
        try store.execute(.replaceAllZones([Self.z]))
        try store.execute(.fixes([fix("a", 0, base)]))
        let before = store.statistics
        #expect(throws: (any Error).self) { try store.execute(.addZones([bowTie])) }
        #expect(throws: (any Error).self) { try store.execute(.replaceAllZones([bowTie])) }
        #expect(store.statistics.commandSeq == before.commandSeq)
        #expect(store.zones == [Self.z])
        #expect(store.deviceStatus(named: "a")?.inside.map(\.zone) == ["z"])
        let answer = try #require(try store.execute(.fixes([fix("a", 10, base.moved(north: 500))])))
        #expect(answer.commandSeq == 3)
        #expect(try allEvents(store).map(describe) == ["0 checkIn a z/z", "10 checkOut a z/z in=0 duration=10"])
        try store.close()
        let reopened = try openStore(directory.path)
        #expect(reopened.recovery.commandSeq == 3)
        #expect(reopened.zones == [Self.z])
        try reopened.close()
      }
    }
  }
}

/// The zone id table a large first load or a restore leaves for its first use is built off the
/// lock right after (``FenceStore/buildDeferredTablesInBackground(_:)``), so that a daemon's
/// first zone change finds it built; the changes then answer as without it.
@Suite struct DeferredZoneTableStoreTests {
  /// Whether the store's zone id table is deferred, and built in its box.
  private func table(of store: FenceStore) -> (deferred: Bool, built: Bool) {
    store.engine.withLock { state in
      (state.evaluator.zoneSlotByID.isDeferred, state.evaluator.zoneSlotByID.isBuiltInBox)
    }
  }

  @Test func theTableIsBuiltAfterTheFirstLoadAndAfterARestore() throws {
    try withTemporaryDirectory { directory in
      let zones = try (0..<300).map { k in
        try Zone.circle(
          String(format: "zone-%03d", k), center: base.moved(north: Double(k / 20) * 500, east: Double(k % 20) * 500),
          radius: 100)
      }
      let path = directory.sub("store")
      do {
        let store = try FenceStore(directory: path)
        _ = try store.execute(.replaceAllZones(zones))
        store.waitForBackgroundBuilds()
        #expect(table(of: store) == (true, true))
        try store.close()
      }
      let store = try FenceStore(directory: path)
      #expect(store.recovery.snapshotCommandSeq == 1)
      store.waitForBackgroundBuilds()
      #expect(table(of: store) == (true, true))
      #expect(try store.execute(.removeZone("zone-007")) != nil)
      #expect(try store.execute(.removeZone("zone-007")) == nil)
      #expect(store.zones.map(\.id) == zones.map(\.id).filter { $0 != "zone-007" })
      #expect(table(of: store) == (false, false))
      try store.close()
    }
  }
}
