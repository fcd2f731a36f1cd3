/// When a snapshot is due: after ``FenceStore/Options/snapshotEvery`` commands, unless
/// snapshots have become slow, in which case also not before the commands since the last one
/// took as long to apply as that snapshot took to write.
///
/// A snapshot's cost grows with the whole state (every zone and device), a command's with
/// what it changes. With a million zones a snapshot took seconds under the store's lock, and
/// 500 commands that each remove one zone take under a second: snapshotting every 500
/// commands then held requests up for most of the time (3,334 `DELETE /v1/zones/{id}` took
/// 39 s, 35 of them in 7 snapshots). Snapshots are now written in the background, but each
/// still takes a processor for about a second there. Pacing keeps snapshots to at most about
/// half of the store's time, and a restart replays at most about one snapshot's worth of work.
///
/// A snapshot quicker than ``FenceStore/Options/slowSnapshotSeconds`` is never delayed, so
/// small stores keep the exact command count (tests rely on it).
struct SnapshotPacing {
  var every: Int
  var slowSnapshotSeconds: Double

  /// Whether to write a snapshot now.
  ///
  /// - Parameters:
  ///   - commands: commands committed since the last snapshot.
  ///   - commandSeconds: time spent applying and committing them.
  ///   - lastSnapshotSeconds: how long the last snapshot took to write (0 before the first).
  func isDue(commands: Int, commandSeconds: Double, lastSnapshotSeconds: Double) -> Bool {
    guard commands >= every else { return false }
    guard lastSnapshotSeconds >= slowSnapshotSeconds else { return true }
    return commandSeconds >= lastSnapshotSeconds
  }
}
