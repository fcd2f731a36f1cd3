import Testing

@testable import FenceStore

/// When a snapshot is due: the command count alone while snapshots are quick; with slow ones,
/// also the time the commands since took.
@Suite struct SnapshotPacingTests {
  let pacing = SnapshotPacing(every: 500, slowSnapshotSeconds: 0.25)

  @Test func quickSnapshotsFollowTheCommandCountExactly() {
    #expect(!pacing.isDue(commands: 499, commandSeconds: 100, lastSnapshotSeconds: 0.2))
    #expect(pacing.isDue(commands: 500, commandSeconds: 0, lastSnapshotSeconds: 0.2))
    #expect(pacing.isDue(commands: 500, commandSeconds: 0, lastSnapshotSeconds: 0))
  }

  @Test func aSlowSnapshotWaitsUntilTheCommandsTookAsLong() {
    // A six-second snapshot of a million zones, commands of 1.4 ms each.
    #expect(!pacing.isDue(commands: 500, commandSeconds: 0.7, lastSnapshotSeconds: 6))
    #expect(!pacing.isDue(commands: 4_285, commandSeconds: 5.999, lastSnapshotSeconds: 6))
    #expect(pacing.isDue(commands: 4_286, commandSeconds: 6.0, lastSnapshotSeconds: 6))
    // Still never before the command count.
    #expect(!pacing.isDue(commands: 499, commandSeconds: 60, lastSnapshotSeconds: 6))
    #expect(pacing.isDue(commands: 500, commandSeconds: 0.25, lastSnapshotSeconds: 0.25))
  }

  @Test func infinityTurnsPacingOff() {
    let off = SnapshotPacing(every: 2, slowSnapshotSeconds: .infinity)
    #expect(off.isDue(commands: 2, commandSeconds: 0, lastSnapshotSeconds: 1_000))
  }
}
