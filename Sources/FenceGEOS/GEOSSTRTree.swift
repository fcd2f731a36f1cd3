internal import CGEOS
public import FenceGeometry

/// GEOS's Sort-Tile-Recursive R-tree over integer ids, for comparing FenceKit's own index
/// against "plain GEOS".
///
/// Insert every box, then query: GEOS packs the tree on the first query, after which inserting
/// is an error. Boxes crossing the antimeridian are stored as their two planar parts under the
/// same id; a query visits an id at most once per part that holds the position, which for a
/// point is at most once. Not thread-safe, like its ``GEOSContext``.
public final class GEOSSTRTree {
  /// The context the tree lives in.
  public let context: GEOSContext
  /// The owned `GEOSSTRtree *`.
  private let tree: OpaquePointer
  /// Whether a query has run, which makes GEOS build the tree and refuse further inserts.
  private var isBuilt = false

  /// The number of planar boxes inserted (a box across the antimeridian counts twice).
  public private(set) var count = 0

  /// An empty tree whose nodes hold at most `nodeCapacity` children (GEOS recommends 10; at
  /// least 2).
  public init(context: GEOSContext, nodeCapacity: Int = 10) throws(GEOSError) {
    precondition(nodeCapacity >= 2, "GEOSSTRTree node capacity \(nodeCapacity) must be at least 2")
    self.context = context
    tree = try context.check(
      "GEOSSTRtree_create_r", GEOSSTRtree_create_r(context.handle, nodeCapacity))
  }

  deinit {
    GEOSSTRtree_destroy_r(context.handle, tree)
  }

  /// Adds a box under an id.
  ///
  /// Call before the first query; inserting after it is a programming error (`precondition`).
  public func insert(_ box: BoundingBox, id: Int32) throws(GEOSError) {
    precondition(!isBuilt, "GEOSSTRTree.insert(id: \(id)) after a query: insert every box first")
    let (first, second) = box.planarParts
    try insertPlanar(first, id: id)
    if let second { try insertPlanar(second, id: id) }
  }

  /// Calls `visit` with the id of every box that holds the position (edges included).
  ///
  /// The first query packs the tree. Ids come in GEOS's order, not sorted.
  public func query(latitude: Double, longitude: Double, _ visit: (Int32) -> Void)
    throws(GEOSError)
  {
    // A new point per query: GEOS caches a geometry's envelope, so a moved point would be
    // searched at its first position.
    let probe = try GEOSProbe(latitude: latitude, longitude: longitude, context: context)
    try query(probe, visit)
  }

  /// ``query(latitude:longitude:_:)`` with a point the caller made, so that one GEOS point per
  /// position can serve the tree and the prepared predicates (``PreparedShape/covers(_:)``).
  package func query(_ probe: borrowing GEOSProbe, _ visit: (Int32) -> Void) throws(GEOSError) {
    isBuilt = true
    let handle = context.handle
    let tree = self.tree
    let probe = probe.pointer
    // The C callback gets the (non-escaping) closure through its userdata pointer; the closure
    // only lives for the duration of this call, which GEOSSTRtree_query_r does not outlast.
    withoutActuallyEscaping(visit) { visit in
      var visitor = visit
      withUnsafeMutablePointer(to: &visitor) { visitor in
        GEOSSTRtree_query_r(
          handle, tree, probe,
          { item, userdata in
            guard let userdata else { return }
            let visit = userdata.assumingMemoryBound(to: ((Int32) -> Void).self).pointee
            visit(GEOSSTRTree.id(of: item))
          }, visitor)
      }
    }
    if let message = context.pendingError() {
      throw GEOSError(function: "GEOSSTRtree_query_r", message: message)
    }
  }

  // MARK: - Private

  private func insertPlanar(_ box: BoundingBox, id: Int32) throws(GEOSError) {
    let handle = context.handle
    let rectangle = GEOSGeometry(
      taking: try context.check(
        "GEOSGeom_createRectangle_r",
        GEOSGeom_createRectangle_r(handle, box.west, box.south, box.east, box.north)),
      context: context)
    // GEOS (since 3.9) copies the envelope, so the rectangle may go right after.
    GEOSSTRtree_insert_r(handle, tree, rectangle.pointer, Self.item(for: id))
    if let message = context.pendingError() {
      throw GEOSError(function: "GEOSSTRtree_insert_r", message: message)
    }
    count += 1
  }

  /// Items are stored as pointer-sized integers, offset by one so that id 0 is not null.
  private static func item(for id: Int32) -> UnsafeMutableRawPointer? {
    UnsafeMutableRawPointer(bitPattern: UInt(UInt32(bitPattern: id)) + 1)
  }

  private static func id(of item: UnsafeMutableRawPointer?) -> Int32 {
    Int32(bitPattern: UInt32(truncatingIfNeeded: UInt(bitPattern: item) - 1))
  }
}
