import FenceEngine
import FenceGEOS
import FenceGeometry

/// The plain GEOS way to find the fences holding a fix, for `fencebench run --compare-geos`:
/// a GEOS STR-tree over the fences' bounding boxes, then GEOS prepared `covers` for polygons
/// and an ECEF chord test for circles (GEOS has no geodesic circles).
///
/// This is the baseline the engine is measured against: the same fences, the same boundary
/// rule (boundary inside), no FenceKit index or polygon code. Each fix allocates one GEOS point
/// (GEOS 3.11 has neither a tree query nor prepared predicates by coordinates), used for the tree
/// search and every prepared `covers` of its candidates, as a careful plain GEOS program does.
/// Not thread-safe, like its ``GEOSContext``.
struct GEOSContainmentLoop {
  private enum Shape {
    /// Its ECEF centre and chord limit computed once, as a plain loop would keep them.
    case circle(Circle.ChordTest)
    case polygon(PreparedShape)
  }

  private let tree: GEOSSTRTree
  private let shapes: [Shape]

  /// Builds the tree and prepares every polygon of `fences` (ids are positions in `fences`).
  ///
  /// - Throws: ``GEOSError`` when GEOS cannot build a geometry or the tree.
  init(fences: [Fence]) throws(GEOSError) {
    let context = try GEOSContext()
    tree = try GEOSSTRTree(context: context)
    var shapes: [Shape] = []
    shapes.reserveCapacity(fences.count)
    for (id, fence) in fences.enumerated() {
      try tree.insert(fence.area.boundingBox, id: Int32(id))
      switch fence.area {
      case .circle(let circle): shapes.append(.circle(circle.chordTest))
      case .polygon(let polygon): shapes.append(.polygon(try PreparedShape(polygon, context: context)))
      }
    }
    self.shapes = shapes
  }

  /// Calls `visit` with the id of every fence that covers the position (boundary included), in
  /// GEOS's order. The first call packs the tree.
  ///
  /// - Precondition: the position is valid (`Coordinate.isValid`).
  func forEachFence(
    containing latitude: Double, longitude: Double, _ visit: (Int32) -> Void
  ) throws(GEOSError) {
    var ecef: ECEFPosition?
    var failure: GEOSError?
    let probe = try GEOSProbe(latitude: latitude, longitude: longitude, context: tree.context)
    try tree.query(probe) { id in
      guard failure == nil else { return }
      switch shapes[Int(id)] {
      case .circle(let circle):
        let position = ecef ?? ECEFPosition(latitude: latitude, longitude: longitude)
        ecef = position
        if circle.contains(position) { visit(id) }
      case .polygon(let prepared):
        do throws(GEOSError) {
          if try prepared.covers(probe) { visit(id) }
        } catch {
          failure = error
        }
      }
    }
    if let failure { throw failure }
  }
}
