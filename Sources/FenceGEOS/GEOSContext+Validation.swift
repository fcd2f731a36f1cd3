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
  ///
  /// A polygon of one ring that ``ValidityProof`` proves simple is valid without asking GEOS
  /// (decision 0024): the proof only accepts what GEOS accepts, and every other polygon goes
  /// through GEOS, whose words name the fault.
  public func validate(_ polygon: Polygon, name: String) throws(GeometryError) {
    // Read once: a polygon may make its rings again from its edges at each read.
    let rings = polygon.rings
    let shift = GEOSGeometry.crossesAntimeridian(rings)
    if ValidityProof.provesValid(rings: rings, shift: shift) { return }
    let reason: String
    do {
      let geometry = try GEOSGeometry(rings: rings, shift: shift, context: self)
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

  /// Repairs a multipolygon with GEOS MakeValid, only its invalid parts when that is enough:
  /// the area ``makeValid(_:name:)`` gives, without running MakeValid over every vertex of a
  /// large multipolygon whose fault is in one small part.
  ///
  /// Each invalid part is repaired alone and the valid parts are kept as they are. The result
  /// is kept when GEOS finds it a valid multipolygon as a whole (its parts' interiors disjoint,
  /// touching at points only): the repaired parts then meet no other part, so MakeValid over the
  /// whole, which nodes every part's rings together, has nothing more to do and gives the same
  /// area. Otherwise (parts that overlap or share edges, or a repair that reaches another
  /// part), and for a single polygon, the whole goes through ``makeValid(_:name:)``.
  ///
  /// New York's boroughs, whose Queens (29,219 vertices in 18 parts) has one ring touching
  /// itself in part 17, load in about 90 ms instead of 185 (decision 0020).
  ///
  /// - Throws: as ``makeValid(_:name:)``.
  public func repair(_ shape: MultiPolygon, name: String = "multipolygon")
    throws(GeometryError) -> MultiPolygon
  {
    if shape.polygons.count > 1, let repaired = repairedPartByPart(shape, name: name) {
      return repaired
    }
    return try makeValid(shape, name: name)
  }

  /// ``repair(_:name:)``'s repair of the invalid parts alone, or `nil` when it is not enough
  /// (or GEOS failed: the repair over the whole then says why).
  private func repairedPartByPart(_ shape: MultiPolygon, name: String) -> MultiPolygon? {
    var kept: [Polygon] = []
    kept.reserveCapacity(shape.polygons.count)
    for part in shape.polygons {
      guard let isValid = isValid({ () throws(GEOSError) in try GEOSGeometry(part, context: self) })
      else { return nil }
      if isValid {
        kept.append(part)
        continue
      }
      do {
        kept.append(contentsOf: try makeValid(MultiPolygon(part), name: name).polygons)
      } catch {
        // A part whose repair leaves no area is dropped, as MakeValid over the whole drops it.
        guard error.fault == .empty else { return nil }
      }
    }
    guard let assembled = try? MultiPolygon(kept, name: name),
      isValid({ () throws(GEOSError) in try GEOSGeometry(assembled, context: self) }) == true
    else {
      return nil
    }
    return assembled
  }

  /// Whether GEOS finds the geometry `make` gives valid (a multipolygon as a whole: parts whose
  /// interiors overlap, or that share an edge, make it invalid); `nil` when GEOS failed.
  private func isValid(_ make: () throws(GEOSError) -> GEOSGeometry) -> Bool? {
    do {
      return try validityReason(make()) == nil
    } catch {
      return nil
    }
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
