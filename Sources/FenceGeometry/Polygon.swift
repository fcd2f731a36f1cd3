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
/// A polygon of one ring that the edge index holds (not unwrapped) keeps its vertices only
/// there: ``rings`` makes the ring again from the edges, the same values bit for bit, with the
/// positions of any vertex that repeats the one before it (the index leaves those out). Other
/// polygons keep their rings as given.
public struct Polygon: Hashable, Sendable {
  /// Where the rings are kept.
  private enum RingStorage: Sendable {
    /// One ring, held by ``index`` exactly (most fences: a million 16-vertex polygons would
    /// hold each vertex twice, about 350 bytes a polygon).
    case inIndex
    /// One ring, held by ``index`` but for the vertices that repeat the one before them: their
    /// positions in the ring, ascending (about an eighth of the world's time-zone vertices are
    /// in rings with such repeats).
    case inIndexWithRepeats([Int32])
    /// The rings as given.
    case given([[Coordinate]])
  }

  private let storage: RingStorage
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
      let distinct = Self.distinctPositions(in: ring)
      guard distinct >= 3 else {
        throw GeometryError(
          shape: name, fault: .tooFewPoints(ring: index, distinct: distinct, required: 3))
      }
    }
    let index = EdgeIndex(chains: rings)
    let storage = Self.ringStorage(of: exterior, holes: holes, index: index)
    self.storage = storage
    self.index = index
  }

  /// The number of distinct positions in `ring`, counted up to 3 (all the validation needs):
  /// a scan that stops at the third distinct position, where a `Set` of the ring hashed every
  /// vertex (2.1 M in the time zones' file, about 2 % of its load). Positions are distinct as
  /// `Coordinate`'s `==` says, as a `Set` counts them.
  static func distinctPositions(in ring: [Coordinate]) -> Int {
    guard let first = ring.first else { return 0 }
    var second: Coordinate?
    for position in ring where position != first {
      guard let other = second else {
        second = position
        continue
      }
      if position != other { return 3 }
    }
    return second == nil ? 1 : 2
  }

  /// How to keep the rings: in the index when it holds the one ring's vertices (stride 2, not
  /// unwrapped) but for repeats of the vertex before, each repeat the same bits, and the
  /// positions of those repeats account for every vertex the index does not hold.
  private static func ringStorage(
    of exterior: [Coordinate], holes: [[Coordinate]], index: EdgeIndex
  ) -> RingStorage {
    guard holes.isEmpty, !index.isUnwrapped, index.edgeStride == 2 else {
      return .given([exterior] + holes)
    }
    var repeats: [Int32] = []
    for i in 1..<exterior.count
    where exterior[i].latitude.bitPattern == exterior[i - 1].latitude.bitPattern
      && exterior[i].longitude.bitPattern == exterior[i - 1].longitude.bitPattern
    {
      repeats.append(Int32(i))
    }
    guard index.edgeCount == exterior.count - 1 - repeats.count else {
      return .given([exterior] + holes)
    }
    return repeats.isEmpty ? .inIndex : .inIndexWithRepeats(repeats)
  }

  /// This polygon with its edge index's chunk tree nodes stored (see
  /// ``EdgeIndex/storingTreeNodes()``): a part of a multipolygon of several.
  func storingTreeNodes() -> Polygon {
    let stored = index.storingTreeNodes()
    return stored === index ? self : Polygon(storage: storage, index: stored)
  }

  private init(storage: RingStorage, index: EdgeIndex) {
    self.storage = storage
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
  public var rings: [[Coordinate]] {
    if case .given(let rings) = storage { return rings }
    return [exterior]
  }
  /// The exterior ring.
  public var exterior: [Coordinate] {
    switch storage {
    case .inIndex: return index.singleChain()
    case .inIndexWithRepeats(let repeats):
      return Self.insertingRepeats(repeats, into: index.singleChain())
    case .given(let rings): return rings[0]
    }
  }
  /// The holes.
  public var holes: ArraySlice<[Coordinate]> {
    if case .given(let rings) = storage { return rings.dropFirst() }
    return []
  }
  /// The number of vertices over all rings (closing positions included).
  public var vertexCount: Int {
    switch storage {
    case .inIndex: return index.edgeCount + 1
    case .inIndexWithRepeats(let repeats): return index.edgeCount + 1 + repeats.count
    case .given(let rings): return rings.reduce(0) { $0 + $1.count }
    }
  }
  /// Whether the rings are kept apart from the edge index (for tests of the storage).
  var keepsRings: Bool {
    if case .given = storage { return true }
    return false
  }

  /// `chain` with a copy of the vertex before at each position of `repeats` (ascending
  /// positions in the result).
  private static func insertingRepeats(
    _ repeats: [Int32], into chain: [Coordinate]
  ) -> [Coordinate] {
    var ring: [Coordinate] = []
    ring.reserveCapacity(chain.count + repeats.count)
    var next = 0
    for vertex in chain {
      while next < repeats.count, Int(repeats[next]) == ring.count {
        ring.append(ring[ring.count - 1])
        next += 1
      }
      ring.append(vertex)
    }
    while next < repeats.count {
      ring.append(ring[ring.count - 1])
      next += 1
    }
    return ring
  }
  /// Whether the polygon was unwrapped because it crosses the antimeridian.
  public var crossesAntimeridian: Bool { index.isUnwrapped }

  public static func == (lhs: Polygon, rhs: Polygon) -> Bool {
    lhs.index === rhs.index || lhs.rings == rhs.rings
  }
  public func hash(into hasher: inout Hasher) { hasher.combine(rings) }
}
