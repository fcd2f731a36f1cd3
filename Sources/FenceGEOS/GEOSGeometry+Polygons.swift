internal import CGEOS
package import FenceGeometry

extension GEOSGeometry {
  /// The polygonal parts of the geometry as a multipolygon.
  ///
  /// Every Polygon, MultiPolygon part and Polygon inside a collection is kept, in GEOS order;
  /// points and lines are left out.
  ///
  /// Longitudes above 180 (from a part shifted across the antimeridian) are brought back by
  /// -360.
  ///
  /// - Throws: ``GeometryError`` naming `name`: `.empty` when there is no non-empty polygon, or
  ///   `.invalid` with GEOS's message when reading the geometry fails.
  package func polygonalParts(name: String) throws(GeometryError) -> MultiPolygon {
    var polygons: [Polygon] = []
    do {
      try collectPolygons(pointer, into: &polygons, name: name)
    } catch let error as GEOSError {
      throw GeometryError(shape: name, fault: .invalid(reason: error.description))
    } catch let error as GeometryError {
      throw error
    } catch {
      preconditionFailure("Unexpected error \(error) reading GEOS polygons of \(name)")
    }
    guard !polygons.isEmpty else { throw GeometryError(shape: name, fault: .empty) }
    do {
      return try MultiPolygon(polygons, name: name)
    } catch let error as GeometryError {
      throw error
    } catch {
      preconditionFailure("Unexpected error \(error) building \(name)")
    }
  }

  private func collectPolygons(_ g: OpaquePointer, into polygons: inout [Polygon], name: String)
    throws
  {
    let handle = context.handle
    if try context.predicate("GEOSisEmpty_r", GEOSisEmpty_r(handle, g)) { return }
    let type = GEOSGeomTypeId_r(handle, g)
    switch type {
    case Int32(GEOS_POLYGON.rawValue):
      polygons.append(try polygon(g, name: name))
    case Int32(GEOS_MULTIPOLYGON.rawValue), Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
      let count = GEOSGetNumGeometries_r(handle, g)
      guard count >= 0 else { throw context.error("GEOSGetNumGeometries_r") }
      for i in 0..<count {
        let part = try context.check("GEOSGetGeometryN_r", GEOSGetGeometryN_r(handle, g, i))
        try collectPolygons(part, into: &polygons, name: name)
      }
    case -1:
      throw context.error("GEOSGeomTypeId_r")
    default:
      return  // points and lines have no area
    }
  }

  private func polygon(_ g: OpaquePointer, name: String) throws -> Polygon {
    let handle = context.handle
    let exterior = try ring(
      context.check("GEOSGetExteriorRing_r", GEOSGetExteriorRing_r(handle, g)), name: name)
    let holeCount = GEOSGetNumInteriorRings_r(handle, g)
    guard holeCount >= 0 else { throw context.error("GEOSGetNumInteriorRings_r") }
    var holes: [[Coordinate]] = []
    for i in 0..<holeCount {
      holes.append(
        try ring(
          context.check("GEOSGetInteriorRingN_r", GEOSGetInteriorRingN_r(handle, g, i)),
          name: name))
    }
    return try Polygon(exterior: exterior, holes: holes, name: name)
  }

  private func ring(_ g: OpaquePointer, name: String) throws -> [Coordinate] {
    let handle = context.handle
    let sequence = try context.check("GEOSGeom_getCoordSeq_r", GEOSGeom_getCoordSeq_r(handle, g))
    var size: UInt32 = 0
    try context.status("GEOSCoordSeq_getSize_r", GEOSCoordSeq_getSize_r(handle, sequence, &size))
    var xy = [Double](repeating: 0, count: Int(size) * 2)
    let copied = xy.withUnsafeMutableBufferPointer { buffer in
      GEOSCoordSeq_copyToBuffer_r(handle, sequence, buffer.baseAddress, 0, 0)
    }
    try context.status("GEOSCoordSeq_copyToBuffer_r", copied)
    var coordinates: [Coordinate] = []
    coordinates.reserveCapacity(Int(size))
    for i in 0..<Int(size) {
      let x = xy[2 * i]
      coordinates.append(
        try Coordinate(latitude: xy[2 * i + 1], longitude: x > 180 ? x - 360 : x, shape: name))
    }
    return coordinates
  }
}
