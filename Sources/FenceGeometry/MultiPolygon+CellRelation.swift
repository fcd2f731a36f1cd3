/// How an area relates to every point of a small latitude-longitude box (a *cell*).
public enum CellRelation: Sendable, Hashable {
  /// The area covers every point of the cell.
  case inside
  /// The area covers no point of the cell.
  case outside
  /// Some points of the cell may be covered and others not: each must be tested.
  case mixed
}

extension MultiPolygon {
  /// Degrees by which a cell is widened before it is checked against the edges: far more
  /// than the rounding of the side test, far less than any real cell (10⁻⁹° is 0.1 mm).
  static let cellMargin = 1e-9

  /// Whether every point of `cell`, or none, is covered by the multipolygon (boundary
  /// included), or each must be tested.
  ///
  /// When no edge of any part meets the cell (widened by 10⁻⁹°), containment cannot change
  /// inside the cell, so the answer at its centre holds for all of it: `.inside` or
  /// `.outside` is then exact, for every point, under the same boundary rule as
  /// ``contains(latitude:longitude:)``. Otherwise `.mixed`. A multipolygon crossing the
  /// antimeridian, or a cell that does (or that touches longitude ±180, where containment also
  /// looks at the other side), is always `.mixed`.
  ///
  /// Whether an edge meets the cell is read from the latitude stripes the cell spans when they
  /// hold few entries (``EdgeIndex/stripesMeetBox(minX:minY:maxX:maxY:margin:)``), else from
  /// the chunk trees: the same answer either way.
  ///
  /// - Complexity: at most ``EdgeIndex/stripeScanLimit`` entries, or about O(log *n* + *k*) for
  ///   the *k* edges whose chunk boxes meet the cell. Allocates nothing.
  public func relation(toCell cell: BoundingBox) -> CellRelation {
    guard !cell.crossesAntimeridian, cell.west > -180, cell.east < 180 else { return .mixed }
    let box = boundingBox
    let margin = Self.cellMargin
    if !box.crossesAntimeridian,
      cell.west - margin > box.east || cell.east + margin < box.west
        || cell.south - margin > box.north || cell.north + margin < box.south
    {
      return .outside
    }
    // One part, or parts joined in one index: that index's stripes or tree, without the
    // parts (nil: the parts' trees must answer, or an antimeridian frame).
    if let stripes, let relation = stripes.relation(toCell: cell) { return relation }
    let minX = cell.west
    let minY = cell.south
    let maxX = cell.east
    let maxY = cell.north
    switch parts {
    case .one(let polygon):
      let index = polygon.index
      if index.isUnwrapped { return .mixed }
      if index.meetsBox(minX: minX, minY: minY, maxX: maxX, maxY: maxY, margin: margin) {
        return .mixed
      }
    case .many(let many):
      // Parts without a joined index (a joined one answers above, unless unwrapped), by their
      // flat extents, in order: only a part whose extent meets the cell has its index read
      // (reading one retains it).
      for k in many.extents.indices {
        let extent = many.extents[k]
        if extent.isUnwrapped { return .mixed }
        guard extent.meets(cell, margin: margin) else { continue }
        if many.polygons[k].index.meetsBox(
          minX: minX, minY: minY, maxX: maxX, maxY: maxY, margin: margin)
        {
          return .mixed
        }
      }
    }
    let centre = contains(
      latitude: (cell.south + cell.north) / 2, longitude: (cell.west + cell.east) / 2)
    return centre ? .inside : .outside
  }
}

extension EdgeIndex {
  /// ``MultiPolygon/relation(toCell:)`` of the multipolygon whose stripe index this is (one
  /// part's own, or the parts' joined), read from this index alone: whether an edge meets the
  /// cell from the stripes the cell spans (``stripesMeetBox(minX:minY:maxX:maxY:margin:)``) or
  /// from the chunk tree (a joined index's: each part's tree over the joined copy of its edges,
  /// ``withPartEdges(_:_:)``), then the test of the cell's centre. `nil` when this index cannot
  /// tell: its frame is unwrapped (the multipolygon's box decides first).
  ///
  /// The same answer as the multipolygon's, which calls it: a cell that misses the extent finds
  /// no edge and a centre outside it. Read through ``UnretainedContainmentTest``, it costs no
  /// reference counting (a copy of the multipolygon retains and releases its parts).
  func relation(toCell cell: BoundingBox) -> CellRelation? {
    guard !cell.crossesAntimeridian, cell.west > -180, cell.east < 180 else { return .mixed }
    if isUnwrapped { return nil }
    let margin = MultiPolygon.cellMargin
    if let meets = stripesMeetBox(
      minX: cell.west, minY: cell.south, maxX: cell.east, maxY: cell.north, margin: margin)
    {
      if meets { return .mixed }
    } else if treeStorage != .none {
      if meetsBox(
        minX: cell.west, minY: cell.south, maxX: cell.east, maxY: cell.north, margin: margin)
      {
        return .mixed
      }
    } else {
      // A joined index: its parts' trees, the parts whose extents miss the cell skipped.
      // (Its parts' extents read directly: ``partExtentMeets(_:_:margin:)`` would ask at each
      // part whether the index is joined.)
      let parts = self.parts
      for k in parts.indexes.indices where parts.extents[k].meets(cell, margin: margin) {
        if forEachPartEdge(
          k, meetingBox: cell.west, cell.south, cell.east, cell.north, margin: margin,
          { _, _, _, _ in true })
        {
          return .mixed
        }
      }
    }
    let centre = covers(
      latitude: (cell.south + cell.north) / 2, longitude: (cell.west + cell.east) / 2)
    return centre ? .inside : .outside
  }
}
