import FenceEngine
import FenceGeometry
import FenceIndex

/// FenceKit's own way to find the fences holding a fix, as the engine does it: a `FenceIndex`
/// R-tree over the fences' bounding boxes, then `Area.contains` (ECEF chord for circles, the
/// stripe-indexed point-in-polygon test for polygons).
///
/// The engine does not expose which fences hold a fix (it keeps zones, not fences), so
/// `--compare-geos` runs this loop beside it to count (fix, fence) containments and check them
/// against ``GEOSContainmentLoop``. Allocates nothing per query.
struct NativeContainmentLoop {
  private var index: RTree
  private let areas: [Area]

  /// Indexes `fences` (ids are positions in `fences`).
  init(fences: [Fence]) {
    areas = fences.map(\.area)
    index = RTree(fences.enumerated().map { (id: Int32($0.offset), box: $0.element.area.boundingBox) })
  }

  /// Calls `visit` with the id of every fence that covers the position (boundary included), in
  /// the index's order.
  ///
  /// Mutating only to search the index in place, as the engine does (decision 0013): it changes
  /// nothing.
  ///
  /// - Precondition: the position is valid (`Coordinate.isValid`).
  mutating func forEachFence(containing latitude: Double, longitude: Double, _ visit: (Int32) -> Void) {
    let position = Position(Coordinate(uncheckedLatitude: latitude, longitude: longitude))
    let areas = areas
    index.searchInPlace(containing: latitude, longitude: longitude) { id in
      if areas[Int(id)].contains(position) { visit(id) }
    }
  }
}
