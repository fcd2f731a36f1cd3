import FenceGEOS
import FenceIndex

extension ZoneEvaluator {
  /// A copy of an evaluator taken to be snapshotted on another thread while the original goes
  /// on evaluating: what a durable store writes its snapshots from, off the lock its commands
  /// hold (``snapshotSource()``).
  ///
  /// Taking one costs O(1): the copy shares every table with the original. The original's next
  /// change of a shared table copies that table first (copy on write), so the copy keeps the
  /// state of the moment it was taken. The tables a fix changes without their being part of a
  /// snapshot (the cell cache, the per-fix scratch arrays), and those a zone change changes that
  /// no snapshot reads (the spatial indexes, the element id table), are left out of the copy, so
  /// that the original does not copy them. What the next fixes do copy are the device tables
  /// (devices, records, last fixes), once each, in O(*d*) for *d* devices; the zone tables can
  /// be copied on the snapshot's thread instead of by the next zone change
  /// (``SnapshotSource/ownZoneTables()``).
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
    /// What is left of the copy after ``releaseAllButGEOS()``: the values whose release may
    /// call GEOS.
    private var geosHeld: (polygons: [PolygonFence?], context: GEOSContext?)?

    fileprivate init(_ evaluator: ZoneEvaluator) { self.evaluator = evaluator }

    /// The copy; `nil` after ``release()``.
    package var copy: ZoneEvaluator? { evaluator }

    /// Drops the copy (where the original's GEOS context may be used: see the type).
    package func release() {
      evaluator = nil
      geosHeld = nil
    }

    /// Drops the copy but for the values whose release may call GEOS (the polygon table and the
    /// GEOS context), which ``release()`` drops later, where the original is used.
    ///
    /// Freeing the rest can take longer than the store's lock should be held: at a million
    /// zones the copy's own zone tables (``ownZoneTables()``) took 50-60 ms to free under it.
    /// After this call ``copy`` is `nil`.
    package func releaseAllButGEOS() {
      guard let copy = evaluator else { return }
      geosHeld = (copy.polygonFences, copy.geosContext)
      evaluator = nil
      // The rest of the copy is freed here, as `copy` goes.
    }

    /// Gives the copy tables of its own in place of the zone tables it shares with the
    /// original (the zone, element and zone id tables), so that the original's next zone change
    /// finds them its own and changes them in place.
    ///
    /// Without it, that change copies them itself, under the store's lock: at a million zones
    /// the first `DELETE` after a snapshot was taken took 90-130 ms, against about 1 ms. Called
    /// on the snapshot's thread, this moves the copy there. A change that comes before it is done
    /// still copies what it changes (the copy then finds that table its own and leaves it),
    /// so nothing is copied twice. It costs a second set of the tables while the snapshot is
    /// made, which a change during the snapshot costs anyway.
    package func ownZoneTables() {
      guard var copy = evaluator else { return }
      // The copy alone holds its tables' references (with the original's).
      evaluator = nil
      copy.ownZoneTables()
      let zones = copy.zoneSlots
      zones.withUnsafeBufferPointer { copy.zoneSlotByID.ownStorage(zones: $0) }
      evaluator = copy
    }
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
    // What a change of zones changes but no snapshot reads (a snapshot finds zones by their id,
    // never by place or by element id): dropped too, so that the original's changes do not copy
    // them (at a million circles, the index's copy was a fifth of a `DELETE` after a snapshot).
    copy.fenceIndex = RTree()
    copy.geolineIndex = RTree()
    copy.elementSlotByID = IDSlotTable()
    return SnapshotSource(copy)
  }
}
