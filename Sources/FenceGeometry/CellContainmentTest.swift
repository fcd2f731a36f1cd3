/// A polygon edge that meets a cell, in the frame (longitude, latitude), directed so that the
/// cell's reference point lies strictly to its left.
package struct CellEdge: Sendable {
  package var ax: Double
  package var ay: Double
  package var bx: Double
  package var by: Double
}

/// The containment test of one multipolygon for the points of one small cell, over only the
/// few edges that meet the cell: exactly ``MultiPolygon/contains(latitude:longitude:)``, or no
/// answer (then the caller runs the full test).
///
/// Made per cell or quarter of one
/// (``MultiPolygon/cellContainmentTest(cell:edgeLimit:edges:colours:)``, or from a larger
/// box's test by ``MultiPolygon/cellContainmentTest(box:within:parentEdges:parentColours:edgeLimit:edges:colours:)``):
/// a reference point *Q* in the cell that lies on no edge's line, the crossing parity of *Q*
/// per colour (the full test's answer there, one bit per part colour of the stripes, `EdgeIndex+Stripes.swift`),
/// and the edges meeting the cell, stored by the caller. A point *P* of the cell is then
/// covered when it lies on a local edge, or when some colour's parity, *Q*'s flipped by every
/// local edge of that colour that segment *PQ* crosses properly, is odd.
///
/// Why it is exact. Under the even-odd rule the parity of a point off the edges is the
/// parity of the number of edges any path from it to infinity crosses, for paths meeting the
/// edges only at proper crossings: the edges of one colour form closed rings, so every vertex
/// is met by an even number of edges. The full test counts a ray; here the path is *PQ*
/// followed by *Q*'s ray, so parity(*P*) = parity(*Q*) XOR the proper crossings of *PQ*,
/// colour by colour. The cell is convex and holds *P* and *Q*, so every edge meeting *PQ* is
/// among the local ones (they are all edges meeting the cell widened by 10⁻⁹ degrees, less the
/// side test's rounding, far below the 10⁻¹⁰ degrees by which *P* may leave the cell).
/// Per edge *AB* (with exact ``Orientation`` signs, *Q* strictly left of *AB*):
/// - *P* strictly left: *P* and *Q* on one side, no contact.
/// - *P* on the line: inside the edge's box it lies on the edge (covered, as in the full
///   test); beyond it, *PQ* meets the line only at *P*, which is off the edge: no contact.
/// - *P* strictly right: *PQ* meets the line at one point strictly between *P* and *Q*. When
///   *A* and *B* are strictly on opposite sides of the line *PQ*, that point is inside the edge:
///   a proper crossing. Strictly on one side: no contact. When *A* or *B* lies on the line
///   *PQ*, that vertex is the meeting point and lies on *PQ*: the only degenerate case, which
///   returns `nil` for the full test to decide.
/// A point on an edge is covered, so the answer is the full test's for every point, boundary
/// included.
package struct CellContainmentTest: Sendable {
  /// The cell widened by ``pointMargin``: points outside it are not answered.
  package let west: Double
  package let south: Double
  package let east: Double
  package let north: Double
  /// The reference point *Q*.
  package let qx: Double
  package let qy: Double
  /// The crossing parity of *Q* per colour (bit *c* for colour *c*).
  package let referenceParities: UInt64
  /// Where the test's edges (and their colours) start in the caller's storage, and how many.
  package let edgeStart: Int32
  package let edgeCount: Int32

  /// Degrees by which a point may lie outside the cell and still be answered: far above the
  /// rounding of a coordinate's cell (about 3·10⁻¹⁴ degree), far below the cell margin.
  package static let pointMargin = 1e-10

  /// A test that answers no point (`nil`): the stand-in for a test that could not be made.
  package static let undecided = CellContainmentTest(
    west: .infinity, south: .infinity, east: -.infinity, north: -.infinity, qx: 0, qy: 0,
    referenceParities: 0, edgeStart: 0, edgeCount: 0)

  /// Whether the multipolygon covers the frame point (`x` longitude, `y` latitude), boundary
  /// included; `nil` when the point is outside the (widened) cell or a vertex lies exactly on
  /// the segment from it to *Q* (the caller then runs the full test). See the type's
  /// discussion for why the answer is exact.
  ///
  /// - Parameters:
  ///   - edges: the storage the test was made into.
  ///   - colours: the colour of each edge in `edges`.
  /// - Complexity: O(*k*) for the test's *k* edges: one orientation each, three for an edge
  ///   whose line separates the point from *Q*. Allocates nothing.
  @inline(__always)
  package func covers(
    x: Double, y: Double, edges: UnsafeBufferPointer<CellEdge>,
    colours: UnsafeBufferPointer<UInt8>
  ) -> Bool? {
    guard let found = crossings(x: x, y: y, edges: edges, colours: colours) else { return nil }
    return found.onEdge || found.parities != 0
  }

  /// Whether the frame point lies on an edge, else its crossing parity per colour (as
  /// ``covers(x:y:edges:colours:)``, which see); `nil` when undecided.
  @inline(__always)
  func crossings(
    x: Double, y: Double, edges: UnsafeBufferPointer<CellEdge>,
    colours: UnsafeBufferPointer<UInt8>
  ) -> (onEdge: Bool, parities: UInt64)? {
    guard x >= west, x <= east, y >= south, y <= north else { return nil }
    var parities = referenceParities
    let start = Int(edgeStart)
    for k in start..<(start + Int(edgeCount)) {
      let e = edges[k]
      let side = Orientation.determinant(ax: e.ax, ay: e.ay, bx: e.bx, by: e.by, cx: x, cy: y)
      if side > 0 { continue }  // on Q's side
      if side == 0 {
        if x >= min(e.ax, e.bx), x <= max(e.ax, e.bx), y >= min(e.ay, e.by), y <= max(e.ay, e.by)
        {
          return (true, 0)
        }
        continue
      }
      let turnA = Orientation.determinant(ax: x, ay: y, bx: qx, by: qy, cx: e.ax, cy: e.ay)
      let turnB = Orientation.determinant(ax: x, ay: y, bx: qx, by: qy, cx: e.bx, cy: e.by)
      if turnA == 0 || turnB == 0 { return nil }  // a vertex on PQ
      if (turnA > 0) != (turnB > 0) { parities ^= 1 << UInt64(colours[k]) }
    }
    return (false, parities)
  }
}

extension EdgeIndex {
  /// Reference points tried in turn, as fractions of the cell's width and height: the centre,
  /// then two points off its axes (a vertical or horizontal edge through the centre).
  static let cellReferenceFractions: [(Double, Double)] = [
    (0.5, 0.5), (0.3125, 0.6875), (0.6875, 0.40625),
  ]

  /// Prepares the exact containment test, for the points of `cell`, of the multipolygon whose
  /// stripe index this is (one part's own, or the parts' joined),
  /// appending the edges that meet the cell to `edges` (directed so that the reference point
  /// is on their left) and their colours to `colours`; see ``CellContainmentTest``.
  ///
  /// `nil` (and nothing appended) when the test cannot be made: more than `edgeLimit` edges
  /// meet the cell, the index's frame is unwrapped (the shape crosses the antimeridian),
  /// the cell touches longitude ±180, or every reference point tried lies on an edge's line.
  /// When no edge meets the cell, the test answers every point of it with *Q*'s answer.
  ///
  /// The edges come from the stripes the cell spans when they hold few entries
  /// (``EdgeIndex/forEachStripeEdge(meetingBox:_:_:_:margin:_:)``), else from each part's chunk
  /// tree: the same edges, in another order, which the test does not depend on.
  ///
  /// - Complexity: at most ``EdgeIndex/stripeScanLimit`` stripe entries, or about
  ///   O(log *n* + *k*) for the *k* edges whose chunk boxes meet the cell; plus one full
  ///   containment test (the full test leaves only a point on an edge undecided, and a
  ///   reference point on an edge's line is rejected before it).
  package func cellContainmentTest(
    cell: BoundingBox, edgeLimit: Int, edges: inout [CellEdge], colours: inout [UInt8]
  ) -> CellContainmentTest? {
    guard canHaveCellTest(cell) else { return nil }
    let start = edges.count
    precondition(colours.count == start, "one colour per cell edge")
    let margin = MultiPolygon.cellMargin
    var overflows = false
    // From the few stripes the cell spans when it can (the same edges, in stripe order),
    // else from each part's chunk tree.
    // The index's edge colours (`colours` is the list being filled).
    let colourOf = self.colours
    if let stopped = forEachStripeEdge(
      meetingBox: cell.west, cell.south, cell.east, cell.north, margin: margin,
      { k in
        guard edges.count - start < edgeLimit else { return true }
        let (ax, ay, bx, by) = edge(k)
        edges.append(CellEdge(ax: ax, ay: ay, bx: bx, by: by))
        colours.append(colourOf[k])
        return false
      })
    {
      overflows = stopped
    } else {
      overflows = gatherFromPartTrees(
        cell, start: start, edgeLimit: edgeLimit, edges: &edges, colours: &colours)
    }
    return finishCellTest(
      cell, from: start, overflows: overflows, edges: &edges, colours: &colours
    ) { x, y in crossingParities(x: x, y: y) }
  }

  /// Appends the edges meeting `cell` (widened) from each part's chunk tree, as
  /// ``cellContainmentTest(cell:edgeLimit:edges:colours:)`` takes them when the stripes hold
  /// too many entries; whether more than `edgeLimit` were found since `start`.
  private func gatherFromPartTrees(
    _ cell: BoundingBox, start: Int, edgeLimit: Int, edges: inout [CellEdge],
    colours: inout [UInt8]
  ) -> Bool {
    let margin = MultiPolygon.cellMargin
    var overflows = false
    for part in 0..<partCount {
      guard partExtentMeets(part, cell, margin: margin) else { continue }
      let colour = partColours[part]
      overflows = forEachPartEdge(
        part, meetingBox: cell.west, cell.south, cell.east, cell.north, margin: margin
      ) { ax, ay, bx, by in
        guard edges.count - start < edgeLimit else { return true }
        edges.append(CellEdge(ax: ax, ay: ay, bx: bx, by: by))
        colours.append(colour)
        return false
      }
      if overflows { break }
    }
    return overflows
  }

  /// The test for a box inside the cell of `parent` (a quarter of it), made from the parent's
  /// edges instead of the polygon's index: the same test as
  /// ``cellContainmentTest(cell:edgeLimit:edges:colours:)`` would make, for less. The
  /// parent's edges are all those meeting its cell, so those meeting `box` are among them;
  /// the reference point's parities come from the parent's test (or, when it cannot tell, the
  /// full test).
  ///
  /// - Parameters:
  ///   - parentEdges: the storage `parent` was made into; `parentColours`, their colours.
  /// - Complexity: O(*k*) for the parent's *k* edges. Allocates only to grow `edges` and
  ///   `colours`.
  package func cellContainmentTest(
    box: BoundingBox, within parent: CellContainmentTest, parentEdges: [CellEdge],
    parentColours: [UInt8], edgeLimit: Int, edges: inout [CellEdge], colours: inout [UInt8]
  ) -> CellContainmentTest? {
    guard canHaveCellTest(box) else { return nil }
    precondition(
      box.west >= parent.west && box.east <= parent.east && box.south >= parent.south
        && box.north <= parent.north, "a box inside the parent's cell")
    let start = edges.count
    precondition(colours.count == start, "one colour per cell edge")
    let margin = MultiPolygon.cellMargin
    var overflows = false
    let (x0, y0) = (box.west - margin, box.south - margin)
    let (x1, y1) = (box.east + margin, box.north + margin)
    let first = Int(parent.edgeStart)
    for k in first..<(first + Int(parent.edgeCount)) {
      let e = parentEdges[k]
      guard EdgeIndex.edge(ax: e.ax, ay: e.ay, bx: e.bx, by: e.by, meetsBox: x0, y0, x1, y1)
      else { continue }
      guard edges.count - start < edgeLimit else {
        overflows = true
        break
      }
      edges.append(e)
      colours.append(parentColours[k])
    }
    return finishCellTest(
      box, from: start, overflows: overflows, edges: &edges, colours: &colours
    ) { x, y in
      let found = parentEdges.withUnsafeBufferPointer { e in
        parentColours.withUnsafeBufferPointer { c in
          parent.crossings(x: x, y: y, edges: e, colours: c)
        }
      }
      if let found, !found.onEdge { return found.parities }
      return crossingParities(x: x, y: y)
    }
  }

  /// Whether `cell` can have a test over this index: neither is across the antimeridian, and
  /// the cell does not touch longitude ±180.
  private func canHaveCellTest(_ cell: BoundingBox) -> Bool {
    !isUnwrapped && !cell.crossesAntimeridian && cell.west > -180 && cell.east < 180
  }

  /// Picks the reference point for the edges appended from `start` and directs them, or
  /// removes them and gives `nil` (on `overflows`, or when every reference point tried lies on
  /// an edge's line or `parities` has no answer there).
  private func finishCellTest(
    _ cell: BoundingBox, from start: Int, overflows: Bool, edges: inout [CellEdge],
    colours: inout [UInt8], parities: (Double, Double) -> UInt64?
  ) -> CellContainmentTest? {
    if !overflows {
      let width = cell.east - cell.west
      let height = cell.north - cell.south
      nextReference: for (fx, fy) in Self.cellReferenceFractions {
        let qx = cell.west + fx * width
        let qy = cell.south + fy * height
        // Each edge directed with Q on its left, in one pass; a Q on an edge's line is
        // rejected, and the next one directs every edge again by its own side.
        for k in start..<edges.count {
          let e = edges[k]
          let side = Orientation.determinant(ax: e.ax, ay: e.ay, bx: e.bx, by: e.by, cx: qx, cy: qy)
          if side == 0 { continue nextReference }
          if side < 0 { edges[k] = CellEdge(ax: e.bx, ay: e.by, bx: e.ax, by: e.ay) }
        }
        guard let referenceParities = parities(qx, qy) else { continue }
        let d = CellContainmentTest.pointMargin
        return CellContainmentTest(
          west: cell.west - d, south: cell.south - d, east: cell.east + d, north: cell.north + d,
          qx: qx, qy: qy, referenceParities: referenceParities, edgeStart: Int32(start),
          edgeCount: Int32(edges.count - start))
      }
    }
    edges.removeSubrange(start...)
    colours.removeSubrange(start...)
    return nil
  }
}

extension MultiPolygon {
  /// ``EdgeIndex/cellContainmentTest(cell:edgeLimit:edges:colours:)`` of the multipolygon's
  /// stripe index; `nil` when it has none (parts in different antimeridian frames, or more than
  /// 64 colours).
  package func cellContainmentTest(
    cell: BoundingBox, edgeLimit: Int, edges: inout [CellEdge], colours: inout [UInt8]
  ) -> CellContainmentTest? {
    stripes?.cellContainmentTest(
      cell: cell, edgeLimit: edgeLimit, edges: &edges, colours: &colours)
  }

  /// ``EdgeIndex/cellContainmentTest(box:within:parentEdges:parentColours:edgeLimit:edges:colours:)``
  /// of the multipolygon's stripe index; `nil` when it has none.
  package func cellContainmentTest(
    box: BoundingBox, within parent: CellContainmentTest, parentEdges: [CellEdge],
    parentColours: [UInt8], edgeLimit: Int, edges: inout [CellEdge], colours: inout [UInt8]
  ) -> CellContainmentTest? {
    stripes?.cellContainmentTest(
      box: box, within: parent, parentEdges: parentEdges, parentColours: parentColours,
      edgeLimit: edgeLimit, edges: &edges, colours: &colours)
  }
}
