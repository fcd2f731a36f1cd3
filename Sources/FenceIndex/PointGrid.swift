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
/// - Each listing is the entry's id and its box quantized to 1/255 of the cell (8 bytes),
///   beside its slot in the tree (4 bytes, read only for points near an edge), unless every
///   entry's id is its slot (``PackedTree/idsAreSlots``): the id then tells the slot.
///
/// Coordinates become *fine units*, 255 per cell, by one expression for boxes and points alike,
/// `Int((v - low) * scale)`: it is monotone, so a point in a box has fine units between the
/// box's (the listing *passes*), and a point whose fine units are strictly between them is in
/// the box (the listing *decides*). Only a point that passes without deciding, within a fine
/// unit of an edge, reads the exact `Double` box. A side beyond the cell decides every point of
/// the cell: the west and south bytes hold the fine unit plus one, or 0 for a box that starts
/// in an earlier cell; the east and north bytes the fine unit, or 255 for a box that goes on.
@usableFromInline
struct PointGrid: Sendable {
  @usableFromInline let minX: Double
  @usableFromInline let minY: Double
  /// Fine units per degree (255 per cell).
  @usableFromInline let scaleX: Double
  @usableFromInline let scaleY: Double
  @usableFromInline let columns: Int
  @usableFromInline let rows: Int
  /// Where each cell's run starts in ``listings`` and ``slots``; `cells + 1` values.
  @usableFromInline let starts: ContiguousArray<Int32>
  /// Per listing: the quantized box in the low 32 bits (west, south, east, north, a byte each
  /// from the lowest), the entry's id in the high 32.
  @usableFromInline private(set) var listings: ContiguousArray<UInt64>
  /// Per listing: the entry's slot in the tree; empty when each entry's slot is its id.
  @usableFromInline let slots: ContiguousArray<Int32>

  /// Fewest entries for a grid: below, the walk of the tree is short and stays in cache.
  @usableFromInline static let defaultMinimumEntries = 4_096
  /// A quantized box no point passes (west 255, south 255, east 0, north 0).
  static let emptyBox: UInt64 = 0x0000_FFFF
  /// Fine units per cell.
  @usableFromInline static let unitsPerCell = 255

  /// `v` in fine units from `low`: the one expression for boxes and points (monotone in `v`).
  @inlinable @inline(__always)
  static func fine(_ v: Double, from low: Double, scale: Double) -> Double { (v - low) * scale }

  /// The tree slot of listing `k`, whose id is `id`.
  @inlinable @inline(__always)
  func slot(ofListing k: Int, id: Int32) -> Int {
    slots.isEmpty ? Int(id) : Int(slots[k])
  }

  /// The point (x, y) in fine units from the grid's corner, or `nil` outside the grid (NaN
  /// included): what a point search and its prefetch both start from.
  @inlinable @inline(__always)
  func fineUnits(x: Double, y: Double) -> (x: Int, y: Int)? {
    let units = Self.unitsPerCell
    let fx = Self.fine(x, from: minX, scale: scaleX)
    let fy = Self.fine(y, from: minY, scale: scaleY)
    guard fx >= 0, fy >= 0, fx < Double(columns &* units), fy < Double(rows &* units) else {
      return nil
    }
    return (Int(fx), Int(fy))
  }

  /// The grid over `entries` (a packed tree's, by slot), with the entries it leaves out (live
  /// entries only, flags kept), or `nil` when there are too few entries or too many wide ones.
  /// With `slotsAreIDs` (each entry's id is its slot), the listings keep no slots.
  static func build(
    over entries: EntryList, slotsAreIDs: Bool = false,
    minimumEntries: Int = defaultMinimumEntries
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
      let units = unitsPerCell
      let scaleX = Double(units) / cellX
      let scaleY = Double(units) / cellY
      // Two spare cells per axis: the extent's far edge stays inside whatever the rounding.
      let columns = Int(width * scaleX) / units + 2
      let rows = Int(height * scaleY) / units + 2
      let limitX = Double(columns * units)
      let limitY = Double(rows * units)

      // Box by box: a wide one to `wide`, a filed one counted in each cell it meets (in
      // `starts[cell + 1]`, summed below into each cell's start).
      var wide = EntryList()
      var starts = ContiguousArray<Int32>(repeating: 0, count: columns * rows + 1)
      var filed = ContiguousArray<Bool>(repeating: false, count: n)
      var filedCells = 0
      for i in 0..<n where !entries.flags[i].contains(.removed) {
        let x0 = fine(boxes[4 * i], from: minX, scale: scaleX)
        let y0 = fine(boxes[4 * i + 1], from: minY, scale: scaleY)
        let x1 = fine(boxes[4 * i + 2], from: minX, scale: scaleX)
        let y1 = fine(boxes[4 * i + 3], from: minY, scale: scaleY)
        let fits =
          x0 >= 0 && y0 >= 0 && x1 < limitX && y1 < limitY && x1 - x0 <= Double(4 * units)
          && y1 - y0 <= Double(4 * units)
        guard fits else {
          wide.append(
            west: boxes[4 * i], south: boxes[4 * i + 1], east: boxes[4 * i + 2],
            north: boxes[4 * i + 3], id: entries.id(at: i), flags: entries.flags[i])
          continue
        }
        filed[i] = true
        let (c0, c1) = (Int(x0) / units, Int(x1) / units)
        let (r0, r1) = (Int(y0) / units, Int(y1) / units)
        for row in r0...r1 {
          for column in c0...c1 { starts[row * columns + column + 1] += 1 }
        }
        filedCells += (r1 - r0 + 1) * (c1 - c0 + 1)
      }
      guard wide.count * 4 <= live, filedCells < Int(Int32.max) else { return nil }
      // Starts by prefix sum; then each cell's run filled in slot order.
      for cell in 0..<(columns * rows) { starts[cell + 1] += starts[cell] }
      let total = starts[columns * rows]
      var next = starts
      var slots = ContiguousArray<Int32>(repeating: 0, count: slotsAreIDs ? 0 : Int(total))
      var listings = ContiguousArray<UInt64>(repeating: emptyBox, count: Int(total))
      // A low side's byte: its fine unit in the cell plus one, or 0 from an earlier cell.
      func low(_ f: Int, cell: Int) -> UInt64 { f < cell * units ? 0 : UInt64(f - cell * units + 1) }
      // A high side's byte: its fine unit in the cell, or 255 into a later cell.
      func high(_ f: Int, cell: Int) -> UInt64 {
        f >= (cell + 1) * units ? 255 : UInt64(f - cell * units)
      }
      for i in 0..<n where filed[i] {
        let fx0 = Int(fine(boxes[4 * i], from: minX, scale: scaleX))
        let fy0 = Int(fine(boxes[4 * i + 1], from: minY, scale: scaleY))
        let fx1 = Int(fine(boxes[4 * i + 2], from: minX, scale: scaleX))
        let fy1 = Int(fine(boxes[4 * i + 3], from: minY, scale: scaleY))
        let id = UInt64(UInt32(bitPattern: entries.id(at: i))) << 32
        for row in (fy0 / units)...(fy1 / units) {
          let south = low(fy0, cell: row)
          let north = high(fy1, cell: row)
          for column in (fx0 / units)...(fx1 / units) {
            let west = low(fx0, cell: column)
            let east = high(fx1, cell: column)
            let cell = row * columns + column
            let k = Int(next[cell])
            next[cell] += 1
            if !slotsAreIDs { slots[k] = Int32(i) }
            listings[k] = id | west | south << 8 | east << 16 | north << 24
          }
        }
      }
      let grid = PointGrid(
        minX: minX, minY: minY, scaleX: scaleX, scaleY: scaleY, columns: columns, rows: rows,
        starts: starts, listings: listings, slots: slots)
      return (grid, wide)
    }
  }

  private init(
    minX: Double, minY: Double, scaleX: Double, scaleY: Double, columns: Int, rows: Int,
    starts: ContiguousArray<Int32>, listings: ContiguousArray<UInt64>,
    slots: ContiguousArray<Int32>
  ) {
    self.minX = minX
    self.minY = minY
    self.scaleX = scaleX
    self.scaleY = scaleY
    self.columns = columns
    self.rows = rows
    self.starts = starts
    self.listings = listings
    self.slots = slots
  }

  /// Stops listing the entry in `slot`, whose box is `box` (west, south, east, north): its
  /// quantized boxes become empty. Nothing happens for an entry the grid does not list.
  mutating func remove(slot: Int, west: Double, south: Double, east: Double, north: Double) {
    let x0 = Self.fine(west, from: minX, scale: scaleX)
    let y0 = Self.fine(south, from: minY, scale: scaleY)
    let x1 = Self.fine(east, from: minX, scale: scaleX)
    let y1 = Self.fine(north, from: minY, scale: scaleY)
    let units = Self.unitsPerCell
    guard x0 >= 0, y0 >= 0, x1 < Double(columns * units), y1 < Double(rows * units) else { return }
    for row in (Int(y0) / units)...(Int(y1) / units) {
      for column in (Int(x0) / units)...(Int(x1) / units) {
        let cell = row * columns + column
        for k in Int(starts[cell])..<Int(starts[cell + 1]) {
          let id = Int32(bitPattern: UInt32(truncatingIfNeeded: listings[k] >> 32))
          if self.slot(ofListing: k, id: id) == slot { listings[k] = Self.emptyBox }
        }
      }
    }
  }

  /// Calls `visit` with the id of every listed entry whose box holds (`x`, `y`), edges
  /// included: the listings of the point's cell that pass; those that do not decide are tested
  /// on their exact box in `boxes` (the tree's, by slot). Allocates nothing. `mutating` only to
  /// read the grid in place (see ``RTree/searchInPlace(containing:longitude:_:)``).
  @inlinable @inline(__always)
  mutating func forEachID(
    containingX x: Double, y: Double, boxes: UnsafePointer<Double>, _ visit: (Int32) -> Void
  ) {
    let units = Self.unitsPerCell
    guard let (ix, iy) = fineUnits(x: x, y: y) else { return }
    let column = ix / units
    let row = iy / units
    let cell = row &* columns &+ column
    // The point's fine units in the cell, 0...254, plus one (1...255) for the low sides.
    let qx = UInt64(ix &- column &* units)
    let qy = UInt64(iy &- row &* units)
    let px = qx &+ 1
    let py = qy &+ 1
    starts.withUnsafeBufferPointer { starts in
      listings.withUnsafeBufferPointer { listings in
        var k = Int(starts[cell])
        let end = Int(starts[cell &+ 1])
        while k < end {
          let listing = listings[k]
          let west = listing & 0xFF
          let south = (listing >> 8) & 0xFF
          let east = (listing >> 16) & 0xFF
          let north = (listing >> 24) & 0xFF
          // One test for the four sides: a difference is negative (its top bit set) where
          // its side leaves the point out. Four comparisons joined by `&&` were four
          // branches taken at random, listing after listing, on cold ground.
          let leftOut = (px &- west) | (py &- south) | (east &- qx) | (north &- qy)
          if Int64(bitPattern: leftOut) >= 0 {
            let id = Int32(bitPattern: UInt32(truncatingIfNeeded: listing >> 32))
            if west < px && south < py && qx < east && qy < north {
              visit(id)
            } else {
              let b = boxes + 4 &* slot(ofListing: k, id: id)
              if x >= b[0] && y >= b[1] && x <= b[2] && y <= b[3] { visit(id) }
            }
          }
          k &+= 1
        }
      }
    }
  }
}
