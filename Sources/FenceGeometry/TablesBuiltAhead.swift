/// An edge index's tables built before any query asks for them (decision 0027).
///
/// The stripes and a stored chunk tree are otherwise made by the first query that needs them
/// (decision 0017): about 50 ns an edge, a millisecond for a 20,000-edge coastline, paid by
/// whichever fix first comes near the polygon. A caller that would rather pay that at load
/// (an evaluator, for its largest polygons) builds them here. The values of a packed index are
/// unpacked into a temporary buffer for the build and not kept: kept, they would cost 8 bytes a
/// value for every large polygon, where the first query that reads them unpacks them in about
/// 15 ns an edge.
extension EdgeIndex {
  /// Files the stripes (when `stripes`) and builds a stored chunk tree (when `tree`, and the
  /// index stores one), unless a query already has; publishes them as a first query would
  /// (``PublishedOnce``: a query racing this on another thread gets the same tables).
  ///
  /// - Complexity: O(*n*) in the edges, plus their unpacking when packed and not yet unpacked.
  ///   Allocates the tables, and a temporary buffer for packed values.
  func buildTablesAhead(stripes: Bool, tree: Bool) {
    let needsStripes = stripes && !stripeSlot.isPublished
    let needsTree = tree && treeStorage == .stored && !treeSlot.isPublished
    guard needsStripes || needsTree else { return }
    withEdgesUnpublished { edges in
      if needsStripes { _ = stripeSlot.object { makeStripeTable(edges: edges) } }
      if needsTree { _ = treeSlot.object { makeTreeTable(edges: edges) } }
    }
  }
}

extension MultiPolygon {
  /// The edges of all parts (zero-length edges left out): what building its tables costs.
  public var edgeCount: Int {
    switch parts {
    case .one(let polygon): polygon.index.edgeCount
    case .many(let many): many.polygons.reduce(0) { $0 + $1.index.edgeCount }
    }
  }

  /// Builds now the tables that queries would otherwise build on first use (decision 0027):
  /// the stripes that containment reads (one polygon's own, a multipolygon's joined index's,
  /// which is made first if needed, or each part's when they cannot be joined) and the stored
  /// chunk trees of the parts, which cell
  /// relations and distances read. The answers are the same either way; only when the work is
  /// done changes. Safe to call from any thread, at the same time as queries.
  ///
  /// - Complexity: O(*n*) in the edges. Allocates the tables (about 9 bytes an edge for a
  ///   jagged coastline's stripes, 3.4 for its tree).
  public func buildTablesAhead() {
    switch parts {
    case .one(let polygon):
      polygon.index.buildTablesAhead(stripes: true, tree: true)
    case .many(let many):
      // Parts that cannot share a joined index (different antimeridian frames, or more than 64
      // colours) are tested one by one, each by its own stripes.
      let joined = many.stripes
      joined?.buildTablesAhead(stripes: true, tree: false)
      for polygon in many.polygons {
        polygon.index.buildTablesAhead(stripes: joined == nil, tree: true)
      }
    }
  }
}
