#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small latitude-longitude box (not crossing the antimeridian) with what the circle tests
/// of ``Circle/cellRelation(centerECEF:chordSquaredLimit:cell:)`` read, computed once for all
/// the circles met by the cell.
public struct Cell: Sendable {
  public let box: BoundingBox
  /// The ECEF vector of the box's centre.
  let centre: ECEFPosition
  /// Metres: no point of the box lies farther from its centre (a bound on the length of the
  /// straight latitude-longitude path by the largest metres per degree, as the skip test uses).
  let reach: Double

  /// - Precondition: `box` does not cross the antimeridian.
  public init(_ box: BoundingBox) {
    precondition(!box.crossesAntimeridian, "a cell does not cross the antimeridian")
    self.box = box
    let halfHeight = (box.north - box.south) / 2 * WGS84.metresPerDegreeBound
    let nearestToEquator = box.south > 0 ? box.south : (box.north < 0 ? -box.north : 0)
    let halfWidth =
      (box.east - box.west) / 2 * WGS84.metresPerDegreeBound * cos(nearestToEquator * .pi / 180)
      * (1 + 1e-9)
    reach = (halfHeight * halfHeight + halfWidth * halfWidth).squareRoot()
    centre = ECEFPosition(
      latitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2)
  }
}

extension Circle {
  /// Whether every point of `cell`, or none, is covered by the circle, or each must be tested
  /// (see ``cellRelation(centerECEF:chordSquaredLimit:cell:)``).
  public func relation(toCell cell: Cell) -> CellRelation {
    Circle.cellRelation(centerECEF: centerECEF, chordSquaredLimit: chordSquaredLimit, cell: cell)
  }

  /// The relation of a circle, given as its centre's ECEF vector and the squared chord of its
  /// radius (``centerECEF``, ``chordSquaredLimit``), to a cell.
  ///
  /// Every point of the cell lies within the cell's reach *r* of its centre; by the triangle
  /// inequality on chords, the cell is `.inside` when the centre's chord plus *r* stays 1 mm
  /// short of the radius's chord, and `.outside` when the chord minus *r* exceeds it by 1 mm.
  /// The millimetre is far above the rounding of ``contains(_:)-(ECEFPosition)``'s chord, so
  /// both answers are exact for every point.
  @inline(__always)
  public static func cellRelation(
    centerECEF: ECEFPosition, chordSquaredLimit: Double, cell: Cell
  ) -> CellRelation {
    let chord = centerECEF.chord(to: cell.centre)
    let limit = chordSquaredLimit.squareRoot()
    if chord + cell.reach + 0.001 <= limit { return .inside }
    if chord - cell.reach - 0.001 > limit { return .outside }
    return .mixed
  }
}
