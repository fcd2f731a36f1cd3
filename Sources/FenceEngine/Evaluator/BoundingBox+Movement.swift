import FenceGeometry

extension BoundingBox {
  /// The box of a movement from `a` to `b`; a movement whose longitudes differ by more than
  /// 180 degrees is taken to cross the antimeridian.
  static func movement(from a: Coordinate, to b: Coordinate) -> BoundingBox {
    let south = min(a.latitude, b.latitude)
    let north = max(a.latitude, b.latitude)
    let low = min(a.longitude, b.longitude)
    let high = max(a.longitude, b.longitude)
    if high - low > 180 { return BoundingBox(south: south, west: high, north: north, east: low) }
    return BoundingBox(south: south, west: low, north: north, east: high)
  }
}

