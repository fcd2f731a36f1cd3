import FenceGeometry

/// Positions along the Hilbert curve that fills a 65 536 × 65 536 grid.
///
/// Sorting boxes by the curve position of their centres keeps boxes that are close in the plane
/// close in the order, which is what makes a packed R-tree's nodes small (Kamel and Faloutsos
/// 1993, "On packing R-trees").
package enum HilbertCurve {
  /// The side of the grid: coordinates are in `0..<side`.
  static let side: UInt32 = 1 << 16

  /// The distance along the curve of grid cell (`x`, `y`), in `0..<side * side`.
  ///
  /// Walks the 16 levels of the curve from the coarsest: each level picks one of four quadrants
  /// (a base-4 digit of the distance) and turns the remaining coordinates into that quadrant's
  /// frame. A frame is one of four: the coordinates swapped or not, and complemented or not
  /// (the two commute), so the walk is a machine of four states over the coordinates' bits,
  /// and ``levelSteps`` gives, for a state and a level's two bits, the digit and the next
  /// state. Without branches: with the loop that complemented and swapped the coordinates
  /// (branches that follow the coordinates' bits), the curve keys of 100,000 circles took a
  /// quarter more instructions (48.4 against 38.7 million, callgrind).
  @inline(__always)
  static func index(x: UInt32, y: UInt32) -> UInt32 {
    var d: UInt32 = 0
    var state: UInt32 = 0
    var level: UInt32 = 16
    repeat {
      level &-= 1
      let step = state << 2 | (x >> level & 1) << 1 | (y >> level & 1)
      let entry = UInt32(truncatingIfNeeded: levelSteps >> UInt64(step << 2)) & 15
      d = d << 2 | entry & 3
      state = entry >> 2
    } while level > 0
    return d
  }

  /// The curve's steps, four bits each, at position `state << 2 | xBit << 1 | yBit`: the
  /// quadrant's digit in the low two bits, the next state in the high two. A state is
  /// `complemented << 1 | swapped`; in the state's frame the level's bits are (`rx`, `ry`)
  /// (the bits swapped, then both flipped, as the state says), the digit is `3 × rx ^ ry`, and
  /// a quadrant with `ry` 0 swaps the frame, and complements it too when `rx` is 1.
  /// (`HilbertCurveTests` checks it against that walk, written out.)
  @inline(__always) static var levelSteps: UInt64 { 0x83de_c97a_65b0_2f14 }

  /// The grid cell of a value in `low...high`, scaled to the grid's side.
  @inline(__always)
  static func cell(_ value: Double, low: Double, scale: Double) -> UInt32 {
    let v = ((value - low) * scale).rounded(.down)
    if !(v > 0) { return 0 }
    return v >= Double(side - 1) ? side - 1 : UInt32(v)
  }
}

extension HilbertCurve {
  /// Indexes `0..<count` in the order of their points along the curve, over the points'
  /// extent (ties in index order): for boxes' centres, the leaf order a packed tree of them
  /// has, without building the tree. `point` gives each index's point, or `nil` for an index
  /// without one (those go last, in index order); it is called twice per index, so that
  /// nothing but the keys is held. O(*n*) keys and a radix sort.
  package static func order(count: Int, point: (Int) -> (x: Double, y: Double)?) -> [Int] {
    let (keys, pointless) = sortedKeys(count: count, point: point)
    var order: [Int] = []
    order.reserveCapacity(count)
    for key in keys { order.append(Int(key & 0xFFFF_FFFF)) }
    order.append(contentsOf: pointless)
    return order
  }

  /// The curve keys of the indexes with a point, `position << 32 | index`, sorted (ties in
  /// index order), over the points' extent on the 2^16 × 2^16 grid; and the indexes without a
  /// point. `point` is called twice per index.
  static func sortedKeys(
    count: Int, point: (Int) -> (x: Double, y: Double)?
  ) -> (keys: ContiguousArray<UInt64>, pointless: [Int]) {
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for i in 0..<count {
      guard let (x, y) = point(i) else { continue }
      minX = min(minX, x)
      minY = min(minY, y)
      maxX = max(maxX, x)
      maxY = max(maxY, y)
    }
    let top = Double(side - 1)
    let scaleX = maxX > minX ? top / (maxX - minX) : 0
    let scaleY = maxY > minY ? top / (maxY - minY) : 0
    var keys = ContiguousArray<UInt64>(repeating: 0, count: count)
    var pointless: [Int] = []
    var k = 0
    for i in 0..<count {
      guard let (x, y) = point(i) else {
        pointless.append(i)
        continue
      }
      let h = index(x: cell(x, low: minX, scale: scaleX), y: cell(y, low: minY, scale: scaleY))
      keys[k] = UInt64(h) << 32 | UInt64(i)
      k += 1
    }
    keys.removeLast(count - k)
    sortByHighWord(&keys)
    return (keys, pointless)
  }

  /// ``order(count:point:)`` of boxes' centres; a box crossing the antimeridian counts by its
  /// western part.
  package static func order(of boxes: [BoundingBox]) -> [Int] {
    order(count: boxes.count) { i in
      let part = boxes[i].planarParts.0
      return ((part.west + part.east) * 0.5, (part.south + part.north) * 0.5)
    }
  }
}
