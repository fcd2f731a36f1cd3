extension Polygon {
  /// Whether the polygon covers a position: inside the exterior and not strictly inside a hole.
  ///
  /// Points exactly on any edge or vertex (exterior or hole) are inside; "exactly" is decided
  /// with the exact ``Orientation`` predicate, without tolerance. Longitudes 180 and -180 are
  /// the same meridian.
  ///
  /// - Complexity: O(1) outside the bounding box; otherwise O(*k*) for the *k* edges filed in
  ///   the position's latitude stripe (a few on typical outlines). Allocates nothing.
  @inlinable
  public func contains(latitude: Double, longitude: Double) -> Bool {
    covers(latitude: latitude, longitude: longitude)
  }

  /// Whether the polygon covers a position (boundary included); see
  /// ``contains(latitude:longitude:)``.
  @inlinable
  public func contains(_ c: Coordinate) -> Bool {
    covers(latitude: c.latitude, longitude: c.longitude)
  }

  @usableFromInline
  func covers(latitude: Double, longitude: Double) -> Bool {
    index.covers(latitude: latitude, longitude: longitude)
  }

  /// The plain crossing-number test over every edge, O(*n*) per call, without the index: the
  /// reference the indexed test is checked against.
  package func containsByRayCasting(latitude: Double, longitude: Double) -> Bool {
    let unwrap = index.isUnwrapped
    func locate(_ x: Double, _ y: Double) -> Bool {
      var inside = false
      for ring in rings {
        for i in 0..<(ring.count - 1) {
          let ax = EdgeIndex.frameLongitude(ring[i].longitude, unwrapped: unwrap)
          let ay = ring[i].latitude
          let bx = EdgeIndex.frameLongitude(ring[i + 1].longitude, unwrapped: unwrap)
          let by = ring[i + 1].latitude
          if min(ax, bx) <= x, x <= max(ax, bx), min(ay, by) <= y, y <= max(ay, by),
            Orientation(ax: ax, ay: ay, bx: bx, by: by, cx: x, cy: y) == .collinear
          {
            return true
          }
          if (ay > y) != (by > y) {
            let o = Orientation.determinant(ax: ax, ay: ay, bx: bx, by: by, cx: x, cy: y)
            if (by > ay) == (o > 0) { inside.toggle() }
          }
        }
      }
      return inside
    }
    if unwrap { return locate(longitude < 0 ? longitude + 360 : longitude, latitude) }
    return locate(longitude, latitude) || (abs(longitude) == 180 && locate(-longitude, latitude))
  }
}

extension MultiPolygon {
  /// Whether any part covers the position (boundaries included).
  ///
  /// The edges of every part are filed by stripe in one joined ``EdgeIndex`` (parts with overlapping boxes under
  /// different colours), so the cost does not grow with the number of parts.
  ///
  /// - Complexity: O(1) outside the bounding box; otherwise O(*k*) for the *k* edges filed in
  ///   the position's latitude stripe. Allocates nothing.
  public func contains(latitude: Double, longitude: Double) -> Bool {
    if let stripes { return stripes.covers(latitude: latitude, longitude: longitude) }
    for polygon in polygons where polygon.contains(latitude: latitude, longitude: longitude) {
      return true
    }
    return false
  }

  /// A box that holds every part (`west > east` when the union crosses the antimeridian).
  public var boundingBox: BoundingBox { _boundingBox }
}
