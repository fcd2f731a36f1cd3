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
    if index.isUnwrapped {
      return index.covers(x: longitude < 0 ? longitude + 360 : longitude, y: latitude)
    }
    if index.covers(x: longitude, y: latitude) { return true }
    return abs(longitude) == 180 && index.covers(x: -longitude, y: latitude)
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

extension EdgeIndex {
  /// Whether the edges, read as closed rings under the even-odd rule, cover a frame point
  /// (edges included).
  ///
  /// Counts the edges crossed by a ray towards +x among the edges of the point's stripe (the
  /// classic crossing-number test, half-open in y so that a vertex on the ray counts once); an
  /// edge the point lies on (exact orientation 0 inside the edge's box) answers at once.
  func covers(x: Double, y: Double) -> Bool {
    guard y >= minY, y <= maxY, x >= minX, x <= maxX else { return false }
    let s = stripe(y)
    return edges.withUnsafeBufferPointer { e in
      stripeEdges.withUnsafeBufferPointer { list in
        var inside = false
        for k in Int(stripeOffsets[s])..<Int(stripeOffsets[s + 1]) {
          let i = 4 * Int(list[k])
          let ax = e[i]
          let ay = e[i + 1]
          let bx = e[i + 2]
          let by = e[i + 3]
          if (ay > y && by > y) || (ay < y && by < y) { continue }
          if x > ax && x > bx { continue }
          let crosses = (ay > y) != (by > y)
          if x < ax && x < bx {
            if crosses { inside.toggle() }
            continue
          }
          let o = Orientation.determinant(ax: ax, ay: ay, bx: bx, by: by, cx: x, cy: y)
          if o == 0 { return true }  // collinear and inside the edge's box: on the edge
          // Upward edge: its crossing is right of the point when the point is on its left.
          if crosses && (by > ay) == (o > 0) { inside.toggle() }
        }
        return inside
      }
    }
  }
}

extension MultiPolygon {
  /// Whether any part covers the position (boundaries included).
  ///
  /// - Complexity: a box test per part, then the indexed test of ``Polygon``.
  public func contains(latitude: Double, longitude: Double) -> Bool {
    for polygon in polygons where polygon.contains(latitude: latitude, longitude: longitude) {
      return true
    }
    return false
  }

  /// A box that holds every part (`west > east` when the union crosses the antimeridian).
  public var boundingBox: BoundingBox { _boundingBox }
}
