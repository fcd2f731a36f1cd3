extension MultiPolygon {
  /// Calls `body` with part `k`'s edge index and its edge values at their stride (2 or 4
  /// doubles an edge, edge `i` from `stride * i`), for searches over the part's chunk tree
  /// (``EdgeIndex/forEachEdge(meetingBox:_:_:_:margin:values:stride:_:)``).
  ///
  /// A part of several that share a joined index (`joined`, the multipolygon's ``stripes``) is
  /// read from the joined copy of its edges, which is held plain, four values an edge: a part
  /// packed as decimals (decision 0018) is then never unpacked for the search. Containment reads
  /// the joined index anyway, so its values are often in cache where the part's would first have
  /// to be unpacked (about 15 ns an edge, all of them at once, and 8 bytes a value kept). A
  /// single polygon, or parts without a joined index, are read from their own index.
  ///
  /// - Precondition: `joined` is the multipolygon's joined index, or nil.
  @inline(__always)
  func withPartEdges<R>(
    _ k: Int, joined: EdgeIndex?,
    _ body: (EdgeIndex, UnsafeBufferPointer<Double>, Int) throws -> R
  ) rethrows -> R {
    switch parts {
    case .one(let polygon):
      let index = polygon.index
      return try index.withEdges { try body(index, $0, index.edgeStride) }
    case .many(let many):
      let index = many.polygons[k].index
      guard let joined else { return try index.withEdges { try body(index, $0, index.edgeStride) } }
      let first = 4 &* many.joinedEdgeStarts[k]
      return try joined.plainEdges.withUnsafeBufferPointer { all in
        try body(index, UnsafeBufferPointer(rebasing: all[first..<(first + 4 * index.edgeCount)]), 4)
      }
    }
  }
}
