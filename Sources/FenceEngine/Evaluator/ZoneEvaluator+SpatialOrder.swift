import FenceGeometry
import FenceIndex

extension ZoneEvaluator {
  /// Loads of at least this many zones are applied in spatial order.
  static let spatialOrderThreshold = 256

  /// The order in which to apply the zones of a load, as indices into `zones`: for a large
  /// load, the order of each zone's first fence or GEOLINE box centre along a Hilbert curve
  /// (the leaf order of an R-tree packed from those boxes); a small load as it is.
  ///
  /// Zones take their slots, and their fences and GEOLINEs the element slots, in the order they
  /// are applied. The fence index packed from the same boxes afterwards groups its leaves the
  /// same way, so the fences one leaf holds sit in consecutive slots of the flat per-element
  /// table: a point query that scans a leaf then reads that table sequentially instead of one
  /// cache line per fence. The order changes no event (`Docs/EventSemantics.md`, loading
  /// order).
  ///
  /// - Complexity: O(*n*) for *n* zones (curve keys and a radix sort).
  static func spatialOrder(of zones: [Zone]) -> [Int] {
    guard zones.count >= spatialOrderThreshold else { return Array(zones.indices) }
    // Read in place: a loop over the values copies (and retains) every zone.
    return zones.withUnsafeBufferPointer { zones in
      // The order of the boxes' centres along a Hilbert curve: a packed tree's leaf order.
      HilbertCurve.order(count: zones.count) { index in
        guard
          let box = zones[index].fences.first?.area.boundingBox
            ?? zones[index].geolines.first?.line.boundingBox
        else { return nil }
        let part = box.planarParts.0
        return ((part.west + part.east) * 0.5, (part.south + part.north) * 0.5)
      }
    }
  }
}
