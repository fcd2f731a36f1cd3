import FenceIndex

extension ZoneEvaluator {
  /// A copy of an evaluator taken to be snapshotted on another thread while the original goes
  /// on evaluating: what a durable store writes its snapshots from, off the lock its commands
  /// hold (``snapshotSource()``).
  ///
  /// Taking one costs O(1): the copy shares every table with the original. The original's next
  /// change of a shared table copies that table first (copy on write), so the copy keeps the
  /// state of the moment it was taken. The tables a fix changes without their being part of a
  /// snapshot (the cell cache, the per-fix scratch arrays) are left out of the copy, so that
  /// the original's next fixes do not copy them; what the next fixes do copy are the device
  /// tables (devices, records, last fixes), once each, in O(*d*) for *d* devices.
  ///
  /// `@unchecked Sendable`: an evaluator is not `Sendable` because copies of one with the
  /// ``PredicateBackend/geosPrepared`` backend share GEOS prepared geometries, which one thread
  /// at a time may use. A source is only ever asked for ``ZoneEvaluator/snapshot(reusing:)``
  /// and the zones (``ZoneEvaluator/zone(id:)``, ``ZoneEvaluator/zones``), which read Swift
  /// values and never call GEOS; the shared lazily built tables (the zone id table, polygons'
  /// edge indexes) are built under locks or published once for readers on any thread. The one
  /// GEOS call a source can make is releasing a prepared geometry when the source is the
  /// geometry's last owner (its zone was removed from the original meanwhile): release a
  /// source ( ``release()``) where the original is used, under the same lock.
  package final class SnapshotSource: @unchecked Sendable {
    private var evaluator: ZoneEvaluator?

    fileprivate init(_ evaluator: ZoneEvaluator) { self.evaluator = evaluator }

    /// The copy; `nil` after ``release()``.
    package var copy: ZoneEvaluator? { evaluator }

    /// Drops the copy (where the original's GEOS context may be used: see the type).
    package func release() { evaluator = nil }
  }

  /// A copy of this evaluator for a snapshot on another thread (see ``SnapshotSource``), in
  /// O(1).
  package func snapshotSource() -> SnapshotSource {
    var copy = self
    // What fixes change but no snapshot reads: dropped from the copy, so that the original
    // stays their only owner and changes them in place.
    copy.cellCache = ContainmentCellCache(capacity: 0)
    copy.scratchHits = []
    copy.scratchCandidates = []
    copy.scratchCrossings = []
    copy.scratchLineCrossings = []
    copy.scratchZones = []
    copy.scratchEndedStays = []
    copy.scratchDue = []
    copy.scratchNearby = []
    copy.scratchMonitored = []
    copy.scratchNeighbors = []
    copy.scratchGeolineNeighbors = []
    copy.nearestScratch = RTree.NearestScratch()
    copy.scratchCellLists = CellLists()
    return SnapshotSource(copy)
  }
}
