internal import CGEOS
public import FenceGeometry

/// A shape prepared once by GEOS for fast, repeated point queries.
///
/// `covers` is GEOS's prepared *covers* predicate: the boundary counts as inside, as everywhere
/// in FenceKit. Distances are planar, in degrees of (longitude, latitude), which makes them
/// useful as an oracle ("is this point on the boundary?") rather than as metres.
///
/// Each query moves one point geometry owned by the shape instead of allocating a new one
/// (GEOS 3.11 has no prepared predicates taking x and y), so a query allocates nothing on the
/// Swift side. Not thread-safe: use one per evaluator, made from that evaluator's
/// ``GEOSContext``.
public final class PreparedShape {
  /// The context the shape was prepared in.
  public var context: GEOSContext { geometry.context }
  /// The base geometry; released after `prepared` (see `deinit`).
  let geometry: GEOSGeometry
  /// The owned `const GEOSPreparedGeometry *`.
  private let prepared: OpaquePointer
  /// The query point, moved to each queried position.
  private let probe: GEOSGeometry
  /// The probe's coordinate sequence, owned by `probe` (GEOS hands it out as const; writing
  /// through it is safe because GEOS 3.11 points compute their envelope from it on demand).
  private let probeSequence: OpaquePointer
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
    do {
      probe = try GEOSGeometry(latitude: 0, longitude: 0, context: context)
      probeSequence = try context.check(
        "GEOSGeom_getCoordSeq_r", GEOSGeom_getCoordSeq_r(context.handle, probe.pointer))
    } catch {
      GEOSPreparedGeom_destroy_r(context.handle, prepared)
      throw error
    }
  }

  deinit {
    let handle = geometry.context.handle
    if let boundary { GEOSPreparedGeom_destroy_r(handle, boundary.prepared) }
    GEOSPreparedGeom_destroy_r(handle, prepared)  // before its base geometry
    // `geometry`, `probe` and `boundary.geometry` are released after this body.
  }

  /// Whether the shape covers the position: inside, or on any edge of the exterior or a hole.
  ///
  /// - Complexity: O(log *n*) amortised for *n* edges (GEOS indexes the edges on first use).
  public func covers(latitude: Double, longitude: Double) throws(GEOSError) -> Bool {
    if try covers(x: longitude, y: latitude) { return true }
    if geometry.isShiftedEast, longitude < 0 {
      return try covers(x: longitude + 360, y: latitude)
    }
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
  public func distanceToBoundary(latitude: Double, longitude: Double) throws(GEOSError) -> Double
  {
    try planarDistance(preparedBoundary(), latitude: latitude, longitude: longitude)
  }

  // MARK: - Private

  private func covers(x: Double, y: Double) throws(GEOSError) -> Bool {
    let context = geometry.context
    try moveProbe(x: x, y: y)
    // returns 1 on true, 0 on false, 2 on exception
    return try context.predicate(
      "GEOSPreparedCovers_r", GEOSPreparedCovers_r(context.handle, prepared, probe.pointer))
  }

  private func moveProbe(x: Double, y: Double) throws(GEOSError) {
    try geometry.context.status(
      "GEOSCoordSeq_setXY_r",
      GEOSCoordSeq_setXY_r(geometry.context.handle, probeSequence, 0, x, y))
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
    try moveProbe(x: x, y: y)
    var distance = 0.0
    try context.status(
      "GEOSPreparedDistance_r",
      GEOSPreparedDistance_r(context.handle, target, probe.pointer, &distance))
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
