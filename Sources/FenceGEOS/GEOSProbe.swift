internal import CGEOS

/// A GEOS point at a position, made once and used for several queries: an STR-tree search
/// (``GEOSSTRTree/query(_:_:)``) and the prepared tests of its candidates
/// (``PreparedShape/covers(_:)``), as a plain GEOS program does with one point per position.
///
/// A non-copyable value, so that the point is destroyed exactly once, when the probe ends, and
/// no Swift object is allocated for it. It keeps only its context's handle: it must not
/// outlive the ``GEOSContext`` it was made in, and is used only with shapes and trees of that
/// context (every caller makes one, uses it and drops it within one query). Not thread-safe,
/// like its ``GEOSContext``.
package struct GEOSProbe: ~Copyable {
  let pointer: OpaquePointer
  let latitude: Double
  let longitude: Double
  private let handle: GEOSContextHandle_t

  /// - Throws: ``GEOSError`` when GEOS cannot make the point.
  package init(latitude: Double, longitude: Double, context: GEOSContext) throws(GEOSError) {
    pointer = try context.check(
      "GEOSGeom_createPointFromXY_r",
      GEOSGeom_createPointFromXY_r(context.handle, longitude, latitude))
    self.latitude = latitude
    self.longitude = longitude
    handle = context.handle
  }

  deinit { GEOSGeom_destroy_r(handle, pointer) }
}
