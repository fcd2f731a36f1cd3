extension RTree {
  /// The steps of a point search whose memory ``prefetchPointSearch(_:latitude:longitude:)``
  /// can ask for ahead, in the order a search reads it.
  public enum PointSearchStep: Sendable {
    /// Where the point's cell starts in the grid.
    case cell
    /// The cell's listings (reads what ``cell`` brought).
    case listings
  }

  /// Asks the processor's caches for what a later ``search(containing:longitude:_:)`` of this
  /// point will read at `step`, without waiting for it: a caller that knows its next points
  /// (a batch of fixes) asks for each step a little ahead, so that the search finds its memory
  /// in cache instead of missing at every step on ground no search touched recently.
  ///
  /// Changes nothing and answers nothing; it does nothing on an index without a point grid
  /// (``answersPointsFromGrid``), whose walk of a small tree stays in cache. `mutating` only so
  /// that the tree is passed by reference, not copied at every call (see
  /// ``searchInPlace(containing:longitude:_:)``).
  public mutating func prefetchPointSearch(_ step: PointSearchStep, latitude: Double, longitude: Double) {
    // Through the stored grid in place: binding it to a local would copy it, retaining and
    // releasing its three tables on every call.
    switch step {
    case .cell: mainGrid?.prefetchCell(x: longitude, y: latitude)
    case .listings: mainGrid?.prefetchListings(x: longitude, y: latitude)
    }
  }
}
