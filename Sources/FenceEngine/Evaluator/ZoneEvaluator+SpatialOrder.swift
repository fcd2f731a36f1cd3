import FenceGeometry
import FenceIndex

extension ZoneEvaluator {
  /// Loads of at least this many zones are applied in spatial order.
  static let spatialOrderThreshold = 256

  /// The order in which to apply the zones of a load, as indices into `zones`: for a large
  /// load, the order in which an R-tree packed from each zone's first fence or GEOLINE box holds
  /// them, leaf by leaf; a small load as it is.
  ///
  /// Zones take their slots, and their fences and GEOLINEs the element slots, in the order they
  /// are applied. The fence index packed from the same boxes afterwards groups its leaves the
  /// same way, so the fences one leaf holds sit in consecutive slots of the flat per-element
  /// table: a point query that scans a leaf then reads that table sequentially instead of one
  /// cache line per fence. The order changes no event (`Docs/EventSemantics.md`, loading
  /// order).
  ///
  /// - Complexity: O(*n*) for *n* zones (one packing and one full traversal of a scratch tree).
  static func spatialOrder(of zones: [Zone]) -> [Int] {
    guard zones.count >= spatialOrderThreshold else { return Array(zones.indices) }
    var items: [(id: Int32, box: BoundingBox)] = []
    items.reserveCapacity(zones.count)
    // Read in place: a loop over the values copies (and retains) every zone.
    zones.withUnsafeBufferPointer { zones in
      for index in zones.indices {
        guard
          let box = zones[index].fences.first?.area.boundingBox
            ?? zones[index].geolines.first?.line.boundingBox
        else { continue }
        items.append((Int32(index), box))
      }
    }
    // Only traversed, never searched by point: no point grid.
    let tree = RTree(
      items, nodeSize: RTree.defaultNodeSize, tailCapacity: 128, rebuildDivisor: 8,
      pointGridMinimum: .max)
    var order: [Int] = []
    order.reserveCapacity(zones.count)
    // A depth-first traversal reports each leaf's items together.
    tree.search(intersecting: BoundingBox(south: -90, west: -180, north: 90, east: 180)) {
      order.append(Int($0))
    }
    precondition(order.count == items.count, "Spatial order lost zones")
    // Zones without a box (none pass validation) keep their place at the end.
    if order.count < zones.count {
      var placed = Array(repeating: false, count: zones.count)
      for index in order { placed[index] = true }
      for index in zones.indices where !placed[index] { order.append(index) }
    }
    return order
  }
}
