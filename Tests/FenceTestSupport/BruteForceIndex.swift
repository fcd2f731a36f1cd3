import FenceGeometry

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A linear scan over boxes with the R-tree's query API: the oracle `RTree` is checked against.
///
/// Written from the definitions, independently of the tree: longitudes 180 and -180 are one
/// meridian; box distances are great-circle distances on a sphere of radius
/// `WGS84.minimumRadiusOfCurvature`, computed here with unit vectors rather than haversines.
public struct BruteForceIndex: Sendable {
  public private(set) var ids: [Int32] = []
  /// Four numbers per item: south, west, north, east (flat, so that debug builds scan quickly).
  private var edges: [Double] = []

  public init() {}

  public var count: Int { ids.count }

  /// Adds an item; `false` when the id is present.
  @discardableResult
  public mutating func insert(id: Int32, box: BoundingBox) -> Bool {
    guard !ids.contains(id) else { return false }
    ids.append(id)
    edges.append(contentsOf: [box.south, box.west, box.north, box.east])
    return true
  }

  /// Removes an item; `false` when the id is absent.
  @discardableResult
  public mutating func remove(id: Int32) -> Bool {
    guard let i = ids.firstIndex(of: id) else { return false }
    let last = ids.count - 1
    ids.swapAt(i, last)
    ids.removeLast()
    for k in 0..<4 { edges.swapAt(4 * i + k, 4 * last + k) }
    edges.removeLast(4)
    return true
  }

  public func boundingBox(of id: Int32) -> BoundingBox? {
    ids.firstIndex(of: id).map { box(at: $0) }
  }

  private func box(at i: Int) -> BoundingBox {
    BoundingBox(
      south: edges[4 * i], west: edges[4 * i + 1], north: edges[4 * i + 2], east: edges[4 * i + 3])
  }

  /// Calls `body` with each item's index and its box's south, west, north and east, read from
  /// the flat storage without building a ``BoundingBox``.
  @inline(__always)
  private func forEachBox(
    _ body: (_ i: Int, _ s: Double, _ w: Double, _ n: Double, _ e: Double) -> Void
  ) {
    let count = ids.count
    edges.withUnsafeBufferPointer { e in
      for i in 0..<count {
        let b = 4 * i
        body(i, e[b], e[b + 1], e[b + 2], e[b + 3])
      }
    }
  }

  /// Items whose box holds the position, edges included.
  public func search(containing latitude: Double, longitude: Double, _ visit: (Int32) -> Void) {
    // `BoundingBox.contains`, with -180 and 180 as one meridian, written out over flat storage.
    let onAntimeridian = abs(longitude) == 180
    forEachBox { i, s, w, n, east in
      guard latitude >= s && latitude <= n else { return }
      let inside =
        w <= east
        ? (longitude >= w && longitude <= east)
          || (onAntimeridian && (w == -180 || east == 180))
        : (longitude >= w || longitude <= east || onAntimeridian)
      if inside { visit(ids[i]) }
    }
  }

  /// Items whose box shares a point with `query`.
  public func search(intersecting query: BoundingBox, _ visit: (Int32) -> Void) {
    let queryTouches = Self.touchesAntimeridian(query)
    let (q0, q1) = query.planarParts
    // The query's second planar part, or an empty one.
    let (q1w, q1e) = (q1?.west ?? 1, q1?.east ?? 0)
    forEachBox { i, s, w, n, east in
      guard s <= query.north && n >= query.south else { return }
      let touches = w > east || w == -180 || east == 180
      if queryTouches && touches {
        visit(ids[i])
        return
      }
      // Planar parts of the item against planar parts of the query, longitudes only.
      let (p0w, p0e, p1w, p1e) = w <= east ? (w, east, 1.0, 0.0) : (w, 180, -180, east)
      func overlaps(_ qw: Double, _ qe: Double) -> Bool {
        qw <= qe
          && ((p0w <= qe && p0e >= qw && p0w <= p0e) || (p1w <= qe && p1e >= qw && p1w <= p1e))
      }
      if overlaps(q0.west, q0.east) || overlaps(q1w, q1e) { visit(ids[i]) }
    }
  }

  /// Items whose box's distance lower bound is at most `radius` metres.
  public func search(within radius: Double, of position: Position, _ visit: (Int32) -> Void) {
    let band = radius / Self.radius * 180 / .pi
    let low = position.latitude - band
    let high = position.latitude + band
    forEachBox { i, s, _, n, _ in
      // A cheap exact pre-test: the latitude gap alone is a lower bound of the distance.
      if s <= high && n >= low
        && Self.lowerBoundDistance(from: position, to: box(at: i)) <= radius
      {
        visit(ids[i])
      }
    }
  }

  /// The `count` items nearest by `exactDistance`, within `radius`, sorted by (distance, id).
  public func nearest(
    to position: Position, count: Int, within radius: Double, exactDistance: (Int32) -> Double
  ) -> [(id: Int32, distance: Double)] {
    var found: [(id: Int32, distance: Double)] = []
    search(within: radius, of: position) { id in
      let d = exactDistance(id)
      if d <= radius { found.append((id, d)) }
    }
    found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
    return Array(found.prefix(count))
  }

  // MARK: - Definitions

  public static let radius = WGS84.minimumRadiusOfCurvature

  /// Whether the box reaches the meridian at ±180.
  public static func touchesAntimeridian(_ box: BoundingBox) -> Bool {
    box.crossesAntimeridian || box.west == -180 || box.east == 180
  }

  /// The great-circle distance in metres, on the sphere, from a position to the nearest point of
  /// a box (0 inside).
  ///
  /// Inside the box's longitudes the nearest point is on the position's meridian. Outside them
  /// it is on the edge meridian nearest in longitude, at the latitude where that meridian's
  /// half great circle comes closest (the position projected onto the meridian's plane),
  /// clamped to the box.
  public static func lowerBoundDistance(from position: Position, to box: BoundingBox) -> Double {
    let lat = position.latitude
    let lon = position.longitude
    if box.contains(latitude: lat, longitude: lon)
      || (abs(lon) == 180 && box.contains(latitude: lat, longitude: -lon))
    {
      return 0
    }
    let p = unitVector(latitude: lat, longitude: lon)
    if lonInside(lon, box) || (abs(lon) == 180 && lonInside(-lon, box)) {
      let nearest = min(max(lat, box.south), box.north)
      return angle(p, unitVector(latitude: nearest, longitude: lon)) * radius
    }
    let gapWest = gap(lon, box.west)
    let gapEast = gap(lon, box.east)
    let edge = gapWest <= gapEast ? box.west : box.east
    // The meridian plane of `edge` holds the z axis and (cos edge, sin edge, 0).
    let e = (cos(edge * .pi / 180), sin(edge * .pi / 180))
    let along = p.x * e.0 + p.y * e.1  // the component towards the edge meridian
    var candidates = [box.south, box.north]
    if along > 0 {
      let closest = atan2(p.z, along) * 180 / .pi
      candidates.append(min(max(closest, box.south), box.north))
    }
    var best = Double.infinity
    for latitude in candidates {
      best = min(best, angle(p, unitVector(latitude: latitude, longitude: edge)) * radius)
    }
    return best
  }

  private static func lonInside(_ lon: Double, _ box: BoundingBox) -> Bool {
    box.west <= box.east
      ? (lon >= box.west && lon <= box.east) : (lon >= box.west || lon <= box.east)
  }

  private static func gap(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
  }

  private static func unitVector(latitude: Double, longitude: Double) -> (
    x: Double, y: Double, z: Double
  ) {
    let phi = latitude * .pi / 180
    let lambda = longitude * .pi / 180
    return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
  }

  /// The angle between two unit vectors, accurate at tiny angles.
  private static func angle(
    _ a: (x: Double, y: Double, z: Double), _ b: (x: Double, y: Double, z: Double)
  ) -> Double {
    let cx = a.y * b.z - a.z * b.y
    let cy = a.z * b.x - a.x * b.z
    let cz = a.x * b.y - a.y * b.x
    let cross = (cx * cx + cy * cy + cz * cz).squareRoot()
    let dot = a.x * b.x + a.y * b.y + a.z * b.z
    return atan2(cross, dot)
  }
}
