internal import CGEOS
public import FenceGeometry

extension GEOSContext {
  /// Checks a multipolygon's topology with GEOS, part by part.
  ///
  /// Each part must be a valid OGC polygon: no self-intersection, holes inside the shell and not
  /// crossing each other, and so on. Parts may overlap or touch each other: a fence's area is the
  /// union of its parts, so overlapping parts are not an error here. (Structural faults such as
  /// unclosed rings never get this far: ``Polygon``'s initializer rejects them.)
  ///
  /// - Throws: ``GeometryError`` naming the shape (`name`, or `"name part k"` for part *k*,
  ///   counted from 0, of a multipolygon with more than one part):
  ///   `.selfIntersection(reason:)` when GEOS says "Self-intersection" or "Ring
  ///   Self-intersection", else `.invalid(reason:)`. The reason is GEOS's text with its location,
  ///   for example `"Self-intersection[0.5 0.5]"` (x = longitude, y = latitude).
  public func validate(_ shape: MultiPolygon, name: String) throws(GeometryError) {
    let parts = shape.polygons
    for (index, polygon) in parts.enumerated() {
      try validate(polygon, name: parts.count == 1 ? name : "\(name) part \(index)")
    }
  }

  /// Checks a polygon's topology with GEOS.
  ///
  /// - Throws: ``GeometryError`` naming `name`, as the multipolygon overload
  ///   describes.
  public func validate(_ polygon: Polygon, name: String) throws(GeometryError) {
    let reason: String
    do {
      let geometry = try GEOSGeometry(polygon, context: self)
      guard let text = try validityReason(geometry) else { return }
      reason = text
    } catch {
      throw GeometryError(shape: name, fault: .invalid(reason: error.description))
    }
    if reason.hasPrefix("Self-intersection") || reason.hasPrefix("Ring Self-intersection") {
      throw GeometryError(shape: name, fault: .selfIntersection(reason: reason))
    }
    throw GeometryError(shape: name, fault: .invalid(reason: reason))
  }

  /// Repairs a multipolygon with GEOS MakeValid and keeps the polygonal result.
  ///
  /// A valid input comes back with the same area (GEOS may reorder or re-close rings). Parts of
  /// the repair that have no area (lines, points) are dropped; a bowtie becomes its two
  /// triangles.
  ///
  /// - Throws: ``GeometryError`` naming `name`: `.empty` when nothing with an area is left,
  ///   `.invalid(reason:)` with GEOS's message when GEOS fails.
  public func makeValid(_ shape: MultiPolygon, name: String = "multipolygon")
    throws(GeometryError) -> MultiPolygon
  {
    let repaired: GEOSGeometry
    do {
      let geometry = try GEOSGeometry(shape, context: self)
      let result = try check("GEOSMakeValid_r", GEOSMakeValid_r(handle, geometry.pointer))
      repaired = GEOSGeometry(taking: result, context: self)
    } catch {
      throw GeometryError(shape: name, fault: .invalid(reason: error.description))
    }
    return try repaired.polygonalParts(name: name)
  }

  /// GEOS's reason text for an invalid geometry, or nil when it is valid.
  func validityReason(_ geometry: GEOSGeometry) throws(GEOSError) -> String? {
    // returns 1 when valid, 0 when invalid, 2 on exception
    let isValid = try predicate("GEOSisValid_r", GEOSisValid_r(handle, geometry.pointer))
    if isValid { return nil }
    let text = try check("GEOSisValidReason_r", GEOSisValidReason_r(handle, geometry.pointer))
    defer { GEOSFree_r(handle, text) }
    return String(cString: text)
  }
}
