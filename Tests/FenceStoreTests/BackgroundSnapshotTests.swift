import FenceEngine
import FenceTestSupport
import FenceTesting
import Foundation
import Synchronization
import Testing

@testable import FenceStore

/// Snapshots made and written in the background while commands go on: each holds the state of
/// the command it was taken after, whatever came while it was written; the zone set the next
/// one brings up to date takes in every zone changed meanwhile, whether the one in flight was
/// written or failed; and a store recovers from them.
@Suite struct BackgroundSnapshotTests {
  struct InjectedFailure: Error {}

  /// The embedded storage, whose next snapshot write can be held until the test lets it go on
  /// (or a minute passed: a store that waited for it under its lock then shows as
  /// ``heldTooLong`` instead of hanging the test), and fail.
  @available(macOS 15.0, *)  // Mutex is macOS 15 API; the package supports macOS 13
  final class GatedStorage: SQLiteForwardingStorage, @unchecked Sendable {
    let holdsNextSnapshot = Mutex(false)
    let failsNextSnapshot = Mutex(false)
    let heldTooLong = Mutex(false)
    /// Signalled when a held snapshot write arrived.
    let arrived = DispatchSemaphore(value: 0)
    /// Signalled by the test to let it go on.
    let released = DispatchSemaphore(value: 0)

    override func writeSnapshot(_ snapshot: SnapshotRecord) throws {
      if holdsNextSnapshot.withLock({ holds in defer { holds = false }; return holds }) {
        arrived.signal()
        if released.wait(timeout: .now() + 60) == .timedOut { heldTooLong.withLock { $0 = true } }
      }
      if failsNextSnapshot.withLock({ fails in defer { fails = false }; return fails }) {
        throw InjectedFailure()
      }
      try base.writeSnapshot(snapshot)
    }
  }

  /// Zones added, replaced and removed between fixes: `[2]` adds the pier, `[4]` replaces the
  /// depot, `[5]` removes the gate, `[7]` adds the dock.
  static let commands: [StoreCommand] = [
    .replaceAllZones([Story.depot, Story.yard, Story.gate]),
    Story.fixes(0, 150),
    .addZones([Story.pier]),
    Story.fixes(150, 300),
    .addZones([Story.depotWider]),
    .removeZone("gate"),
    Story.fixes(300, 450),
    .addZones([Story.dock]),
    Story.fixes(450, 600),
  ]

  /// The reference after the first `count` commands.
  static func reference(after count: Int) throws -> Reference {
    var reference = Reference()
    for command in commands.prefix(count) { try reference.apply(command) }
    return reference
  }

  /// Runs `body` with a store (a snapshot every 2 commands, not paced: a held write's time
  /// would count as the snapshot's and delay the next one) on a ``GatedStorage`` in a
  /// temporary directory.
  @available(macOS 15.0, *)
  static func withGatedStore(
    _ label: String, _ body: (GatedStorage, FenceStore, TemporaryDirectory) throws -> Void
  ) async throws {
    try await offThePool {
      try withTemporaryDirectory(label) { directory in
        let storage = try GatedStorage(path: SQLiteStorage.databasePath(in: directory.path))
        let store = try FenceStore(
          storage: storage,
          options: FenceStore.Options(snapshotEvery: 2, slowSnapshotSeconds: .infinity))
        try body(storage, store, directory)
        try store.close()
      }
    }
  }

  /// Executes `commands[range]`, checking each answer against the reference.
  static func execute(_ range: Range<Int>, on store: FenceStore) throws {
    let reference = try reference(after: range.upperBound)
    for index in range {
      expectAnswer(try store.execute(commands[index]), reference.answers[index])
    }
  }

  @Test func commandsGoOnWhileASnapshotIsWrittenAndItHoldsTheStateItWasTakenAt() async throws {
    guard #available(macOS 15.0, *) else { return }
    try await Self.withGatedStore("background") { storage, store, directory in
      #expect(store.statistics.lastSnapshotSeconds == 0)
      try Self.execute(0..<2, on: store)
      store.waitForSnapshots()
      #expect(try storage.latestSnapshot()?.commandSeq == 2)
      #expect(store.statistics.lastSnapshotSeconds > 0)

      // The snapshot after command 4 is held in its write while commands 5-7 (a replaced zone,
      // a removed one, fixes) are answered.
      storage.holdsNextSnapshot.withLock { $0 = true }
      try Self.execute(2..<4, on: store)
      storage.arrived.wait()
      try Self.execute(4..<7, on: store)
      #expect(try storage.latestSnapshot()?.commandSeq == 2)
      storage.released.signal()
      store.waitForSnapshots()
      #expect(!storage.heldTooLong.withLock { $0 })

      // It holds the engine and zones after command 4, not after 7.
      let atFour = try Self.reference(after: 4)
      let written = try #require(try storage.latestSnapshot())
      #expect(written.commandSeq == 4)
      #expect(written.lastEventSeq == atFour.eventSeq)
      #expect(written.evaluator == atFour.evaluator.snapshot().encoded())
      #expect(written.zoneSet == ZoneSetCoding.encode(atFour.evaluator.zones))

      // The next snapshot brings that zone set up to date with the zones changed while it was
      // written (the depot replaced, the gate removed): the bytes of the whole set encoded.
      try store.snapshot()
      let atSeven = try Self.reference(after: 7)
      let next = try #require(try storage.latestSnapshot())
      #expect(next.commandSeq == 7)
      #expect(next.evaluator == atSeven.evaluator.snapshot().encoded())
      #expect(next.zoneSet == ZoneSetCoding.encode(atSeven.evaluator.zones))

      // A store killed now recovers from it, replaying nothing, and goes on as the reference.
      let crashed = directory.sub("crashed")
      try crashCopy(from: directory.path, to: crashed)
      let recovered = try openStore(crashed, snapshotEvery: 2)
      #expect(recovered.recovery.snapshotCommandSeq == 7)
      #expect(recovered.recovery.commandsReplayed == 0)
      #expect(recovered.zones == atSeven.evaluator.zones)
      try Self.execute(7..<Self.commands.count, on: recovered)
      let whole = try Self.reference(after: Self.commands.count)
      #expect(try allLines(recovered) == whole.lines)
      try recovered.close()
    }
  }

  @Test func aSnapshotThatFailedInTheBackgroundLosesNoZoneChange() async throws {
    guard #available(macOS 15.0, *) else { return }
    try await Self.withGatedStore("failed") { storage, store, directory in
      try Self.execute(0..<2, on: store)
      store.waitForSnapshots()

      // The snapshot after command 4 (which added the pier after the last one) fails, after
      // commands 5-6 changed two more zones.
      storage.holdsNextSnapshot.withLock { $0 = true }
      storage.failsNextSnapshot.withLock { $0 = true }
      try Self.execute(2..<4, on: store)
      storage.arrived.wait()
      try Self.execute(4..<6, on: store)
      storage.released.signal()
      store.waitForSnapshots()
      #expect(try storage.latestSnapshot()?.commandSeq == 2)

      // It is taken again after the next command, with all three changes.
      try Self.execute(6..<7, on: store)
      store.waitForSnapshots()
      let atSeven = try Self.reference(after: 7)
      let next = try #require(try storage.latestSnapshot())
      #expect(next.commandSeq == 7)
      #expect(next.evaluator == atSeven.evaluator.snapshot().encoded())
      #expect(next.zoneSet == ZoneSetCoding.encode(atSeven.evaluator.zones))
    }
  }

  @Test func aCompactionWhileASnapshotIsWrittenWritesItsOwnAfterIt() async throws {
    guard #available(macOS 15.0, *) else { return }
    try await Self.withGatedStore("compaction") { storage, store, _ in
      storage.holdsNextSnapshot.withLock { $0 = true }
      try Self.execute(0..<2, on: store)
      storage.arrived.wait()
      try Self.execute(2..<3, on: store)
      // The compaction waits for the snapshot in flight (at command 2), then writes its own at
      // command 3 and drops the log through it.
      let finished = DispatchSemaphore(value: 0)
      let outcome = Mutex<Result<CompactionReport, any Error>?>(nil)
      Thread {
        let result = Result { try store.compact(eventRetention: 0) }
        outcome.withLock { $0 = result }
        finished.signal()
      }.start()
      storage.released.signal()
      finished.wait()
      let report = try #require(outcome.withLock { $0 }).get()
      #expect(!storage.heldTooLong.withLock { $0 })
      let atThree = try Self.reference(after: 3)
      let latest = try #require(try storage.latestSnapshot())
      #expect(latest.commandSeq == 3)
      #expect(latest.evaluator == atThree.evaluator.snapshot().encoded())
      #expect(report.commands == 3)
      #expect(report.snapshots == 1)
      #expect(try storage.commands(after: 0, limit: 10).isEmpty)
    }
  }

  /// Snapshots made while the next commands run (one taken after every command, when none is
  /// in flight), with zones removed and added back between fix batches: the log, a copy of the
  /// files taken halfway (a kill), and the store reopened after its close all give the
  /// reference's events and zones. Under ThreadSanitizer in CI, this is where the snapshot's
  /// reads of the shared tables meet the commands' writes.
  @Test func snapshotsMadeWhileCommandsRunLeaveALogThatRecovers() async throws {
    try await offThePool {
      let zones = try Harbor.zones()
      var commands: [StoreCommand] = []
      for (index, command) in try Harbor.commands(batchSize: 400).enumerated() {
        commands.append(command)
        guard index > 0, index % 3 == 0 else { continue }
        let zone = zones[(index / 3) % zones.count]
        commands.append(.removeZone(zone.id))
        commands.append(.addZones([zone]))
      }
      let reference = try Reference.run(commands)
      try withTemporaryDirectory("concurrent") { directory in
        let store = try FenceStore(
          directory: directory.sub("store"),
          options: FenceStore.Options(snapshotEvery: 1, slowSnapshotSeconds: .infinity),
          durability: .normal)
        let half = commands.count / 2
        for (index, command) in commands.prefix(half).enumerated() {
          expectAnswer(try store.execute(command), reference.answers[index])
        }
        try crashCopy(from: directory.sub("store"), to: directory.sub("killed"))
        for (index, command) in commands.enumerated().dropFirst(half) {
          expectAnswer(try store.execute(command), reference.answers[index])
        }
        #expect(try allLines(store) == reference.lines)
        try store.close()

        let reopened = try openStore(directory.sub("store"), snapshotEvery: 1)
        #expect(reopened.recovery.commandsReplayed == 0)
        #expect(reopened.recovery.snapshotCommandSeq == reference.commandSeq)
        #expect(reopened.zones == reference.evaluator.zones)
        #expect(try allLines(reopened) == reference.lines)
        try reopened.close()

        let killed = try openStore(directory.sub("killed"), snapshotEvery: 1)
        #expect(killed.recovery.commandSeq == Int64(half))
        for (index, command) in commands.enumerated().dropFirst(half) {
          expectAnswer(try killed.execute(command), reference.answers[index])
        }
        #expect(try allLines(killed) == reference.lines)
        #expect(killed.zones == reference.evaluator.zones)
        try killed.close()
      }
    }
  }
}
