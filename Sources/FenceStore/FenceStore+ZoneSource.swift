import FenceEngine

/// Remembering where the zones came from, so that a daemon restarted with the same zone files
/// does not load them again.
///
/// Loading, validating and repairing a large zone file (27,743 time-zone polygons) takes
/// seconds, and `fenced` used to do it at every start only to find the store already held those
/// zones. A caller that loaded zones from a source (files and the options they were loaded
/// with) and made them the store's zones notes the source's digest; at the next start, when
/// the digest is the same and the zones have not changed since, the source need not be read.
extension FenceStore {
  static let zoneSourceKey = "zone-source"

  /// Records that the store's current zones are what the source with this digest loads to.
  ///
  /// Call it after the zones were set from that source (or found equal to it), while nothing
  /// else changes zones. Crash-safe in either order: a lost note only means the next start
  /// reads the source again.
  public func noteZoneSource(digest: UInt64) throws {
    let zoneSet = try currentZoneSetHash()
    try storage.setMetadata(Self.zoneSourceKey, "\(ContentHash.hexadecimal(digest)) \(ContentHash.hexadecimal(zoneSet))")
  }

  /// Whether the last noted source has this digest and the zones are still exactly what it
  /// loaded to (compared by the hash of the whole zone set, so any zone change since,
  /// through any path, makes this `false`).
  public func holdsZoneSource(digest: UInt64) throws -> Bool {
    guard let note = try storage.metadata(Self.zoneSourceKey) else { return false }
    let parts = note.split(separator: " ")
    guard parts.count == 2, parts[0] == ContentHash.hexadecimal(digest) else { return false }
    return parts[1] == ContentHash.hexadecimal(try currentZoneSetHash())
  }

  /// The hash of the current zones in the snapshots' binary form, encoded only when the zones
  /// changed since the last snapshot or call.
  func currentZoneSetHash() throws -> UInt64 {
    try engine.withLock { state in
      guard !state.isClosed else { throw StoreError.closed }
      return state.encodedZoneSet().hash
    }
  }
}
