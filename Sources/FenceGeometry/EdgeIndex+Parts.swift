extension EdgeIndex {
  /// The parts whose edges an index holds: their colours, and for a multipolygon's joined index
  /// (``init(joining:colours:)``) the parts' own indexes, where each part's edges start in the
  /// joined index and each part's extent.
  ///
  /// A joined index keeps no chunk tree of its own: a search by box walks each part's tree and
  /// reads the edges from the joined copy (``withPartEdges(_:_:)``). Holding the parts here lets
  /// the joined index answer a cell relation and gather a cell's edges by itself, read through
  /// ``UnretainedContainmentTest`` without reference counting, where asking the multipolygon
  /// retained and released it, its parts and its joined index at each call.
  final class PartTable: Sendable {
    /// Each part's colour (a bit number of the parity word), in the order the parts were given.
    let colours: [UInt8]
    /// The parts' indexes, in the same order; empty for an index of one part (itself).
    let indexes: [EdgeIndex]
    /// The number of each part's first edge in the joined index (empty with ``indexes``).
    let edgeStarts: ContiguousArray<Int>
    /// Each part's edge extent, for skipping the parts a box misses without reading them.
    let extents: ContiguousArray<PartExtent>

    init(colours: [UInt8], indexes: [EdgeIndex]) {
      self.colours = colours
      self.indexes = indexes
      var starts = ContiguousArray<Int>()
      starts.reserveCapacity(indexes.count)
      var edges = 0
      for index in indexes {
        starts.append(edges)
        edges += index.edgeCount
      }
      edgeStarts = starts
      extents = ContiguousArray(indexes.map(PartExtent.init))
    }

    /// The table of one part of colour 0 (an index of its own shape), shared.
    static let single = PartTable(colours: [0], indexes: [])
  }

  /// The colour of each part, in the order the parts were given (one part: colour 0).
  var partColours: [UInt8] { parts.colours }

  /// The number of parts whose edges the index holds (1 unless joined): one colour each.
  var partCount: Int { parts.colours.count }

  /// Whether part `k`'s edge extent (frame degrees) comes within `margin` degrees of `box`:
  /// the index's own extent for an index of one part, else the part's, read from the table
  /// without reading the part's index.
  @inline(__always)
  func partExtentMeets(_ k: Int, _ box: BoundingBox, margin: Double) -> Bool {
    let parts = self.parts
    return parts.indexes.isEmpty
      ? extentMeets(box, margin: margin) : parts.extents[k].meets(box, margin: margin)
  }

  /// Calls `body` with part `k`'s edge index and its edge values at their stride (2 or 4
  /// doubles an edge, edge `i` from `stride * i`), for searches over the part's chunk tree
  /// (``forEachEdge(meetingBox:_:_:_:margin:values:stride:_:)``).
  ///
  /// A joined index hands its own plain copy of the part's edges (four values an edge, the same
  /// values bit for bit): a part packed as decimals (decision 0018) is then never unpacked for
  /// the search, and containment reads the joined copy anyway, so it is often in cache where
  /// the part's would first have to be unpacked (about 15 ns an edge, all at once, and 8 bytes a
  /// value kept). An index of one part hands itself and its own values.
  @inline(__always)
  func withPartEdges<R>(
    _ k: Int, _ body: (EdgeIndex, UnsafeBufferPointer<Double>, Int) throws -> R
  ) rethrows -> R {
    let parts = self.parts
    guard !parts.indexes.isEmpty else { return try withEdges { try body(self, $0, edgeStride) } }
    let index = parts.indexes[k]
    let first = 4 &* parts.edgeStarts[k]
    return try plainEdges.withUnsafeBufferPointer { all in
      try body(index, UnsafeBufferPointer(rebasing: all[first..<(first + 4 * index.edgeCount)]), 4)
    }
  }

  /// Calls `body` with the number of each edge of part `k` (its own numbering) that meets the
  /// closed box widened by `margin` degrees, as the part's chunk tree finds them, with the
  /// edge's values, until `body` returns `true`; whether it did. Parts whose extent misses the
  /// widened box are skipped by the caller (``PartTable/extents``).
  @inline(__always)
  func forEachPartEdge(
    _ k: Int, meetingBox minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double,
    margin: Double, _ body: (Double, Double, Double, Double) -> Bool
  ) -> Bool {
    withPartEdges(k) { index, values, stride in
      index.forEachEdge(
        meetingBox: minX, minY, maxX, maxY, margin: margin, values: values, stride: stride
      ) { i in
        let j = stride &* i
        return body(values[j], values[j &+ 1], values[j &+ 2], values[j &+ 3])
      }
    }
  }
}
