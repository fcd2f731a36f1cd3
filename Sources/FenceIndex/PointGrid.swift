/// A uniform grid over the small entries of a large packed tree, for point searches.
///
/// A point search of a large tree descends several levels, and on ground no search has touched
/// recently every level is a cache miss. Most fence sets are many boxes of about one size (a
/// million circles of 50-500 m): a grid with cells about twice that size lists each box in a
/// few cells, and a point reads one cell's list, contiguous, instead of the walk.
///
/// - Cells: each side twice the median box side of its axis (from a sample), enlarged until
///   there are at most two cells per entry.
/// - Entries wider or taller than four cells are not filed; the caller searches them apart
///   (``RTree`` keeps them in a packed tree of their own). When more than a quarter would be,
///   there is no grid.
/// - Each filed entry is its slot in the tree and its box quantized to 1/256 of the cell
///   (8 bytes per cell it meets): the quantized test passes every point of the box, and the
///   few points just outside it that pass are refused by the exact `Double` box.
///
/// Coordinates become *fine units*, 256 per cell, by one expression for boxes and points alike:
/// it is monotone, so a point in a box has fine units between the box's.
@usableFromInline
struct PointGrid: Sendable {
  @usableFromInline let minX: Double
  @usableFromInline let minY: Double
  /// Fine units per degree.
  @usableFromInline let scaleX: Double
  @usableFromInline let scaleY: Double
  @usableFromInline let columns: Int
  @usableFromInline let rows: Int
  /// Where each cell's run starts in ``slots`` and ``quantized``; `cells + 1` values.
  @usableFromInline let starts: ContiguousArray<Int32>
  @usableFromInline let slots: ContiguousArray<Int32>
  /// West, south, east and north in fine units within the cell, a byte each from the lowest.
  @usableFromInline private(set) var quantized: ContiguousArray<UInt32>

  /// Fewest entries for a grid: below, the walk of the tree is short and stays in cache.
  @usableFromInline static let defaultMinimumEntries = 4_096
  /// A quantized box no point passes (west 255, south 255, east 0, north 0).
  static let emptyBox: UInt32 = 0x0000_FFFF

  /// The grid over `entries` (a packed tree's, by slot), with the entries it leaves out (live
  /// entries only, flags kept), or `nil` when there are too few entries or too many wide ones.
  static func build(
    over entries: EntryList, minimumEntries: Int = defaultMinimumEntries
  ) -> (grid: PointGrid, wide: EntryList)? {
    let n = entries.count
    guard n >= max(minimumEntries, 1) else { return nil }
    return entries.boxes.withUnsafeBufferPointer { boxes in
      // The extent and median sides of the live entries.
      var minX = Double.infinity
      var minY = Double.infinity
      var maxX = -Double.infinity
      var maxY = -Double.infinity
      var live = 0
      for i in 0..<n where !entries.flags[i].contains(.removed) {
        minX = min(minX, boxes[4 * i])
        minY = min(minY, boxes[4 * i + 1])
        maxX = max(maxX, boxes[4 * i + 2])
        maxY = max(maxY, boxes[4 * i + 3])
        live += 1
      }
      guard live >= max(minimumEntries, 1), maxX > minX, maxY > minY else { return nil }
      let sampleStep = max(1, n / 4_096)
      var widths: [Double] = []
      var heights: [Double] = []
      widths.reserveCapacity(n / sampleStep + 1)
      heights.reserveCapacity(n / sampleStep + 1)
      var i = 0
      while i < n {
        if !entries.flags[i].contains(.removed) {
          widths.append(boxes[4 * i + 2] - boxes[4 * i])
          heights.append(boxes[4 * i + 3] - boxes[4 * i + 1])
        }
        i += sampleStep
      }
      widths.sort()
      heights.sort()
      let width = maxX - minX
      let height = maxY - minY
      // Cells at least 1/4096 of the extent, so that zero-size boxes make a usable grid.
      var cellX = max(2 * widths[widths.count / 2], width / 4_096)
      var cellY = max(2 * heights[heights.count / 2], height / 4_096)
      let mostCells = Double(max(2 * live, 1_024))
      let cells = (width / cellX + 2) * (height / cellY + 2)
      if cells > mostCells {
        let grow = (cells / mostCells).squareRoot()
        cellX *= grow
        cellY *= grow
      }
      let scaleX = 256 / cellX
      let scaleY = 256 / cellY
      // Two spare cells per axis: the extent's far edge stays inside whatever the rounding.
      let columns = Int(width * scaleX / 256) + 2
      let rows = Int(height * scaleY / 256) + 2
      let limitX = Double(columns * 256)
      let limitY = Double(rows * 256)
      func fine(_ v: Double, _ low: Double, _ scale: Double) -> Int { Int((v - low) * scale) }

      // Which entries are wide: their fine spans, or -1.
      var wide = EntryList()
      var cellCounts = ContiguousArray<Int32>(repeating: 0, count: columns * rows + 1)
      var filed = ContiguousArray<Bool>(repeating: false, count: n)
      var filedCells = 0
      for i in 0..<n where !entries.flags[i].contains(.removed) {
        let x0 = (boxes[4 * i] - minX) * scaleX
        let y0 = (boxes[4 * i + 1] - minY) * scaleY
        let x1 = (boxes[4 * i + 2] - minX) * scaleX
        let y1 = (boxes[4 * i + 3] - minY) * scaleY
        let fits =
          x0 >= 0 && y0 >= 0 && x1 < limitX && y1 < limitY && x1 - x0 <= 4 * 256
          && y1 - y0 <= 4 * 256
        guard fits else {
          wide.append(
            west: boxes[4 * i], south: boxes[4 * i + 1], east: boxes[4 * i + 2],
            north: boxes[4 * i + 3], id: entries.ids[i], flags: entries.flags[i])
          continue
        }
        filed[i] = true
        let c0 = fine(boxes[4 * i], minX, scaleX) >> 8
        let c1 = fine(boxes[4 * i + 2], minX, scaleX) >> 8
        let r0 = fine(boxes[4 * i + 1], minY, scaleY) >> 8
        let r1 = fine(boxes[4 * i + 3], minY, scaleY) >> 8
        for row in r0...r1 {
          for column in c0...c1 { cellCounts[row * columns + column] += 1 }
        }
        filedCells += (r1 - r0 + 1) * (c1 - c0 + 1)
      }
      guard wide.count * 4 <= live, filedCells < Int(Int32.max) else { return nil }
      // Starts by prefix sum; then each cell's run filled in slot order.
      var starts = ContiguousArray<Int32>(repeating: 0, count: columns * rows + 1)
      var total: Int32 = 0
      for cell in 0..<(columns * rows) {
        starts[cell] = total
        total += cellCounts[cell]
      }
      starts[columns * rows] = total
      var next = starts
      var slots = ContiguousArray<Int32>(repeating: 0, count: Int(total))
      var quantized = ContiguousArray<UInt32>(repeating: emptyBox, count: Int(total))
      for i in 0..<n where filed[i] {
        let fx0 = fine(boxes[4 * i], minX, scaleX)
        let fy0 = fine(boxes[4 * i + 1], minY, scaleY)
        let fx1 = fine(boxes[4 * i + 2], minX, scaleX)
        let fy1 = fine(boxes[4 * i + 3], minY, scaleY)
        for row in (fy0 >> 8)...(fy1 >> 8) {
          let south = UInt32(min(max(fy0 - row * 256, 0), 255))
          let north = UInt32(min(max(fy1 - row * 256, 0), 255))
          for column in (fx0 >> 8)...(fx1 >> 8) {
            let west = UInt32(min(max(fx0 - column * 256, 0), 255))
            let east = UInt32(min(max(fx1 - column * 256, 0), 255))
            let cell = row * columns + column
            let k = Int(next[cell])
            next[cell] += 1
            slots[k] = Int32(i)
            quantized[k] = west | south << 8 | east << 16 | north << 24
          }
        }
      }
      let grid = PointGrid(
        minX: minX, minY: minY, scaleX: scaleX, scaleY: scaleY, columns: columns, rows: rows,
        starts: starts, slots: slots, quantized: quantized)
      return (grid, wide)
    }
  }

  private init(
    minX: Double, minY: Double, scaleX: Double, scaleY: Double, columns: Int, rows: Int,
    starts: ContiguousArray<Int32>, slots: ContiguousArray<Int32>,
    quantized: ContiguousArray<UInt32>
  ) {
    self.minX = minX
    self.minY = minY
    self.scaleX = scaleX
    self.scaleY = scaleY
    self.columns = columns
    self.rows = rows
    self.starts = starts
    self.slots = slots
    self.quantized = quantized
  }

  /// Bytes held.
  var byteCount: Int { 4 * starts.count + 4 * slots.count + 4 * quantized.count }

  /// Stops listing the entry in `slot`, whose box is `box` (west, south, east, north): its
  /// quantized boxes become empty. Nothing happens for an entry the grid does not list.
  mutating func remove(slot: Int, west: Double, south: Double, east: Double, north: Double) {
    let x0 = (west - minX) * scaleX
    let y0 = (south - minY) * scaleY
    let x1 = (east - minX) * scaleX
    let y1 = (north - minY) * scaleY
    guard x0 >= 0, y0 >= 0, x1 < Double(columns * 256), y1 < Double(rows * 256) else { return }
    let c0 = Int(x0) >> 8
    let c1 = Int(x1) >> 8
    let r0 = Int(y0) >> 8
    let r1 = Int(y1) >> 8
    for row in r0...r1 {
      for column in c0...c1 {
        let cell = row * columns + column
        for k in Int(starts[cell])..<Int(starts[cell + 1]) where slots[k] == Int32(slot) {
          quantized[k] = Self.emptyBox
        }
      }
    }
  }

  /// Calls `visit` with the slot of every filed entry whose box holds (`x`, `y`), edges
  /// included: the candidates of the point's cell whose quantized box passes, then tested on
  /// their exact box in `boxes` (the tree's, by slot). Allocates nothing.
  @inlinable @inline(__always)
  func forEachSlot(
    containingX x: Double, y: Double, boxes: UnsafePointer<Double>, _ visit: (Int) -> Void
  ) {
    let fx = (x - minX) * scaleX
    let fy = (y - minY) * scaleY
    // Also false for NaN.
    guard fx >= 0, fy >= 0, fx < Double(columns &* 256), fy < Double(rows &* 256) else { return }
    let ix = Int(fx)
    let iy = Int(fy)
    let cell = (iy >> 8) &* columns &+ (ix >> 8)
    let qx = UInt32(ix & 255)
    let qy = UInt32(iy & 255)
    starts.withUnsafeBufferPointer { starts in
      slots.withUnsafeBufferPointer { slots in
        quantized.withUnsafeBufferPointer { quantized in
          var k = Int(starts[cell])
          let end = Int(starts[cell &+ 1])
          while k < end {
            let q = quantized[k]
            if q & 0xFF <= qx && (q >> 8) & 0xFF <= qy && (q >> 16) & 0xFF >= qx && q >> 24 >= qy {
              let slot = Int(slots[k])
              let b = boxes + 4 &* slot
              if x >= b[0] && y >= b[1] && x <= b[2] && y <= b[3] { visit(slot) }
            }
            k &+= 1
          }
        }
      }
    }
  }
}
