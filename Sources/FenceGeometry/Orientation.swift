/// The turn from one planar point to the next through a third: the orientation predicate that
/// every exact geometric decision in this module (on an edge or not, which side of a GEOLINE)
/// rests on.
///
/// Evaluated exactly with Shewchuk's adaptive method ("Adaptive Precision Floating-Point
/// Arithmetic and Fast Robust Geometric Predicates", 1997): a floating-point determinant whose
/// sign is trusted when it exceeds a forward error bound, else an exact sum of the determinant's
/// six products, each split into two doubles with a fused multiply-add. The answer is exact for
/// all finite inputs whose products neither overflow nor underflow (any longitude/latitude).
public enum Orientation: Int8, Hashable, Sendable {
  /// The three points turn clockwise: `c` is to the right of the directed line `a → b`.
  case clockwise = -1
  /// The three points lie on one line (including coincident points).
  case collinear = 0
  /// The three points turn counter-clockwise: `c` is to the left of the directed line `a → b`.
  case counterClockwise = 1

  /// The exact orientation of `(ax, ay) → (bx, by) → (cx, cy)`.
  @inlinable
  public init(ax: Double, ay: Double, bx: Double, by: Double, cx: Double, cy: Double) {
    let d = Orientation.determinant(ax: ax, ay: ay, bx: bx, by: by, cx: cx, cy: cy)
    self = d > 0 ? .counterClockwise : (d < 0 ? .clockwise : .collinear)
  }

  /// A value whose sign is exactly the sign of `(b - a) × (c - a)`: positive when `c` is left of
  /// `a → b`, negative when right, zero when the three points are collinear.
  ///
  /// The magnitude approximates twice the triangle's signed area; only the sign is exact.
  /// Costs a handful of flops unless the points are nearly collinear.
  @inlinable
  public static func determinant(
    ax: Double, ay: Double, bx: Double, by: Double, cx: Double, cy: Double
  ) -> Double {
    let detLeft = (ax - cx) * (by - cy)
    let detRight = (ay - cy) * (bx - cx)
    let det = detLeft - detRight
    // Shewchuk's filter compares against the sum of the two products' magnitudes when they
    // have one sign, and trusts `det` outright when they differ or one is zero. Written as one
    // comparison with `abs(detLeft) + abs(detRight)`, it takes the same decisions (differing
    // signs give `abs(det)` equal to that sum, which passes; so does a zero product) without
    // the branches on the products' signs, which fall at random where points meet edges.
    // `!(a < b)` and not `a >= b`, so that a NaN returns at once as before.
    if !(abs(det) < errorBoundA * (abs(detLeft) + abs(detRight))) { return det }
    return exactDeterminant(ax: ax, ay: ay, bx: bx, by: by, cx: cx, cy: cy)
  }

  /// Shewchuk's first-stage bound for orient2d, (3 + 16ε)ε with ε = 2⁻⁵³.
  @inlinable
  static var errorBoundA: Double { (3 + 16 * 0x1p-53) * 0x1p-53 }

  /// The determinant `ax·by − ax·cy − ay·bx + ay·cx + bx·cy − by·cx` summed exactly.
  ///
  /// Each product is split into a rounded value and its exact error (two-product via FMA); the
  /// twelve parts are accumulated into a non-overlapping expansion (grow-expansion with two-sum),
  /// whose largest component carries the sign of the exact sum.
  @usableFromInline
  static func exactDeterminant(
    ax: Double, ay: Double, bx: Double, by: Double, cx: Double, cy: Double
  ) -> Double {
    withUnsafeTemporaryAllocation(of: Double.self, capacity: 12) { expansion in
      var count = 0
      func add(_ value: Double) {
        // Grow-expansion: add one double to a non-overlapping expansion, keeping it exact.
        var q = value
        var kept = 0
        for i in 0..<count {
          let (sum, error) = twoSum(q, expansion[i])
          if error != 0 {
            expansion[kept] = error
            kept += 1
          }
          q = sum
        }
        if q != 0 {
          expansion[kept] = q
          kept += 1
        }
        count = kept
      }
      func addProduct(_ a: Double, _ b: Double) {
        let p = a * b
        add((-p).addingProduct(a, b))  // exact error of the product (fma(a, b, -p))
        add(p)
      }
      addProduct(ax, by)
      addProduct(-ax, cy)
      addProduct(-ay, bx)
      addProduct(ay, cx)
      addProduct(bx, cy)
      addProduct(-by, cx)
      return count == 0 ? 0 : expansion[count - 1]
    }
  }

  /// Knuth's two-sum: `a + b` as a rounded sum and its exact rounding error.
  @inline(__always)
  @usableFromInline
  static func twoSum(_ a: Double, _ b: Double) -> (sum: Double, error: Double) {
    let sum = a + b
    let bVirtual = sum - a
    let aVirtual = sum - bVirtual
    return (sum, (a - aVirtual) + (b - bVirtual))
  }
}
