/// A polygon: one exterior ring and any number of holes, with straight edges in (lon, lat).
///
/// Rings are given closed (last position equals the first) in either winding. The boundary
/// (exterior and hole edges) counts as inside. A polygon whose edges cross the antimeridian
/// (an edge spanning more than 180 degrees of longitude) is unwrapped once at construction and
/// tested on both sides of it.
///
/// Structural faults (unclosed ring, too few points, an empty ring) are found here; topology
/// (self-intersection, holes outside the shell) is validated by GEOS in `FenceGEOS`.
public struct Polygon: Hashable, Sendable {
  /// The exterior ring followed by the holes, each closed, as given.
  public let rings: [[Coordinate]]

  /// Validates the rings' structure and builds the polygon.
  ///
  /// - Throws: ``GeometryError`` naming `name` and the ring for an empty geometry, an unclosed
  ///   ring, or a ring with fewer than 3 distinct positions.
  public init(exterior: [Coordinate], holes: [[Coordinate]] = [], name: String = "polygon")
    throws
  {
    let rings = [exterior] + holes
    for (index, ring) in rings.enumerated() {
      if ring.isEmpty {
        if index == 0 { throw GeometryError(shape: name, fault: .empty) }
        throw GeometryError(shape: name, fault: .tooFewPoints(ring: index, distinct: 0, required: 3))
      }
      guard ring.count >= 2, ring.first == ring.last else {
        throw GeometryError(shape: name, fault: .unclosedRing(ring: index))
      }
      let distinct = Set(ring).count
      guard distinct >= 3 else {
        throw GeometryError(
          shape: name, fault: .tooFewPoints(ring: index, distinct: distinct, required: 3))
      }
    }
    self.rings = rings
  }

  /// The exterior ring.
  public var exterior: [Coordinate] { rings[0] }
  /// The holes.
  public var holes: ArraySlice<[Coordinate]> { rings.dropFirst() }
  /// The number of vertices over all rings (closing positions included).
  public var vertexCount: Int { rings.reduce(0) { $0 + $1.count } }
}
