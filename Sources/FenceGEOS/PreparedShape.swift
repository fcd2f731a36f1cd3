internal import CGEOS
public import FenceGeometry

/// A shape prepared once by GEOS for fast, repeated point queries.
///
/// `covers` is GEOS's prepared *covers* predicate: the boundary counts as inside, as everywhere
/// in FenceKit. Distances are planar, in degrees of (longitude, latitude), which makes them
/// useful as an oracle ("is this point on the boundary?") rather than as metres.
///
/// `covers(latitude:longitude:)` and the distances build and free one GEOS point per query
/// (GEOS 3.11 has no prepared predicates taking x and y, and a reused point keeps a stale
/// cached envelope); in release builds that costs about as much as moving a reused point,
/// within measurement noise (see `Docs/Decisions/0002-geos-off-the-hot-path.md`). `covers(_:)`
/// tests a caller's ``GEOSProbe`` and builds a point only across the antimeridian. Not thread-safe: use one per evaluator, made
/// from that evaluator's ``GEOSContext``.
public final class PreparedShape {
  /// The context the shape was prepared in.
  public var context: GEOSContext { geometry.context }
  /// The base geometry; released after `prepared` (see `deinit`).
  let geometry: GEOSGeometry
  /// The owned `const GEOSPreparedGeometry *`.
  private let prepared: OpaquePointer
  /// The boundary, prepared on the first distance-to-boundary query.
  private var boundary: (geometry: GEOSGeometry, prepared: OpaquePointer)?

  /// Prepares a multipolygon (boundaries of every part and hole included).
  public convenience init(_ shape: MultiPolygon, context: GEOSContext) throws(GEOSError) {
    try self.init(GEOSGeometry(shape, context: context))
  }

  /// Prepares a polygon (boundaries of the exterior and the holes included).
  public convenience init(_ polygon: Polygon, context: GEOSContext) throws(GEOSError) {
    try self.init(GEOSGeometry(polygon, context: context))
  }

  /// Prepares a polyline; it covers exactly the points on it.
  public convenience init(_ polyline: Polyline, context: GEOSContext) throws(GEOSError) {
    try self.init(GEOSGeometry(polyline, context: context))
  }

  /// Prepares any geometry built in `geometry.context`.
  package init(_ geometry: GEOSGeometry) throws(GEOSError) {
    let context = geometry.context
    self.geometry = geometry
    self.prepared = try context.check(
      "GEOSPrepare_r", GEOSPrepare_r(context.handle, geometry.pointer))
  }

  deinit {
    let handle = geometry.context.handle
    if let boundary { GEOSPreparedGeom_destroy_r(handle, boundary.prepared) }
    GEOSPreparedGeom_destroy_r(handle, prepared)  // before its base geometry
    // `geometry` and `boundary.geometry` are released after this body.
  }

  /// Whether the shape covers the position: inside, or on any edge of the exterior or a hole.
  ///
  /// Longitudes 180 and -180 are the same meridian, as in `Polygon.contains`.
  ///
  /// - Complexity: O(log *n*) amortised for *n* edges (GEOS indexes the edges on first use).
  public func covers(latitude: Double, longitude: Double) throws(GEOSError) -> Bool {
    if try covers(x: longitude, y: latitude) { return true }
    return try coversAcrossAntimeridian(latitude: latitude, longitude: longitude)
  }

  /// ``covers(latitude:longitude:)`` of the probe's position, testing the probe's own GEOS point
  /// (new points only for the other side of the antimeridian).
  package func covers(_ probe: borrowing GEOSProbe) throws(GEOSError) -> Bool {
    let context = geometry.context
    if try context.predicate(
      "GEOSPreparedCovers_r", GEOSPreparedCovers_r(context.handle, prepared, probe.pointer))
    {
      return true
    }
    return try coversAcrossAntimeridian(latitude: probe.latitude, longitude: probe.longitude)
  }

  /// Whether the shape covers the position at its other longitude: +360 for a shape shifted
  /// east of the antimeridian, and the other side for ±180 (the same meridian). Called when
  /// the plain longitude was not covered.
  private func coversAcrossAntimeridian(latitude: Double, longitude: Double)
    throws(GEOSError) -> Bool
  {
    if geometry.isShiftedEast, longitude < 0 {
      return try covers(x: longitude + 360, y: latitude)
    }
    if abs(longitude) == 180 { return try covers(x: -longitude, y: latitude) }
    return false
  }

  /// Degrees from the position to the shape, measured in the (longitude, latitude) plane:
  /// 0 when the shape covers it.
  public func distance(latitude: Double, longitude: Double) throws(GEOSError) -> Double {
    try planarDistance(prepared, latitude: latitude, longitude: longitude)
  }

  /// Degrees from the position to the nearest edge of the shape (exterior or hole), measured in
  /// the (longitude, latitude) plane, whether the position is inside or outside.
  ///
  /// Exactly 0 means GEOS finds the position on the boundary.
  public func distanceToBoundary(latitude: Double, longitude: Double) throws(GEOSError) -> Double {
    try planarDistance(preparedBoundary(), latitude: latitude, longitude: longitude)
  }

  // MARK: - Private

  private func covers(x: Double, y: Double) throws(GEOSError) -> Bool {
    let context = geometry.context
    // returns 1 on true, 0 on false, 2 on exception
    return try context.predicate(
      "GEOSPreparedCovers_r", CGEOS_preparedCoversXY(context.handle, prepared, x, y))
  }

  private func planarDistance(_ target: OpaquePointer, latitude: Double, longitude: Double)
    throws(GEOSError) -> Double
  {
    var best = try planarDistance(target, x: longitude, y: latitude)
    if geometry.isShiftedEast, longitude < 0 {
      best = min(best, try planarDistance(target, x: longitude + 360, y: latitude))
    }
    return best
  }

  private func planarDistance(_ target: OpaquePointer, x: Double, y: Double) throws(GEOSError)
    -> Double
  {
    let context = geometry.context
    var distance = 0.0
    try context.status(
      "GEOSPreparedDistance_r", CGEOS_preparedDistanceXY(context.handle, target, x, y, &distance))
    return distance
  }

  private func preparedBoundary() throws(GEOSError) -> OpaquePointer {
    if let boundary { return boundary.prepared }
    let context = geometry.context
    let line = GEOSGeometry(
      taking: try context.check("GEOSBoundary_r", GEOSBoundary_r(context.handle, geometry.pointer)),
      context: context, isShiftedEast: geometry.isShiftedEast)
    let prepared = try context.check("GEOSPrepare_r", GEOSPrepare_r(context.handle, line.pointer))
    boundary = (line, prepared)
    return prepared
  }
}
