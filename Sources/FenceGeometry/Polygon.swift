/// A polygon: one exterior ring and any number of holes, with straight edges in (lon, lat).
///
/// Rings are given closed (last position equals the first) in either winding. The boundary
/// (exterior and hole edges) counts as inside. A polygon with an edge spanning more than 180
/// degrees of longitude crosses the antimeridian: it is unwrapped once at construction (360 is
/// added to its negative longitudes) and its ``boundingBox`` has `west > east`. Rings that run
/// along the map frame (edges between longitudes -180 and 180, such as Antarctica's edge at the
/// south pole) are plain planar polygons, as in GEOS.
///
/// Structural faults (unclosed ring, too few points, an empty ring) are found here; topology
/// (self-intersection, holes outside the shell) is validated by GEOS in `FenceGEOS`. Containment
/// assumes a valid polygon: it is the even-odd rule over the edges of all rings.
///
/// Two indexes are built in the initializer, in O(*n*) time and memory for *n* vertices: the
/// edges in ring order with a tree of chunk boxes for distances (`EdgeIndex`), and horizontal
/// stripes for containment (`EdgeIndex+Stripes.swift`), in one object. Copies of the value share it.
///
/// A polygon of one ring that the edge index holds exactly (not unwrapped, no zero-length
/// edge left out) keeps its vertices only there: ``rings`` makes the ring again from the edges,
/// the same values bit for bit. Other polygons keep their rings as given.
public struct Polygon: Hashable, Sendable {
  /// The rings as given; `nil` when they are one ring that ``index`` holds exactly (most fences:
  /// a million 16-vertex polygons would hold each vertex twice, about 350 bytes a polygon).
  private let givenRings: [[Coordinate]]?
  /// The edges of all rings in ring order, with boxes of edge chunks (distances) and filed by
  /// latitude stripe (containment).
  let index: EdgeIndex

  /// Validates the rings' structure and builds the polygon and its edge index.
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
    let index = EdgeIndex(chains: rings)
    let heldByIndex = holes.isEmpty && !index.isUnwrapped && index.edgeCount == exterior.count - 1
    self.givenRings = heldByIndex ? nil : rings
    self.index = index
  }

  /// This polygon with its edge index's chunk tree nodes stored (see
  /// ``EdgeIndex/storingTreeNodes()``): a part of a multipolygon of several.
  func storingTreeNodes() -> Polygon {
    let stored = index.storingTreeNodes()
    return stored === index ? self : Polygon(givenRings: givenRings, index: stored)
  }

  private init(givenRings: [[Coordinate]]?, index: EdgeIndex) {
    self.givenRings = givenRings
    self.index = index
  }

  /// A box that holds the whole polygon (`west > east` when it crosses the antimeridian): its
  /// edge index's extent, made when asked (nothing per fix asks; a stored copy was 32 bytes of
  /// every polygon fence).
  public var boundingBox: BoundingBox { index.boundingBox }

  /// The exterior ring followed by the holes, each closed, as given.
  ///
  /// - Complexity: O(*n*) and one allocation for a polygon that keeps its vertices only in its
  ///   edge index (see the type's notes); O(1) otherwise.
  public var rings: [[Coordinate]] { givenRings ?? [index.singleChain()] }
  /// The exterior ring.
  public var exterior: [Coordinate] { givenRings?[0] ?? index.singleChain() }
  /// The holes.
  public var holes: ArraySlice<[Coordinate]> { givenRings?.dropFirst() ?? [] }
  /// The number of vertices over all rings (closing positions included).
  public var vertexCount: Int { givenRings?.reduce(0) { $0 + $1.count } ?? index.edgeCount + 1 }
  /// Whether the rings are kept apart from the edge index (for tests of the storage).
  var keepsRings: Bool { givenRings != nil }
  /// Whether the polygon was unwrapped because it crosses the antimeridian.
  public var crossesAntimeridian: Bool { index.isUnwrapped }

  public static func == (lhs: Polygon, rhs: Polygon) -> Bool {
    lhs.index === rhs.index || lhs.rings == rhs.rings
  }
  public func hash(into hasher: inout Hasher) { hasher.combine(rings) }
}
