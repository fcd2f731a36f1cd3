import CMemoryHints

extension PointGrid {
  /// The cell holding (x, y), or `nil` outside the grid: the same arithmetic as
  /// ``forEachID(containingX:y:boxes:_:)``.
  @inline(__always)
  func cell(x: Double, y: Double) -> Int? {
    let units = Self.unitsPerCell
    let fx = Self.fine(x, from: minX, scale: scaleX)
    let fy = Self.fine(y, from: minY, scale: scaleY)
    guard fx >= 0, fy >= 0, fx < Double(columns &* units), fy < Double(rows &* units) else {
      return nil
    }
    return (Int(fy) / units) &* columns &+ Int(fx) / units
  }

  /// Asks the caches for the start of the cell holding (x, y): the first read of a point search.
  func prefetchCell(x: Double, y: Double) {
    guard let cell = cell(x: x, y: y) else { return }
    starts.withUnsafeBufferPointer { fencekit_prefetch($0.baseAddress! + cell) }
  }

  /// Asks the caches for the listings of the cell holding (x, y): the second read of a point
  /// search. It reads the cell's start, so it is best called after ``prefetchCell(x:y:)`` had
  /// time to bring it.
  func prefetchListings(x: Double, y: Double) {
    guard let cell = cell(x: x, y: y) else { return }
    let (start, end) = starts.withUnsafeBufferPointer { (Int($0[cell]), Int($0[cell &+ 1])) }
    guard start < end else { return }
    listings.withUnsafeBufferPointer { listings in
      fencekit_prefetch(listings.baseAddress! + start)
      // Its last line too, for a run over two lines (8 listings a line; runs hold about ten).
      // The lines between the ends of a longer run are left to the processor's own prefetching.
      fencekit_prefetch(listings.baseAddress! + (end &- 1))
    }
  }
}
