import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// Guarantee 2 of `fenced.md`: a store killed between any two commands (its files copied while
/// it is open, so no snapshot is written on close) recovers on restart, and going on with the
/// remaining commands gives the event log of a run that was never interrupted.
@Suite struct RecoveryFromEveryBoundaryTests {
  @Test(arguments: [2, 1000])
  func theStoryRecoversFromEveryCommandBoundary(snapshotEvery: Int) async throws {
    try await offThePool {
      try checkEveryBoundary(Story.commands, snapshotEvery: snapshotEvery, label: "story")
    }
  }

  /// Snapshots written before the command that made them due is answered (the store's
  /// lock held meanwhile), as before snapshots were written in the background.
  @Test func theStoryRecoversFromEveryCommandBoundaryWithSnapshotsWrittenInline() async throws {
    try await offThePool {
      try checkEveryBoundary(Story.commands, snapshotEvery: 2, inBackground: false, label: "inline")
    }
  }

  @Test(arguments: [2, 1000])
  func theHarborHourRecoversFromEveryCommandBoundary(snapshotEvery: Int) async throws {
    try await offThePool {
      try checkEveryBoundary(
        try Harbor.commands(batchSize: 2200), snapshotEvery: snapshotEvery, label: "harbor")
    }
  }

  /// Other engine configurations: proximity monitoring (monitored-set events) with rejection
  /// diagnostics; the GEOS predicates with skipping and a speed check.
  static let configurations: [ZoneEvaluator.Configuration] = [
    .init(proximity: .init(count: 3, radius: 1500), reportsRejections: true),
    .init(maximumSpeed: 60, predicateBackend: .geosPrepared, skipsUnchangedFixes: true),
  ]

  @Test(arguments: configurations)
  func theStoryRecoversFromEveryCommandBoundaryWithOtherConfigurations(
    configuration: ZoneEvaluator.Configuration
  ) async throws {
    try await offThePool {
      try checkEveryBoundary(
        Story.commands, snapshotEvery: 2, configuration: configuration, label: "configured")
    }
  }

  /// Names with quotes, newlines and non-ASCII text, custom data with nesting, and fixes with
  /// every optional member or impossible coordinates go through the log and the snapshots
  /// exactly.
  @Test func unusualNamesAndValuesSurviveRecovery() async throws {
    try await offThePool {
      let zone = try Zone.circle(
        "zoné \"q\"\n☃", center: base, radius: 120.125,
        rules: ZoneRules(minimumRetriggerTime: 0.5, dwell: 7.25, exitHysteresis: 3.5),
        customData: [
          "nested": .object(["list": .array([.number(1.5), .string("ü"), .null, .bool(true)])]),
          "emoji": .string("🚢\t\u{1}"),
        ])
      let line = try Zone.geoline(
        "line/😀", [base.moved(north: 300, east: -200), base.moved(north: 300, east: 200)],
        direction: .leftToRight)
      let device = "dev \"ice\"\n🚢"
      let commands: [StoreCommand] = [
        .replaceAllZones([zone, line]),
        .fixes([
          LocationFix(
            device: device, time: at(0.000001), latitude: base.latitude, longitude: base.longitude,
            accuracy: 4.25, speed: 3.125, course: 359.875),
          LocationFix(device: device, time: at(1), latitude: .nan, longitude: 0),
          LocationFix(device: device, time: at(2), latitude: 0, longitude: 0),
          LocationFix(device: device, time: at(3), latitude: 95, longitude: -74),
          LocationFix(
            device: device, time: at(10.5), latitude: base.moved(north: 500).latitude,
            longitude: base.longitude, speed: 50.0625),
          LocationFix(
            device: "", time: at(11), latitude: base.latitude, longitude: base.longitude,
            accuracy: 100),
        ]),
        .advance(at(30)),
      ]
      let reference = try Reference.run(commands)
      #expect(reference.answers[1].rejected[.invalidCoordinate] == 2)
      #expect(reference.answers[1].rejected[.nullIsland] == 1)
      let described = try reference.lines.map { describe(try ZoneEvent(ndjsonLine: $0)) }
      #expect(
        described == [
          "1e-06 checkIn dev \"ice\"\n🚢 zoné \"q\"\n☃/zoné \"q\"\n☃",
          "7.250001 dwell dev \"ice\"\n🚢 zoné \"q\"\n☃/zoné \"q\"\n☃ in=1e-06",
          "10.5 checkOut dev \"ice\"\n🚢 zoné \"q\"\n☃/zoné \"q\"\n☃ in=1e-06 duration=10.499999",
          "11 checkIn  zoné \"q\"\n☃/zoné \"q\"\n☃",
          "18.25 dwell  zoné \"q\"\n☃/zoné \"q\"\n☃ in=11",
        ])
      // Speed and course are copied from the fix onto its events, to the last bit.
      #expect(reference.lines[0].contains("\"speed\":3.125,\"course\":359.875"))
      try checkEveryBoundary(commands, snapshotEvery: 1, label: "unusual")
    }
  }

  /// A recovered store is itself recoverable: crash, recover, run two commands, crash again.
  @Test func aStoreRecoversAgainAfterARecovery() async throws {
    try await offThePool {
      let commands = Story.commands
      let reference = try Reference.run(commands)
      try withTemporaryDirectory("twice") { directory in
        let first = try openStore(directory.sub("1"), snapshotEvery: 3)
        for command in commands.prefix(5) { try first.execute(command) }
        // The snapshot due at command 3 may still be written in the background.
        first.waitForSnapshots()
        try crashCopy(from: directory.sub("1"), to: directory.sub("2"))
        try first.close()
        let second = try openStore(directory.sub("2"), snapshotEvery: 3)
        #expect(second.recovery.snapshotCommandSeq == 3)
        #expect(second.recovery.commandsReplayed == 2)
        for command in commands[5..<7] { try second.execute(command) }
        second.waitForSnapshots()
        try crashCopy(from: directory.sub("2"), to: directory.sub("3"))
        try second.close()
        let third = try openStore(directory.sub("3"), snapshotEvery: 3)
        // The second store snapshotted after its first command (2 replayed + 1 new = 3).
        #expect(third.recovery.snapshotCommandSeq == 6)
        #expect(third.recovery.commandsReplayed == 1)
        #expect(third.recovery.commandSeq == 7)
        #expect(third.recovery.eventSeq == reference.eventSeq(afterCommands: 7))
        for (index, command) in commands.enumerated().dropFirst(7) {
          expectAnswer(try third.execute(command), reference.answers[index])
        }
        #expect(try allLines(third) == reference.lines)
        try third.close()
      }
    }
  }
}

/// For every prefix length k of `commands`: a store given the first k commands is "killed" (its
/// files copied while it is open), the copy is reopened, and the rest of the commands are
/// applied to it; the recovery report must be exact, and the final log, answers, zones, devices
/// and counters those of a run never interrupted.
func checkEveryBoundary(
  _ commands: [StoreCommand], snapshotEvery: Int,
  configuration: ZoneEvaluator.Configuration = .default, inBackground: Bool = true, label: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let reference = try Reference.run(commands, configuration: configuration)
  func openStore(_ path: String, snapshotEvery: Int) throws -> FenceStore {
    try FenceStoreTests.openStore(
      path, snapshotEvery: snapshotEvery, configuration: configuration, inBackground: inBackground)
  }
  try withTemporaryDirectory("\(label)-\(snapshotEvery)") { directory in
    let whole = try openStore(directory.sub("whole"), snapshotEvery: snapshotEvery)
    for command in commands { try whole.execute(command) }
    let wholeLines = try allLines(whole)
    #expect(wholeLines == reference.lines, sourceLocation: sourceLocation)
    let wholeStatistics = whole.statistics
    let devices = Set(commands.flatMap { command -> [String] in
      if case .fixes(let fixes) = command { return fixes.map(\.device) }
      return []
    })
    let wholeDevices = devices.map { whole.deviceStatus(named: $0) }
    let wholeZones = whole.zones
    let wholeDeadline = whole.nextDwellDeadline
    try whole.close()

    for k in 0...commands.count {
      let original = directory.sub("first-\(k)")
      let crashed = directory.sub("crashed-\(k)")
      let first = try openStore(original, snapshotEvery: snapshotEvery)
      for (index, command) in commands.prefix(k).enumerated() {
        expectAnswer(try first.execute(command), reference.answers[index], sourceLocation: sourceLocation)
        // A snapshot in flight delays the next one due: each is written before the next command,
        // so that the snapshots are every `snapshotEvery` commands exactly.
        first.waitForSnapshots()
      }
      try crashCopy(from: original, to: crashed)
      let second = try openStore(crashed, snapshotEvery: snapshotEvery)
      try first.close()

      let snapshotSeq: Int64? = k >= snapshotEvery ? Int64(k - k % snapshotEvery) : nil
      let replayedFrom = Int(snapshotSeq ?? 0)
      let report = second.recovery
      #expect(report.snapshotCommandSeq == snapshotSeq, "k = \(k)", sourceLocation: sourceLocation)
      #expect(report.commandsReplayed == k - replayedFrom, "k = \(k)", sourceLocation: sourceLocation)
      #expect(
        report.fixesReplayed == fixCount(commands[replayedFrom..<k]), "k = \(k)",
        sourceLocation: sourceLocation)
      #expect(
        report.eventsVerified == reference.eventCount(ofCommands: replayedFrom..<k), "k = \(k)",
        sourceLocation: sourceLocation)
      #expect(report.commandSeq == Int64(k), "k = \(k)", sourceLocation: sourceLocation)
      #expect(
        report.eventSeq == reference.eventSeq(afterCommands: k), "k = \(k)",
        sourceLocation: sourceLocation)
      #expect(!report.isNew, "k = \(k)", sourceLocation: sourceLocation)
      #expect(second.lastEventSeq == reference.eventSeq(afterCommands: k), sourceLocation: sourceLocation)
      #expect(
        try allLines(second) == Array(reference.lines.prefix(Int(reference.eventSeq(afterCommands: k)))),
        "k = \(k)", sourceLocation: sourceLocation)

      for (index, command) in commands.enumerated().dropFirst(k) {
        expectAnswer(try second.execute(command), reference.answers[index], sourceLocation: sourceLocation)
      }
      let stored = try second.events(after: 0, limit: FenceStore.maximumEventsPerRead)
      expectGapless(stored, sourceLocation: sourceLocation)
      #expect(stored.map(\.line) == wholeLines, "k = \(k)", sourceLocation: sourceLocation)
      let statistics = second.statistics
      #expect(statistics.commandSeq == wholeStatistics.commandSeq, sourceLocation: sourceLocation)
      #expect(statistics.eventSeq == wholeStatistics.eventSeq, sourceLocation: sourceLocation)
      #expect(statistics.devices == wholeStatistics.devices, sourceLocation: sourceLocation)
      #expect(statistics.zones == wholeStatistics.zones, sourceLocation: sourceLocation)
      #expect(statistics.elements == wholeStatistics.elements, sourceLocation: sourceLocation)
      #expect(statistics.acceptedFixes == wholeStatistics.acceptedFixes, sourceLocation: sourceLocation)
      #expect(statistics.rejections == wholeStatistics.rejections, sourceLocation: sourceLocation)
      #expect(statistics.engineTime == wholeStatistics.engineTime, sourceLocation: sourceLocation)
      #expect(second.nextDwellDeadline == wholeDeadline, "k = \(k)", sourceLocation: sourceLocation)
      #expect(second.zones == wholeZones, "k = \(k)", sourceLocation: sourceLocation)
      #expect(
        devices.map { second.deviceStatus(named: $0) } == wholeDevices, "k = \(k)",
        sourceLocation: sourceLocation)
      try second.close()
      try? FileManager.default.removeItem(atPath: original)
      try? FileManager.default.removeItem(atPath: crashed)
    }
  }
}
