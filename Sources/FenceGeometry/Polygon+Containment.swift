// A first, plain implementation: ray casting over every edge, O(n) per query.
// To be replaced by an edge-indexed version (see Docs/Algorithms.md).

extension Polygon {
  /// Whether the polygon covers a position: inside the exterior and not strictly inside a hole.
  /// Points on any edge (exterior or hole) are inside.
  public func contains(latitude: Double, longitude: Double) -> Bool {
    var inside = false
    for (index, ring) in rings.enumerated() {
      switch PlanarRing.locate(x: longitude, y: latitude, ring: ring) {
      case .boundary: return true
      case .inside: if index == 0 { inside = true } else { return false }
      case .outside: if index == 0 { return false }
      }
    }
    return inside
  }

  /// A box that holds the whole polygon.
  public var boundingBox: BoundingBox {
    var box = BoundingBox(south: 90, west: 180, north: -90, east: -180)
    for c in exterior {
      box.south = min(box.south, c.latitude)
      box.north = max(box.north, c.latitude)
      box.west = min(box.west, c.longitude)
      box.east = max(box.east, c.longitude)
    }
    return box
  }

  /// Metres from a position to the nearest edge of any ring.
  public func distanceToBoundary(from p: Position) -> Double {
    var best = Double.infinity
    for ring in rings {
      for i in 0..<(ring.count - 1) {
        best = min(best, SegmentDistance.metres(from: p, ring[i], ring[i + 1]))
      }
    }
    return best
  }
}

extension MultiPolygon {
  /// Whether any part covers the position (boundaries included).
  public func contains(latitude: Double, longitude: Double) -> Bool {
    polygons.contains { $0.contains(latitude: latitude, longitude: longitude) }
  }

  /// Metres from a position to the multipolygon: 0 inside, else the distance to its boundary.
  public func distance(from p: Position) -> Double {
    contains(latitude: p.latitude, longitude: p.longitude) ? 0 : distanceToBoundary(from: p)
  }

  /// Metres from a position to the nearest boundary edge of any part.
  public func distanceToBoundary(from p: Position) -> Double {
    polygons.reduce(Double.infinity) { min($0, $1.distanceToBoundary(from: p)) }
  }

  /// A box that holds every part.
  public var boundingBox: BoundingBox {
    var box = polygons[0].boundingBox
    for polygon in polygons.dropFirst() {
      let b = polygon.boundingBox
      box = BoundingBox(
        south: min(box.south, b.south), west: min(box.west, b.west),
        north: max(box.north, b.north), east: max(box.east, b.east))
    }
    return box
  }
}

/// Where a point lies relative to one closed ring.
enum RingLocation { case inside, outside, boundary }

enum PlanarRing {
  /// Crossing-number test with exact boundary detection.
  static func locate(x: Double, y: Double, ring: [Coordinate]) -> RingLocation {
    var inside = false
    for i in 0..<(ring.count - 1) {
      let ax = ring[i].longitude, ay = ring[i].latitude
      let bx = ring[i + 1].longitude, by = ring[i + 1].latitude
      // On the segment?
      if min(ax, bx) <= x, x <= max(ax, bx), min(ay, by) <= y, y <= max(ay, by),
        (bx - ax) * (y - ay) - (by - ay) * (x - ax) == 0
      {
        return .boundary
      }
      if (ay > y) != (by > y) {
        let xCross = ax + (y - ay) * (bx - ax) / (by - ay)
        if x < xCross { inside.toggle() }
      }
    }
    return inside ? .inside : .outside
  }
}

/// Distance from a position to a straight (lon, lat) segment, in metres.
enum SegmentDistance {
  static func metres(from p: Position, _ a: Coordinate, _ b: Coordinate) -> Double {
    // Local equirectangular plane around p: x east, y north, in metres.
    let latRad = p.latitude * .pi / 180
    let kx = WGS84.primeVerticalRadius(latitude: p.latitude) * cosine(latRad) * .pi / 180
    let ky = WGS84.meridionalRadius(latitude: p.latitude) * .pi / 180
    func wrap(_ d: Double) -> Double { d > 180 ? d - 360 : (d < -180 ? d + 360 : d) }
    let ax = wrap(a.longitude - p.longitude) * kx, ay = (a.latitude - p.latitude) * ky
    let bx = wrap(b.longitude - p.longitude) * kx, by = (b.latitude - p.latitude) * ky
    let dx = bx - ax, dy = by - ay
    let len2 = dx * dx + dy * dy
    var t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0
    t = min(1, max(0, t))
    // Refine: the exact ellipsoidal distance to the foot point found in the plane.
    let footLat = a.latitude + t * (b.latitude - a.latitude)
    let footLon = a.longitude + t * (b.longitude - a.longitude)
    let foot = Coordinate(uncheckedLatitude: footLat, longitude: footLon)
    return WGS84.distance(p.coordinate, foot)
  }

  private static func cosine(_ x: Double) -> Double {
    #if canImport(Glibc)
      return Glibc.cos(x)
    #else
      return Foundation.cos(x)
    #endif
  }
}

#if canImport(Glibc)
  import Glibc
#endif
