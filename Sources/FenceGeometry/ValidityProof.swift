/// A quick exact proof, in Swift, that a polygon of one ring is valid as GEOS's `IsValidOp`
/// finds it, for the common case that spares GEOS the work (decision 0024).
///
/// GEOS validation builds a GEOS geometry (a copy of every vertex), monotone chains and an
/// STR tree of them for each polygon; for the world's time zones (27,743 polygons, median 11
/// vertices) that was about a third of the harbor week's load. Most rings are plainly simple:
/// no two edges that do not follow each other come near, and no turn doubles back. This proof
/// establishes exactly that, with orientation signs that are certain in floating point (an
/// error bound on each determinant), and otherwise gives no answer: the caller then asks GEOS.
/// So it never finds a polygon valid that GEOS would not, and a polygon it cannot prove goes
/// through GEOS as before, with GEOS's own words for what is wrong.
///
/// What it proves, for the ring's edges after repeated vertices are dropped (as GEOS drops
/// them): at least 3 edges, every value finite, each turn either off the straight line for
/// certain or going on forward for certain (not doubling back over the edge before), and every
/// pair of edges that do not share a vertex in ring order disjoint for certain (their boxes
/// apart, or one edge's ends strictly on one side of the other's line). A simple closed ring
/// with nothing inside it is a valid polygon: no self-intersection or self-touch, no hole to be
/// outside the shell or nested, a connected interior. Polygons with holes are left to GEOS (18
/// of the time zones' 27,743).
package enum ValidityProof {
  /// Whether the proof holds for a polygon whose rings (exterior first) GEOS would be given as
  /// they are, with 360 added to negative longitudes when `shift` (the frame `FenceGEOS`
  /// gives a polygon that crosses the antimeridian). `false` means "not proven", not "invalid".
  ///
  /// - Complexity: O(*n* log *n*) for *n* vertices: it gives up beyond ``pairTestsPerEdge``
  ///   pairs looked at per edge; brute force under ``bruteForceEdges`` edges.
  package static func provesValid(rings: [[Coordinate]], shift: Bool) -> Bool {
    guard rings.count == 1 else { return false }
    var xs: [Double] = []
    var ys: [Double] = []
    guard gatherVertices(rings[0], shift: shift, xs: &xs, ys: &ys) else { return false }
    return xs.withUnsafeBufferPointer { x in
      ys.withUnsafeBufferPointer { y in
        turnsAreSimple(x, y) && edgesApartAreDisjoint(x, y)
      }
    }
  }

  /// The relative bound beyond which a computed orientation sign is certain: 4ε, a little above
  /// `Orientation.errorBoundA`.
  static let certaintyBound = 4 * 0x1p-53

  /// Products whose magnitudes sum to less than this may have lost precision to underflow
  /// (subnormal values): their signs are left to GEOS.
  static let underflowFloor = 1e-290

  /// Edges under this count are tested pair by pair; at or above it, after a sort along the
  /// longer side of the ring's box.
  static let bruteForceEdges = 32
  /// The sweep gives up (no proof) after looking at this many pairs per edge on average: a
  /// ring whose edges pile up along the sweep would cost more than GEOS's noding.
  static let pairTestsPerEdge = 64

  /// The ring's vertices in the frame, each repeat of the vertex before dropped (`==`, as GEOS
  /// compares coordinates), the closing vertex kept: `xs.count - 1` edges. `false` when a value
  /// is not finite, the ring is not closed, or fewer than 3 edges are left.
  private static func gatherVertices(
    _ ring: [Coordinate], shift: Bool, xs: inout [Double], ys: inout [Double]
  ) -> Bool {
    xs.reserveCapacity(ring.count)
    ys.reserveCapacity(ring.count)
    for vertex in ring {
      let x = shift && vertex.longitude < 0 ? vertex.longitude + 360 : vertex.longitude
      let y = vertex.latitude
      guard x.isFinite, y.isFinite else { return false }
      if let lastX = xs.last, let lastY = ys.last, lastX == x, lastY == y { continue }
      xs.append(x)
      ys.append(y)
    }
    guard xs.count >= 4, xs[0] == xs[xs.count - 1], ys[0] == ys[ys.count - 1] else {
      return false
    }
    return true
  }

  /// The sign of the orientation of `c` against the line from `a` to `b` (+1 left, -1 right)
  /// when floating point gives it for certain, else 0 (on the line, or too close to tell).
  ///
  /// The determinant is ``Orientation``'s first stage, and the bound its
  /// `Orientation.errorBoundA` (`(3 + 16ε)ε`, ε = 2⁻⁵³) rounded up to 4ε: beyond it the
  /// computed sign is the exact sign, and the sign GEOS's double-double orientation gives too.
  /// ``Orientation``'s exact stage is not used on purpose: where only an exact sum tells the
  /// sign, GEOS's double-double arithmetic may tell it otherwise, so the proof leaves such a
  /// ring to GEOS. The bound assumes no underflow, so products whose magnitudes sum to less
  /// than ``underflowFloor`` (vertices some 10⁻¹⁴⁵ degrees apart) are never certain.
  @inline(__always)
  static func certainOrientation(
    _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
  ) -> Int {
    let left = (ax - cx) * (by - cy)
    let right = (ay - cy) * (bx - cx)
    let determinant = left - right
    let magnitude = abs(left) + abs(right)
    guard magnitude > underflowFloor else { return 0 }
    let bound = certaintyBound * magnitude
    if determinant > bound { return 1 }
    if determinant < -bound { return -1 }
    return 0
  }

  /// Whether every turn (the edge into each vertex and the edge out of it, the closing vertex's
  /// too) is off the straight line for certain, or goes on forward for certain: an edge that
  /// doubles back along the one before overlaps it, which GEOS calls a self-intersection.
  private static func turnsAreSimple(
    _ x: UnsafeBufferPointer<Double>, _ y: UnsafeBufferPointer<Double>
  ) -> Bool {
    let edges = x.count - 1
    for k in 0..<edges {
      let a = k
      let b = k + 1
      let c = k + 2 <= edges ? k + 2 : 1
      if certainOrientation(x[a], y[a], x[b], y[b], x[c], y[c]) != 0 { continue }
      // On the line, or too close to tell: proven only when the turn goes on forward for
      // certain (a dot product well above its rounding, with a generous bound).
      let ux = x[b] - x[a]
      let uy = y[b] - y[a]
      let vx = x[c] - x[b]
      let vy = y[c] - y[b]
      let dot = ux * vx + uy * vy
      let magnitude = abs(ux * vx) + abs(uy * vy)
      guard magnitude > underflowFloor, dot > 1e-12 * magnitude else { return false }
    }
    return true
  }

  /// Whether every two edges that do not follow each other in the ring are disjoint for
  /// certain.
  private static func edgesApartAreDisjoint(
    _ x: UnsafeBufferPointer<Double>, _ y: UnsafeBufferPointer<Double>
  ) -> Bool {
    let edges = x.count - 1
    if edges < bruteForceEdges {
      for i in 0..<edges {
        for j in (i + 2)..<max(i + 2, edges) where !(i == 0 && j == edges - 1) {
          guard disjoint(i, j, x, y) else { return false }
        }
      }
      return true
    }
    // Sweep along the longer side of the ring's box: each edge is tested against the edges
    // that start (along the sweep) between its start and its end. The edges are sorted by a
    // 32-bit key of their start, a monotone function of it (rounding keeps order), with the
    // edge's number in the low bits: plain integers sort several times faster than records.
    var minX = Double.infinity
    var maxX = -Double.infinity
    var minY = Double.infinity
    var maxY = -Double.infinity
    for k in 0..<x.count {
      minX = min(minX, x[k])
      maxX = max(maxX, x[k])
      minY = min(minY, y[k])
      maxY = max(maxY, y[k])
    }
    let alongX = maxX - minX >= maxY - minY
    let (along, across) = alongX ? (x, y) : (y, x)
    let origin = alongX ? minX : minY
    let extent = alongX ? maxX - minX : maxY - minY
    // A ring of no extent doubles back somewhere; `turnsAreSimple` refuses it.
    guard extent > 0, extent.isFinite, edges < Int(UInt32.max) else { return false }
    let scale = Double(UInt32.max) / extent
    @inline(__always) func key(_ value: Double) -> UInt64 {
      UInt64(min(Double(UInt32.max), (value - origin) * scale))
    }
    var order = [UInt64](unsafeUninitializedCapacity: edges) { buffer, count in
      for k in 0..<edges {
        buffer[k] = key(min(along[k], along[k + 1])) << 32 | UInt64(k)
      }
      count = edges
    }
    order.sort()
    // The edges' extents in sorted order, so that the scan below reads memory in order.
    let extents = [SweepExtent](unsafeUninitializedCapacity: edges) { buffer, count in
      for position in 0..<edges {
        let k = Int(truncatingIfNeeded: order[position] & 0xFFFF_FFFF)
        buffer.initializeElement(
          at: position,
          to: SweepExtent(
            start: min(along[k], along[k + 1]), end: max(along[k], along[k + 1]),
            low: min(across[k], across[k + 1]), high: max(across[k], across[k + 1])))
      }
      count = edges
    }
    // Every pair looked at counts, boxes apart or not: the work is bounded.
    var budget = pairTestsPerEdge * edges
    return order.withUnsafeBufferPointer { order in
      extents.withUnsafeBufferPointer { extents in
        for position in 0..<edges {
          let i = Int(truncatingIfNeeded: order[position] & 0xFFFF_FFFF)
          let extent = extents[position]
          let endKey = key(extent.end)
          var next = position + 1
          while next < edges {
            let entry = order[next]
            // Later entries start at least as far along: none can meet this edge.
            if entry >> 32 > endKey { break }
            let other = extents[next]
            next += 1
            budget -= 1
            guard budget >= 0 else { return false }
            if other.end < extent.start || other.start > extent.end || other.high < extent.low
              || other.low > extent.high
            {
              continue
            }
            let j = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
            let gap = abs(i - j)
            if gap == 1 || gap == edges - 1 { continue }
            guard disjoint(i, j, x, y) else { return false }
          }
        }
        return true
      }
    }
  }

  /// An edge's extent along the sweep (`start...end`) and across it (`low...high`).
  private struct SweepExtent {
    var start: Double
    var end: Double
    var low: Double
    var high: Double
  }

  /// Whether edges `i` and `j` (from vertex `k` to `k + 1`) are disjoint for certain: their
  /// boxes apart, or both ends of one strictly on the same side of the other's line.
  @inline(__always)
  private static func disjoint(
    _ i: Int, _ j: Int, _ x: UnsafeBufferPointer<Double>, _ y: UnsafeBufferPointer<Double>
  ) -> Bool {
    let (ax, ay, bx, by) = (x[i], y[i], x[i + 1], y[i + 1])
    let (cx, cy, dx, dy) = (x[j], y[j], x[j + 1], y[j + 1])
    if max(ax, bx) < min(cx, dx) || max(cx, dx) < min(ax, bx) || max(ay, by) < min(cy, dy)
      || max(cy, dy) < min(ay, by)
    {
      return true
    }
    let c = certainOrientation(ax, ay, bx, by, cx, cy)
    if c != 0 && c == certainOrientation(ax, ay, bx, by, dx, dy) { return true }
    let a = certainOrientation(cx, cy, dx, dy, ax, ay)
    return a != 0 && a == certainOrientation(cx, cy, dx, dy, bx, by)
  }
}
