import CMemoryHints

extension PointGrid {
  /// The cell holding (x, y), or `nil` outside the grid: the cell a point search reads.
  @inline(__always)
  func cell(x: Double, y: Double) -> Int? {
    guard let (ix, iy) = fineUnits(x: x, y: y) else { return nil }
    return (iy / Self.unitsPerCell) &* columns &+ ix / Self.unitsPerCell
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
