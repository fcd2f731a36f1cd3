internal import CGEOS

extension GEOSGeometry {
  /// A geometry read from Well-Known Text, for tests and diagnostics (x = longitude,
  /// y = latitude).
  ///
  /// - Throws: ``GEOSError`` from `GEOSWKTReader_read_r` with GEOS's parse message.
  package convenience init(wkt: String, context: GEOSContext) throws(GEOSError) {
    let handle = context.handle
    let reader = try context.check("GEOSWKTReader_create_r", GEOSWKTReader_create_r(handle))
    defer { GEOSWKTReader_destroy_r(handle, reader) }
    let geometry = try context.check(
      "GEOSWKTReader_read_r", GEOSWKTReader_read_r(handle, reader, wkt))
    self.init(taking: geometry, context: context)
  }

  /// The geometry as Well-Known Text with trailing zeros trimmed, such as
  /// `"POLYGON ((0 0, 1 0, 1 1, 0 0))"`.
  package func wkt() throws(GEOSError) -> String {
    let handle = context.handle
    let writer = try context.check("GEOSWKTWriter_create_r", GEOSWKTWriter_create_r(handle))
    defer { GEOSWKTWriter_destroy_r(handle, writer) }
    GEOSWKTWriter_setTrim_r(handle, writer, 1)
    let text = try context.check(
      "GEOSWKTWriter_write_r", GEOSWKTWriter_write_r(handle, writer, pointer))
    defer { GEOSFree_r(handle, text) }
    return String(cString: text)
  }
}
