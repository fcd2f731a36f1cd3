internal import CGEOS

extension GEOSGeometry {
  /// Whether GEOS finds the two geometries the same point set (`GEOSEquals_r`): the same area
  /// whatever the order of their parts, rings and vertices, for tests of a repair against GEOS's
  /// own.
  ///
  /// Both must be made in the same context.
  package func isTopologicallyEqual(to other: GEOSGeometry) throws(GEOSError) -> Bool {
    precondition(other.context === context, "Geometries of two GEOS contexts compared")
    return try context.predicate("GEOSEquals_r", GEOSEquals_r(context.handle, pointer, other.pointer))
  }
}
