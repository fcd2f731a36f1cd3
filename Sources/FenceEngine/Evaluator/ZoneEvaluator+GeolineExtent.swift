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
}
