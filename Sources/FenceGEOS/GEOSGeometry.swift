internal import CGEOS
package import FenceGeometry

/// Owns one GEOS geometry built from a FenceKit shape and destroys it when released.
///
/// Coordinates go to GEOS as x = longitude, y = latitude. A polygon or polyline with an edge
/// spanning more than 180 degrees of longitude crosses the antimeridian; such a part is given to
/// GEOS with its negative longitudes shifted by +360, so that GEOS sees one connected shape (x in
/// [0, 360]) and ``isShiftedEast`` is true. Queries against it must try `longitude + 360` for
/// negative longitudes too, as ``PreparedShape`` does.
///
/// Keeps a strong reference to its ``GEOSContext``, so the context outlives the geometry. Not
/// thread-safe, like its context.
package final class GEOSGeometry {
  /// The context the geometry was made in; every call on it must use this context.
  package let context: GEOSContext
  /// The owned `GEOSGeometry *`.
  let pointer: OpaquePointer
  /// Whether some part crossed the antimeridian and had its negative longitudes shifted by +360.
  package let isShiftedEast: Bool

  /// Takes ownership of a geometry made in `context`.
  init(taking pointer: OpaquePointer, context: GEOSContext, isShiftedEast: Bool = false) {
    self.pointer = pointer
    self.context = context
    self.isShiftedEast = isShiftedEast
  }

  deinit {
    GEOSGeom_destroy_r(context.handle, pointer)
  }

  /// A GEOS polygon with the same rings (exterior first, then holes).
  package convenience init(_ polygon: Polygon, context: GEOSContext) throws(GEOSError) {
    // Read once: a polygon may make its rings again from its edges at each read.
    let rings = polygon.rings
    try self.init(rings: rings, shift: Self.crossesAntimeridian(rings), context: context)
  }

  /// A GEOS Polygon of a polygon's rings (exterior first), 360 added to negative longitudes
  /// when `shift` (``crossesAntimeridian(_:)`` of the rings).
  package convenience init(rings: [[Coordinate]], shift: Bool, context: GEOSContext)
    throws(GEOSError)
  {
    self.init(
      taking: try Self.makePolygon(rings, shift: shift, context), context: context,
      isShiftedEast: shift)
  }

  /// A GEOS MultiPolygon with one part per polygon, in order.
  package convenience init(_ multiPolygon: MultiPolygon, context: GEOSContext) throws(GEOSError) {
    var parts: [OpaquePointer?] = []
    parts.reserveCapacity(multiPolygon.polygons.count)
    var shifted = false
    for polygon in multiPolygon.polygons {
      let rings = polygon.rings
      let shift = Self.crossesAntimeridian(rings)
      shifted = shifted || shift
      do {
        parts.append(try Self.makePolygon(rings, shift: shift, context))
      } catch {
        for part in parts { GEOSGeom_destroy_r(context.handle, part) }
        throw error
      }
    }
    // GEOSGeom_createCollection_r takes ownership of the parts, not of the array.
    let collection = parts.withUnsafeMutableBufferPointer { buffer in
      GEOSGeom_createCollection_r(
        context.handle, Int32(GEOS_MULTIPOLYGON.rawValue), buffer.baseAddress,
        UInt32(buffer.count))
    }
    self.init(
      taking: try context.check("GEOSGeom_createCollection_r", collection), context: context,
      isShiftedEast: shifted)
  }

  /// A GEOS LineString through the polyline's vertices.
  package convenience init(_ polyline: Polyline, context: GEOSContext) throws(GEOSError) {
    let shift = Self.crossesAntimeridian([polyline.vertices])
    let sequence = try Self.makeSequence(polyline.vertices, shift: shift, context)
    // Takes ownership of the sequence, also when it fails.
    let line = GEOSGeom_createLineString_r(context.handle, sequence)
    self.init(
      taking: try context.check("GEOSGeom_createLineString_r", line), context: context,
      isShiftedEast: shift)
  }

  /// A GEOS Point at a position.
  package convenience init(latitude: Double, longitude: Double, context: GEOSContext)
    throws(GEOSError)
  {
    let point = GEOSGeom_createPointFromXY_r(context.handle, longitude, latitude)
    self.init(taking: try context.check("GEOSGeom_createPointFromXY_r", point), context: context)
  }

  // MARK: - Building blocks (each returns an owned pointer)

  /// Whether any edge spans more than 180 degrees of longitude.
  static func crossesAntimeridian(_ rings: [[Coordinate]]) -> Bool {
    for ring in rings where ring.count > 1 {
      for i in 1..<ring.count where abs(ring[i].longitude - ring[i - 1].longitude) > 180 {
        return true
      }
    }
    return false
  }

  /// A coordinate sequence of (longitude, latitude), negative longitudes + 360 when `shift`.
  static func makeSequence(_ coordinates: [Coordinate], shift: Bool, _ context: GEOSContext)
    throws(GEOSError) -> OpaquePointer
  {
    var xy: [Double] = []
    xy.reserveCapacity(coordinates.count * 2)
    for c in coordinates {
      xy.append(shift && c.longitude < 0 ? c.longitude + 360 : c.longitude)
      xy.append(c.latitude)
    }
    let sequence = xy.withUnsafeBufferPointer { buffer in
      GEOSCoordSeq_copyFromBuffer_r(
        context.handle, buffer.baseAddress, UInt32(coordinates.count), 0, 0)
    }
    return try context.check("GEOSCoordSeq_copyFromBuffer_r", sequence)
  }

  /// A GEOS polygon from a polygon's rings (exterior first).
  static func makePolygon(_ coordinates: [[Coordinate]], shift: Bool, _ context: GEOSContext)
    throws(GEOSError) -> OpaquePointer
  {
    var rings: [OpaquePointer?] = []
    rings.reserveCapacity(coordinates.count)
    func destroyRings() {
      for ring in rings { GEOSGeom_destroy_r(context.handle, ring) }
    }
    for ring in coordinates {
      do {
        let sequence = try makeSequence(ring, shift: shift, context)
        // Takes ownership of the sequence, also when it fails.
        let linearRing = GEOSGeom_createLinearRing_r(context.handle, sequence)
        rings.append(try context.check("GEOSGeom_createLinearRing_r", linearRing))
      } catch {
        destroyRings()
        throw error
      }
    }
    // Takes ownership of the shell and the holes (not of the holes array).
    let shell = rings[0]
    var holes = Array(rings.dropFirst())
    let result = holes.withUnsafeMutableBufferPointer { holes in
      GEOSGeom_createPolygon_r(context.handle, shell, holes.baseAddress, UInt32(holes.count))
    }
    return try context.check("GEOSGeom_createPolygon_r", result)
  }
}
