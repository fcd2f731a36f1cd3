extension EdgeIndex {
  /// Whether the edges' extent (frame degrees) comes within `margin` degrees of `box`: the
  /// quick test before ``forEachEdge(meetingBox:_:_:_:margin:_:)``, which finds no edge when
  /// this is `false`.
  @inline(__always)
  func extentMeets(_ box: BoundingBox, margin: Double) -> Bool {
    PartExtent(self).meets(box, margin: margin)
  }

  /// Whether any indexed edge meets the closed box `minX...maxX` × `minY...maxY` (frame
  /// degrees), or passes within `margin` degrees of it.
  ///
  /// Depth-first over the ``ChunkTree``: a node whose box misses the widened box is skipped; in a
  /// chunk, an edge meets the widened box when their extents overlap and the box's corners do
  /// not all lie strictly on one side of the edge's line. The margin absorbs the rounding of
  /// that side test (far below 10⁻¹² degrees at these magnitudes), so a `false` is exact: no
  /// point of the box lies on or across an edge. A `true` may be a near miss.
  ///
  /// - Complexity: about O(log *n* + *k*) for the *k* edges whose chunk boxes meet the box.
  ///   Allocates nothing.
  func meetsBox(minX: Double, minY: Double, maxX: Double, maxY: Double, margin: Double) -> Bool
  {
    forEachEdge(meetingBox: minX, minY, maxX, maxY, margin: margin) { _ in true }
  }

  /// The most stripe entries ``forEachStripeEdge(meetingBox:_:_:_:margin:_:)`` reads; more are
  /// left to the chunk tree.
  ///
  /// Measured for the cell relation on the harbor week under callgrind's cache simulation (a
  /// 1 MB last level), against the tree alone: 32 spared about 1.7 million instructions of the
  /// evaluation, 62,000 first-level and 2,700 last-level misses; 64 about the same but no
  /// last-level misses; 256 read so many edges that it missed the last level 17,000 times
  /// more.
  static let stripeScanLimit = 32

  /// ``meetsBox(minX:minY:maxX:maxY:margin:)`` answered from the latitude stripes the widened
  /// box spans, or `nil` when they hold more than ``stripeScanLimit`` entries (the chunk tree
  /// then answers quicker). Files the stripes if no query has yet.
  ///
  /// The same answer as the chunk tree's: see
  /// ``forEachStripeEdge(meetingBox:_:_:_:margin:_:)``. A cell of the cell cache spans a few
  /// stripes of a large polygon: a short run of entries, which the test of the cell's centre
  /// that follows a `false` reads again from cache, where the tree's query reads node boxes
  /// along the whole outline near the cell.
  ///
  /// - Complexity: O(*k*) for the *k* entries read, at most ``stripeScanLimit``. Allocates
  ///   nothing.
  func stripesMeetBox(
    minX: Double, minY: Double, maxX: Double, maxY: Double, margin: Double
  ) -> Bool? {
    forEachStripeEdge(meetingBox: minX, minY, maxX, maxY, margin: margin) { _ in true }
  }

  /// Calls `body` once with the number of each edge that meets the closed box `minX...maxX` ×
  /// `minY...maxY` widened by `margin` degrees, as the chunk tree's search
  /// (``forEachEdge(meetingBox:_:_:_:margin:_:)``) decides it, until `body` returns `true`;
  /// read from the entries of the latitude stripes the widened box spans. `nil` (and `body`
  /// never called) when those hold more than ``stripeScanLimit`` entries.
  ///
  /// Every edge whose latitudes meet the widened box is filed in one of those stripes
  /// (``stripe(_:minY:scale:count:)`` is monotone), so the same edges are found as by the tree,
  /// in stripe order rather than edge order. An edge filed in several of them is passed on in
  /// the first: the box's first stripe, or the edge's own first stripe.
  ///
  /// - Returns: whether `body` stopped the search; `nil` when the stripes were not read.
  /// - Complexity: O(*k*) for the *k* entries read, at most ``stripeScanLimit``. Allocates
  ///   nothing.
  @inline(__always)
  func forEachStripeEdge(
    meetingBox minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, margin: Double,
    _ body: (Int) -> Bool
  ) -> Bool? {
    let x0 = minX - margin
    let y0 = minY - margin
    let x1 = maxX + margin
    let y1 = maxY + margin
    guard self.minX <= x1, self.maxX >= x0, self.minY <= y1, self.maxY >= y0 else { return false }
    return withStripes { stripes in
      stripes.offsets.withUnsafeBufferPointer { o -> Bool? in
        let scale = stripes.scale
        let count = stripes.count
        let s0: Int
        let s1: Int
        let narrow = o.count == count &+ 1
        if o.isEmpty {
          s0 = 0
          s1 = 0
          guard edgeCount <= Self.stripeScanLimit else { return nil }
        } else {
          s0 = EdgeIndex.stripe(y0, minY: self.minY, scale: scale, count: count)
          s1 = EdgeIndex.stripe(y1, minY: self.minY, scale: scale, count: count)
          let entries = Self.value(o, s1 &+ 1, narrow: narrow) &- Self.value(o, s0, narrow: narrow)
          guard entries <= Self.stripeScanLimit else { return nil }
        }
        return withEdges { e in
          stripes.edgeNumbers.withUnsafeBufferPointer { n in
            let stride = edgeStride
            let narrowNumbers = EdgeIndex.hasNarrowEdgeNumbers(edgeCount: edgeCount)
            for s in s0...s1 {
              let entries =
                o.isEmpty
                ? 0..<edgeCount
                : Self.value(o, s, narrow: narrow)..<Self.value(o, s &+ 1, narrow: narrow)
              for k in entries {
                let number = n.isEmpty ? k : Self.value(n, k, narrow: narrowNumbers)
                let i = stride &* number
                let ay = e[i + 1]
                let by = e[i + 3]
                guard
                  EdgeIndex.edge(
                    ax: e[i], ay: ay, bx: e[i + 2], by: by, meetsBox: x0, y0, x1, y1)
                else { continue }
                // Passed on already in an earlier stripe of the box, its first there.
                if s != s0,
                  EdgeIndex.stripe(min(ay, by), minY: self.minY, scale: scale, count: count) != s
                {
                  continue
                }
                if body(number) { return true }
              }
            }
            return false
          }
        }
      }
    }
  }

  /// Calls `body` with the number of each edge that meets the closed box `minX...maxX` ×
  /// `minY...maxY` widened by `margin` degrees (as ``meetsBox(minX:minY:maxX:maxY:margin:)``
  /// decides it: every edge within the box widened by `margin` less 10⁻¹² degrees is visited,
  /// and some a little farther), until `body` returns `true`.
  ///
  /// - Returns: whether `body` stopped the search.
  /// - Complexity: about O(log *n* + *k*) for the *k* edges whose chunk boxes meet the box.
  ///   Allocates nothing.
  func forEachEdge(
    meetingBox minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, margin: Double,
    _ body: (Int) -> Bool
  ) -> Bool
  {
    withTree { tree in
      withEdges { e in
        forEachEdge(
          meetingBox: minX, minY, maxX, maxY, margin: margin, tree: tree, values: e,
          edgeStride: edgeStride, body)
      }
    }
  }

  /// ``forEachEdge(meetingBox:_:_:_:margin:_:)`` over this index's chunk tree, reading the
  /// edges from `values` at `stride` doubles an edge instead of from the index: the same edges,
  /// held elsewhere (a multipolygon's part read from the joined index's plain copy, so that a
  /// packed part is not unpacked: ``withPartEdges(_:_:)``). Edge `k` is
  /// `values[stride * k ..< stride * k + 4]`.
  ///
  /// - Precondition: `values` holds exactly ``edgeCount`` edges at `stride` (2 or 4).
  func forEachEdge(
    meetingBox minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, margin: Double,
    values: UnsafeBufferPointer<Double>, stride: Int, _ body: (Int) -> Bool
  ) -> Bool {
    precondition(
      (stride == 2 || stride == 4)
        && EdgeIndex.edgeCount(values: values.count, stride: stride) == edgeCount,
      "the index's edges")
    return withTree { tree in
      forEachEdge(
        meetingBox: minX, minY, maxX, maxY, margin: margin, tree: tree, values: values,
        edgeStride: stride, body)
    }
  }

  /// ``forEachEdge(meetingBox:_:_:_:margin:_:)`` over the index's `tree`, its edges read from
  /// `e` at `edgeStride` doubles an edge.
  @inline(__always)
  private func forEachEdge(
    meetingBox minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, margin: Double,
    tree: ChunkTree, values e: UnsafeBufferPointer<Double>, edgeStride: Int,
    _ body: (Int) -> Bool
  ) -> Bool {
    let levels = tree.levelCount
    guard levels > 0 else { return false }
    let x0 = minX - margin
    let y0 = minY - margin
    let x1 = maxX + margin
    let y1 = maxY + margin
    let edgeCount = self.edgeCount
    let chunkSize = ChunkTree.chunkSize
    let fanOut = ChunkTree.fanOut
    let stride = ChunkTree.stride
    // The root's box is the extent: a box it misses costs no nodes (a tree that stores none
    // would make them).
    guard self.minX <= x1, self.maxX >= x0, self.minY <= y1, self.maxY >= y0 else { return false }

    return tree.withNodes(edges: e, stride: edgeStride) { nodes in
      tree.withLevelStarts { starts in
        @inline(__always)
        func nodeMeets(_ n: Int) -> Bool {
          let i = stride * n
          return Double(nodes[i]) <= x1 && Double(nodes[i + 2]) >= x0
            && Double(nodes[i + 1]) <= y1 && Double(nodes[i + 3]) >= y0
        }
        @inline(__always)
        func edgeMeets(_ k: Int) -> Bool {
          let i = edgeStride &* k
          return EdgeIndex.edge(
            ax: e[i], ay: e[i + 1], bx: e[i + 2], by: e[i + 3], meetsBox: x0, y0, x1, y1)
        }
        // Pending (level, node) pairs: fanOut - 1 siblings wait per level at most, plus one.
        return withUnsafeTemporaryAllocation(
          of: Int.self, capacity: fanOut * ChunkTree.maximumLevels
        ) { pending in
          // Each entry is level * 2^32 + node index within all nodes.
          var top = 0
          let root = starts[levels - 1]
          guard nodeMeets(root) else { return false }
          pending[0] = (levels - 1) << 32 | root
          top = 1
          while top > 0 {
            top -= 1
            let entry = pending[top]
            let level = entry >> 32
            let node = entry & 0xFFFF_FFFF
            if level == 0 {
              let chunk = node - starts[0]
              let first = chunk * chunkSize
              for k in first..<min(edgeCount, first + chunkSize) where edgeMeets(k) {
                if body(k) { return true }
              }
              continue
            }
            let childLevelStart = starts[level - 1]
            let childLevelEnd = starts[level]
            let firstChild = childLevelStart + (node - starts[level]) * fanOut
            for child in firstChild..<min(childLevelEnd, firstChild + fanOut)
            where nodeMeets(child) {
              precondition(top < pending.count, "box contact stack overflow")
              pending[top] = (level - 1) << 32 | child
              top += 1
            }
          }
          return false
        }
      }
    }
  }

  /// Whether the edge from (`ax`, `ay`) to (`bx`, `by`) meets the closed box `x0...x1` ×
  /// `y0...y1`, as far as rounding lets the test tell: their extents overlap and the box's
  /// corners do not all lie strictly on one side of the edge's line. Rounding (below 10⁻¹²
  /// degrees for frame coordinates) may turn a near miss into `true`, or a contact within that
  /// distance of the box into `false`: callers widen the box by a margin far above it.
  @inline(__always)
  static func edge(
    ax: Double, ay: Double, bx: Double, by: Double,
    meetsBox x0: Double, _ y0: Double, _ x1: Double, _ y1: Double
  ) -> Bool {
    guard min(ax, bx) <= x1, max(ax, bx) >= x0, min(ay, by) <= y1, max(ay, by) >= y0
    else { return false }
    let dx = bx - ax
    let dy = by - ay
    let s0 = dx * (y0 - ay) - dy * (x0 - ax)
    let s1 = dx * (y0 - ay) - dy * (x1 - ax)
    let s2 = dx * (y1 - ay) - dy * (x0 - ax)
    let s3 = dx * (y1 - ay) - dy * (x1 - ax)
    let allAbove = s0 > 0 && s1 > 0 && s2 > 0 && s3 > 0
    let allBelow = s0 < 0 && s1 < 0 && s2 < 0 && s3 < 0
    return !(allAbove || allBelow)
  }
}
