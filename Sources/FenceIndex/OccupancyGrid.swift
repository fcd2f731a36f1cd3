/// A bitmap over a packed tree's extent, one bit per cell of a regular grid, set when some
/// entry's box meets the cell: a point in a clear cell is in no entry's box, so the point
/// search answers it with one bit instead of walking the tree.
///
/// It pays where most points fall between a few scattered boxes (a million devices over a
/// hundred circles: the walk through overlapping nodes cost about 60 ns per point, the bit a
/// few). Where the boxes cover most of the grid it would only add a read, so a grid with more
/// than ``largestFilledShare`` of its cells set is dropped at build and every point is walked.
///
/// Conservative by construction: a point and a box edge at the same coordinate map to the same
/// cell (the cell of a coordinate is a monotonic function of it), so no point inside a box is
/// ever rejected. Entries removed later keep their bits, which only makes the grid answer
/// "maybe" more often.
@usableFromInline
struct OccupancyGrid: Sendable {
  /// The extent: the union of the entries' boxes.
  @usableFromInline private(set) var minX: Double
  @usableFromInline private(set) var minY: Double
  @usableFromInline private(set) var maxX: Double
  @usableFromInline private(set) var maxY: Double
  /// Cells per unit of x and of y.
  @usableFromInline private(set) var scaleX: Double
  @usableFromInline private(set) var scaleY: Double
  @usableFromInline private(set) var columns: Int
  @usableFromInline private(set) var rows: Int
  /// Row-major bits; empty when the grid is not used (every point may be in a box).
  @usableFromInline private(set) var bits: ContiguousArray<UInt64>

  /// Cells per entry aimed at, between ``fewestCells`` and ``mostCells``.
  static let cellsPerEntry = 64
  static let fewestCells = 1 << 14
  /// 4 Mi cells: 512 KiB of bits.
  static let mostCells = 1 << 22
  /// Above this share of cells set, the grid rejects too few points to pay for its read.
  static let largestFilledShare = 0.5

  /// A grid that rejects nothing.
  init() {
    minX = 0
    minY = 0
    maxX = 0
    maxY = 0
    scaleX = 0
    scaleY = 0
    columns = 0
    rows = 0
    bits = []
  }

  /// The grid of `count` boxes stored as (west, south, east, north) in `boxes` (no box crossing
  /// the antimeridian: west ≤ east). O(*n*) plus the cells the boxes cover, bounded: a set of
  /// boxes covering too much gets no grid.
  init(boxes: UnsafeBufferPointer<Double>, count: Int) {
    self.init()
    guard count > 0 else { return }
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for i in 0..<count {
      minX = min(minX, boxes[4 * i])
      minY = min(minY, boxes[4 * i + 1])
      maxX = max(maxX, boxes[4 * i + 2])
      maxY = max(maxY, boxes[4 * i + 3])
    }
    let width = maxX - minX
    let height = maxY - minY
    guard width > 0, height > 0, width.isFinite, height.isFinite else { return }
    let wanted =
      count > Self.mostCells / Self.cellsPerEntry ? Self.mostCells : count * Self.cellsPerEntry
    let cells = min(max(wanted, Self.fewestCells), Self.mostCells)
    // Square cells in the extent's units, as near as whole rows and columns allow (the aspect
    // clamped, so that a sliver of an extent cannot overflow the conversion to `Int`).
    let aspect = min(max(width / height, 1e-12), 1e12)
    let columns = max(1, min(cells, Int((Double(cells) * aspect).squareRoot().rounded())))
    let rows = max(1, cells / columns)
    let scaleX = Double(columns) / width
    let scaleY = Double(rows) / height
    let wordsPerRow = (columns + 63) / 64
    var words = ContiguousArray<UInt64>(repeating: 0, count: rows * wordsPerRow)
    // Marking a box costs a word per 64 columns per row; stop (no grid) once the boxes have
    // covered the grid several times over: they would leave it mostly set anyway.
    var budget = 4 * words.count + 4 * count
    var filled = 0
    let usable = words.withUnsafeMutableBufferPointer { words -> Bool in
      for i in 0..<count {
        let c0 = Self.cell(boxes[4 * i], low: minX, scale: scaleX, count: columns)
        let r0 = Self.cell(boxes[4 * i + 1], low: minY, scale: scaleY, count: rows)
        let c1 = Self.cell(boxes[4 * i + 2], low: minX, scale: scaleX, count: columns)
        let r1 = Self.cell(boxes[4 * i + 3], low: minY, scale: scaleY, count: rows)
        guard c0 <= c1, r0 <= r1 else { continue }  // a NaN edge: no point is in the box
        budget -= (r1 - r0 + 1) * (c1 / 64 - c0 / 64 + 1)
        if budget < 0 { return false }
        for row in r0...r1 {
          let rowStart = row * wordsPerRow
          var column = c0
          while column <= c1 {
            let word = column / 64
            let last = min(c1, word * 64 + 63)
            let span = last - column + 1
            let mask = (span == 64 ? UInt64.max : (UInt64(1) << span) - 1) << (column % 64)
            let before = words[rowStart + word]
            words[rowStart + word] = before | mask
            filled += (mask & ~before).nonzeroBitCount
            column = last + 1
          }
        }
      }
      return true
    }
    guard usable, Double(filled) <= Self.largestFilledShare * Double(rows * columns) else { return }
    self.minX = minX
    self.minY = minY
    self.maxX = maxX
    self.maxY = maxY
    self.scaleX = scaleX
    self.scaleY = scaleY
    self.columns = columns
    self.rows = rows
    bits = words
  }

  /// The cell along one axis of a coordinate in `low...`: monotonic in the coordinate (a
  /// subtraction, a multiplication by a positive number and a truncation, each monotonic), and
  /// clamped to the last cell (a coordinate at the extent's high edge).
  @inlinable @inline(__always)
  static func cell(_ value: Double, low: Double, scale: Double, count: Int) -> Int {
    let position = (value - low) * scale
    return position < Double(count) ? Int(position) : count - 1
  }

  /// Whether some entry's box may hold (`x`, `y`): false only when none does.
  @inlinable @inline(__always)
  func mayHold(x: Double, y: Double) -> Bool {
    guard !bits.isEmpty else { return true }
    // Outside the extent (or NaN): in no box.
    guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return false }
    let column = Self.cell(x, low: minX, scale: scaleX, count: columns)
    let row = Self.cell(y, low: minY, scale: scaleY, count: rows)
    let word = row * ((columns + 63) / 64) + column / 64
    return bits.withUnsafeBufferPointer { $0[word] } & (UInt64(1) << (column % 64)) != 0
  }

  /// Whether the grid is in use.
  var isEnabled: Bool { !bits.isEmpty }
}
