import FenceGeometry

extension ZoneEvaluator {
  /// Whether a movement with box `movement` may meet a GEOLINE: its box meets the box holding
  /// every GEOLINE. A cheap test before the GEOLINE search, which most movements of a stream
  /// (far from the few GEOLINEs) fail; `true` whenever it cannot tell (boxes crossing the
  /// antimeridian). Brings the GEOLINE summary (``refreshGeolineSummary()``) up to date first.
  @inline(__always)
  mutating func movementMayMeetGeolines(_ movement: BoundingBox) -> Bool {
    if geolineExtentGeneration != zoneGeneration { refreshGeolineSummary() }
    guard let extent = geolineExtent else { return true }
    guard !movement.crossesAntimeridian else { return true }
    return movement.west <= extent.east && movement.east >= extent.west
      && movement.south <= extent.north && movement.north >= extent.south
  }

  /// Calls `body` with the slot of every GEOLINE whose box may meet `box`: from the list of
  /// their boxes when it is current (``listsGeolines``: few GEOLINEs, none across the
  /// antimeridian), else from the GEOLINE index, whose boxes, rounded outward, hold the exact
  /// ones. Mutating although it changes nothing: the mutating per-fix steps call it, and a
  /// method of the evaluator would copy the whole evaluator there.
  @inline(__always)
  mutating func forEachGeoline(meeting box: BoundingBox, _ body: (Int32) -> Void) {
    if listsGeolines && geolineExtentGeneration == zoneGeneration && !box.crossesAntimeridian {
      for k in geolineBoxes.indices where geolineBoxes[k].box.planarIntersects(box) {
        body(geolineBoxes[k].slot)
      }
    } else {
      geolineIndex.search(intersecting: box) { body($0) }
    }
  }

  /// GEOLINEs up to which ``findCrossings(from:to:movement:filter:into:)`` scans their boxes
  /// rather than searching the index: a search of a tree of two GEOLINEs cost about 240
  /// instructions, and most movements of a stream meet the extent of a harbor's GEOLINEs
  /// without meeting one.
  static let directGeolineLimit = 16

  /// Ends a change of the zone set: a new ``zoneGeneration``, with the GEOLINE summary made for
  /// it now rather than by the first fix after the change. The summary is one pass over every
  /// element's core (about 23,000 cache misses of the harbor week's first fix under
  /// callgrind's cache simulation, for 31,000 fences), work of the change, not of a fix. Changes
  /// that leave the GEOLINEs as they are (the zone clock's) advance the generation alone; the
  /// next fix then remakes the summary.
  mutating func startZoneGeneration() {
    zoneGeneration += 1
    refreshGeolineSummary()
  }

  /// Remakes, in one pass over the GEOLINEs, the box holding them all (`geolineExtent`: nil
  /// when one crosses the antimeridian, or when there are none, and then the index is empty
  /// and nothing is searched anyway) and the list of their slots and boxes for the direct scan
  /// (`geolineBoxes`, used when `listsGeolines`: at most ``directGeolineLimit`` of them, none
  /// crossing the antimeridian).
  mutating func refreshGeolineSummary() {
    geolineBoxes.removeAll(keepingCapacity: true)
    var extent: BoundingBox?
    var crosses = false
    for (slot, core) in elementCores.enumerated() where core.kind == .geoline {
      let box = elementBox(Int32(slot))
      geolineBoxes.append(GeolineBox(slot: Int32(slot), box: box))
      if box.crossesAntimeridian {
        crosses = true
      } else if let known = extent {
        extent = BoundingBox(
          south: min(known.south, box.south), west: min(known.west, box.west),
          north: max(known.north, box.north), east: max(known.east, box.east))
      } else {
        extent = box
      }
    }
    geolineExtent = crosses ? nil : extent
    listsGeolines = !crosses && geolineBoxes.count <= Self.directGeolineLimit
    if !listsGeolines { geolineBoxes.removeAll(keepingCapacity: true) }
    geolineExtentGeneration = zoneGeneration
  }
}

/// A GEOLINE's slot and box, for the direct scan of
/// ``ZoneEvaluator/findCrossings(from:to:movement:filter:into:)``.
struct GeolineBox {
  var slot: Int32
  var box: BoundingBox
}
