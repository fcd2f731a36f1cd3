@testable import FenceGeometry
import FenceTestSupport
import Testing

@Suite struct OrientationTests {
  @Test func simpleTurnsAreClassified() {
    #expect(Orientation(ax: 0, ay: 0, bx: 1, by: 0, cx: 0, cy: 1) == .counterClockwise)
    #expect(Orientation(ax: 0, ay: 0, bx: 1, by: 0, cx: 0, cy: -1) == .clockwise)
    #expect(Orientation(ax: 0, ay: 0, bx: 1, by: 0, cx: 7, cy: 0) == .collinear)
    #expect(Orientation(ax: 2, ay: 2, bx: 2, by: 2, cx: 5, cy: 1) == .collinear)
  }

  /// Shewchuk's example: points a few ulps around (0.5, 0.5) against the line y = x through
  /// (12, 12) and (24, 24). The exact sign is the sign of y - x; naive evaluation gets many of
  /// these wrong.
  @Test func nearlyCollinearPointsGetTheExactSign() {
    let ulp = 0.5.ulp
    var naiveWrong = 0
    for i in 0..<64 {
      for j in 0..<64 {
        let x = 0.5 + Double(i) * ulp
        let y = 0.5 + Double(j) * ulp
        let expected: Orientation = y > x ? .counterClockwise : (y < x ? .clockwise : .collinear)
        #expect(Orientation(ax: 12, ay: 12, bx: 24, by: 24, cx: x, cy: y) == expected)
        let naive = (24 - 12) * (y - 12) - (24 - 12) * (x - 12)
        let naiveSign: Orientation = naive > 0 ? .counterClockwise : (naive < 0 ? .clockwise : .collinear)
        // The same point evaluated with the triangle's vertices in another order.
        let rotated = Orientation(ax: x, ay: y, bx: 12, by: 12, cx: 24, cy: 24)
        #expect(rotated == expected)
        if naiveSign != expected { naiveWrong += 1 }
      }
    }
    #expect(naiveWrong > 100, "the table must include cases naive evaluation gets wrong")
  }

  /// On nearly collinear random triples, the exact predicate is antisymmetric and invariant
  /// under rotation of its arguments, which rounding breaks.
  @Test func nearlyCollinearRandomTriplesAreConsistent() {
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<2000 {
      let ax = Double.random(in: -180...180, using: &generator)
      let ay = Double.random(in: -90...90, using: &generator)
      let bx = Double.random(in: -180...180, using: &generator)
      let by = Double.random(in: -90...90, using: &generator)
      let t = Double.random(in: -1...2, using: &generator)
      let cx = ax + t * (bx - ax)
      let cy = ay + t * (by - ay)
      let abc = Orientation.determinant(ax: ax, ay: ay, bx: bx, by: by, cx: cx, cy: cy).sign
      let bca = Orientation.determinant(ax: bx, ay: by, bx: cx, by: cy, cx: ax, cy: ay).sign
      let acb = Orientation(ax: ax, ay: ay, bx: cx, by: cy, cx: bx, cy: by)
      let forward = Orientation(ax: ax, ay: ay, bx: bx, by: by, cx: cx, cy: cy)
      #expect(abc == bca)
      #expect(acb.rawValue == -forward.rawValue)
    }
  }

  /// Exact zero: points on an axis-parallel or dyadic line are collinear, and the next double
  /// off the line is not.
  @Test func theNextDoubleOffALineIsOffIt() {
    #expect(Orientation(ax: 0, ay: 0, bx: 3, by: 1, cx: 1.5, cy: 0.5) == .collinear)
    #expect(Orientation(ax: 0, ay: 0, bx: 3, by: 1, cx: 1.5, cy: 0.5.nextUp) == .counterClockwise)
    #expect(Orientation(ax: 0, ay: 0, bx: 3, by: 1, cx: 1.5, cy: 0.5.nextDown) == .clockwise)
    #expect(
      Orientation(ax: -74.25, ay: 40.5, bx: -73.75, by: 40.75, cx: -74, cy: 40.625) == .collinear)
    #expect(
      Orientation(ax: -74.25, ay: 40.5, bx: -73.75, by: 40.75, cx: -74, cy: 40.625.nextUp)
        == .counterClockwise)
  }

  /// The filter written as one comparison takes exactly the decisions of Shewchuk's filter as
  /// he wrote it, with branches on the two products' signs: the same value, bit for bit, on
  /// random triples, nearly collinear ones, ones with a zero product (a shared coordinate) and
  /// ones whose products have opposite signs.
  @Test func theFilterDecidesAsTheBranchingOne() {
    func branching(
      _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Double {
      let detLeft = (ax - cx) * (by - cy)
      let detRight = (ay - cy) * (bx - cx)
      let det = detLeft - detRight
      let detSum: Double
      if detLeft > 0 {
        if detRight <= 0 { return det }
        detSum = detLeft + detRight
      } else if detLeft < 0 {
        if detRight >= 0 { return det }
        detSum = -detLeft - detRight
      } else {
        return det
      }
      if abs(det) >= Orientation.errorBoundA * detSum { return det }
      return Orientation.exactDeterminant(ax: ax, ay: ay, bx: bx, by: by, cx: cx, cy: cy)
    }
    var generator = SeededGenerator(seed: 11)
    var exactOnes = 0
    for k in 0..<20_000 {
      let ax = Double.random(in: -180...180, using: &generator)
      let ay = Double.random(in: -90...90, using: &generator)
      var bx = Double.random(in: -180...180, using: &generator)
      var by = Double.random(in: -90...90, using: &generator)
      var cx: Double
      let cy: Double
      switch k % 4 {
      case 0:  // anywhere
        cx = Double.random(in: -180...180, using: &generator)
        cy = Double.random(in: -90...90, using: &generator)
      case 1:  // nearly on the line a-b
        let t = Double.random(in: -1...2, using: &generator)
        cx = ax + t * (bx - ax)
        cy = ay + t * (by - ay)
      case 2:  // a shared coordinate: a product is zero
        cx = Double.random(in: -180...180, using: &generator)
        cy = by
        if k % 8 == 2 { bx = cx }
      default:  // a few ulps off a point of the line
        cx = (ax + bx) / 2
        cy = (ay + by) / 2
        for _ in 0..<Int.random(in: 0...3, using: &generator) { cx = cx.nextUp }
        if k % 8 == 7 { by = ay }
      }
      let expected = branching(ax, ay, bx, by, cx, cy)
      let detLeft = (ax - cx) * (by - cy)
      let detRight = (ay - cy) * (bx - cx)
      if abs(detLeft - detRight) < Orientation.errorBoundA * (abs(detLeft) + abs(detRight)) {
        exactOnes += 1
      }
      let got = Orientation.determinant(ax: ax, ay: ay, bx: bx, by: by, cx: cx, cy: cy)
      #expect(got.bitPattern == expected.bitPattern, "\((ax, ay, bx, by, cx, cy))")
    }
    #expect(exactOnes > 1_000, "the triples must include many the filter cannot decide")
  }
}
