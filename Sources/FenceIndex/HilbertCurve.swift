/// Positions along the Hilbert curve that fills a 65 536 × 65 536 grid.
///
/// Sorting boxes by the curve position of their centres keeps boxes that are close in the plane
/// close in the order, which is what makes a packed R-tree's nodes small (Kamel and Faloutsos
/// 1993, "On packing R-trees").
enum HilbertCurve {
  /// The side of the grid: coordinates are in `0..<side`.
  static let side: UInt32 = 1 << 16

  /// The distance along the curve of grid cell (`x`, `y`), in `0..<side * side`.
  ///
  /// Walks the 16 levels of the curve from the coarsest: each level picks one of four quadrants
  /// and turns the remaining coordinates into that quadrant's frame.
  @inline(__always)
  static func index(x: UInt32, y: UInt32) -> UInt32 {
    var x = x
    var y = y
    var d: UInt32 = 0
    var s: UInt32 = side >> 1
    while s > 0 {
      let rx: UInt32 = (x & s) != 0 ? 1 : 0
      let ry: UInt32 = (y & s) != 0 ? 1 : 0
      d &+= s &* s &* ((3 &* rx) ^ ry)
      if ry == 0 {
        if rx == 1 {
          x = side &- 1 &- x
          y = side &- 1 &- y
        }
        swap(&x, &y)
      }
      s >>= 1
    }
    return d
  }

  /// The grid cell of a value in `low...high`, scaled to the grid's side.
  @inline(__always)
  static func cell(_ value: Double, low: Double, scale: Double) -> UInt32 {
    let v = ((value - low) * scale).rounded(.down)
    if !(v > 0) { return 0 }
    return v >= Double(side - 1) ? side - 1 : UInt32(v)
  }
}
