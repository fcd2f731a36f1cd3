internal import CGEOSBaseline

/// A GEOS STRtree used directly through the C API, queried with boxes: the "plain GEOS"
/// baseline of the nearest-N benchmark (box query, then exact distances, then a sort).
///
/// Boxes must not cross the antimeridian (the benchmark workloads never do). Not thread-safe.
public final class PlainGEOSTree {
  private let handle: GEOSContextHandle_t
  private let tree: OpaquePointer
  private var isBuilt = false

  /// An empty tree with GEOS's recommended node capacity of 10.
  public init(nodeCapacity: Int = 10) {
    guard let handle = GEOS_init_r() else { preconditionFailure("GEOS_init_r failed") }
    guard let tree = GEOSSTRtree_create_r(handle, nodeCapacity) else {
      preconditionFailure("GEOSSTRtree_create_r failed")
    }
    self.handle = handle
    self.tree = tree
  }

  deinit {
    GEOSSTRtree_destroy_r(handle, tree)
    GEOS_finish_r(handle)
  }

  /// Adds a planar box (`west <= east`) under an id; only before the first query.
  public func insert(west: Double, south: Double, east: Double, north: Double, id: Int32) {
    precondition(!isBuilt && west <= east, "insert(id: \(id)) after a query or across 180")
    guard let rectangle = GEOSGeom_createRectangle_r(handle, west, south, east, north) else {
      preconditionFailure("GEOSGeom_createRectangle_r failed for \(id)")
    }
    // GEOS copies the envelope, so the rectangle may go right after.
    GEOSSTRtree_insert_r(handle, tree, rectangle, UnsafeMutableRawPointer(bitPattern: Int(id) + 1))
    GEOSGeom_destroy_r(handle, rectangle)
  }

  /// Calls `visit` with the id of every box that shares a point with the query box.
  ///
  /// The first query packs the tree.
  public func query(
    west: Double, south: Double, east: Double, north: Double, _ visit: (Int32) -> Void
  ) {
    isBuilt = true
    guard let rectangle = GEOSGeom_createRectangle_r(handle, west, south, east, north) else {
      preconditionFailure("GEOSGeom_createRectangle_r failed")
    }
    defer { GEOSGeom_destroy_r(handle, rectangle) }
    withoutActuallyEscaping(visit) { visit in
      var visitor = visit
      withUnsafeMutablePointer(to: &visitor) { visitor in
        GEOSSTRtree_query_r(
          handle, tree, rectangle,
          { item, userdata in
            guard let userdata else { return }
            let visit = userdata.assumingMemoryBound(to: ((Int32) -> Void).self).pointee
            visit(Int32(truncatingIfNeeded: Int(bitPattern: item) - 1))
          }, visitor)
      }
    }
  }
}
