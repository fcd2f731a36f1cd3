import Dispatch
import FenceGeometry

extension ZoneEvaluator {
  /// Notes a polygon fence being placed whose tables are built when the change finishes: one
  /// of at least ``Configuration/tablesAheadEdgeCount`` edges, with the native backend (with
  /// GEOS, GEOS answers the polygon tests and the cell cache, the only other reader, is off).
  /// Read here, while placing the fence has its shape in the processor's cache: a pass over a
  /// million small polygons afterwards would miss on each.
  @inline(__always)
  func noteTablesAhead(_ shape: MultiPolygon, batch: inout RemovalBatch) {
    guard configuration.predicateBackend == .native else { return }
    let edges = shape.edgeCount
    if edges >= configuration.tablesAheadEdgeCount { batch.tablesAhead.append((shape, edges)) }
  }

  /// Builds the tables of the large polygon fences a change placed before any fix asks for
  /// them: their latitude stripes and chunk trees, on all cores at once, largest first
  /// (decision 0027). Without this, the first fix that comes near such a polygon builds them:
  /// about a millisecond for a 20,000-edge coastline. Tables a shape already has are kept.
  func buildTablesAhead(_ shapes: [(shape: MultiPolygon, edges: Int)]) {
    guard !shapes.isEmpty else { return }
    // Largest first, so that the last to finish is a small one.
    let ordered = shapes.sorted { $0.edges > $1.edges }.map(\.shape)
    DispatchQueue.concurrentPerform(iterations: ordered.count) { ordered[$0].buildTablesAhead() }
  }
}
