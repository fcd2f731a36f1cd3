import FenceGeometry

extension ZoneEvaluator {
  /// Whether a movement from `a` to `b` may meet a GEOLINE: its box meets the box holding every
  /// GEOLINE. A cheap test before the GEOLINE index search, which most movements of a stream
  /// (far from the few GEOLINEs) fail; `true` whenever it cannot tell (boxes crossing the
  /// antimeridian).
  @inline(__always)
  mutating func movementMayMeetGeolines(from a: Coordinate, to b: Coordinate) -> Bool {
    if geolineExtentGeneration != zoneGeneration {
      geolineExtent = Self.extent(ofGeolinesIn: elements, cores: elementCores)
      listsGeolines = Self.list(
        geolinesIn: elements, cores: elementCores, into: &geolineBoxes)
      geolineExtentGeneration = zoneGeneration
    }
    guard let extent = geolineExtent else { return true }
    let movement = BoundingBox.movement(from: a, to: b)
    guard !movement.crossesAntimeridian else { return true }
    return movement.west <= extent.east && movement.east >= extent.west
      && movement.south <= extent.north && movement.north >= extent.south
  }

  /// The plain box holding every GEOLINE's box, or nil when one crosses the antimeridian (or
  /// there are none: then the index is empty and nothing is searched anyway).
  static func extent(ofGeolinesIn elements: [Element?], cores: [ElementCore]) -> BoundingBox? {
    var extent: BoundingBox?
    for (slot, core) in cores.enumerated() where core.kind == .geoline {
      guard case .geoline(let line, _)? = elements[slot]?.shape else { continue }
      let box = line.boundingBox
      if box.crossesAntimeridian { return nil }
      guard let known = extent else {
        extent = box
        continue
      }
      extent = BoundingBox(
        south: min(known.south, box.south), west: min(known.west, box.west),
        north: max(known.north, box.north), east: max(known.east, box.east))
    }
    return extent
  }

  /// GEOLINEs up to which ``findCrossings(from:to:filter:into:)`` scans their boxes rather than
  /// searching the index: a search of a tree of two GEOLINEs cost about 240 instructions, and
  /// most movements of a stream meet the extent of a harbor's GEOLINEs without meeting one.
  static let directGeolineLimit = 16

  /// Fills `boxes` with every GEOLINE's slot and box, and returns whether they can be scanned
  /// directly: at most ``directGeolineLimit`` of them, none crossing the antimeridian.
  static func list(
    geolinesIn elements: [Element?], cores: [ElementCore], into boxes: inout [GeolineBox]
  ) -> Bool {
    boxes.removeAll(keepingCapacity: true)
    for (slot, core) in cores.enumerated() where core.kind == .geoline {
      guard let box = elements[slot]?.box else { continue }
      guard boxes.count < directGeolineLimit, !box.crossesAntimeridian else {
        boxes.removeAll(keepingCapacity: true)
        return false
      }
      boxes.append(GeolineBox(slot: Int32(slot), box: box))
    }
    return true
  }
}

/// A GEOLINE's slot and box, for the direct scan of ``ZoneEvaluator/findCrossings(from:to:filter:into:)``.
struct GeolineBox {
  var slot: Int32
  var box: BoundingBox
}
