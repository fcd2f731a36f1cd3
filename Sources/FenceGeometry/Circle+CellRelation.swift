#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Circle {
  /// Whether every point of `cell`, or none, is covered by the circle, or each must be tested
  /// (see ``cellRelation(centerECEF:chordSquaredLimit:cell:)``).
  public func relation(toCell cell: BoundingBox) -> CellRelation {
    Circle.cellRelation(centerECEF: centerECEF, chordSquaredLimit: chordSquaredLimit, cell: cell)
  }

  /// Metres per degree of latitude or longitude never exceed this: the largest radius of
  /// curvature of the WGS84 ellipsoid (at the poles), in metres per degree, rounded up.
  static let metresPerDegreeBound =
    WGS84.semiMajorAxis / (1 - WGS84.eccentricitySquared).squareRoot() * .pi / 180 * (1 + 1e-9)

  /// The relation of a circle, given as its centre's ECEF vector and the squared chord of its
  /// radius (``centerECEF``, ``chordSquaredLimit``), to a cell that does not cross the
  /// antimeridian.
  ///
  /// Every point of the cell lies within *r* metres of the cell's centre, *r* bounding the
  /// length of the straight latitude-longitude path by the largest metres per degree (as the
  /// skip test does); by the triangle inequality on chords, the cell is `.inside` when the
  /// centre's chord plus *r* stays 1 mm short of the radius's chord, and `.outside` when the
  /// chord minus *r* exceeds it by 1 mm. The millimetre is far above the rounding of
  /// ``contains(_:)-(ECEFPosition)``'s chord, so both answers are exact for every point.
  public static func cellRelation(
    centerECEF: ECEFPosition, chordSquaredLimit: Double, cell: BoundingBox
  ) -> CellRelation {
    guard !cell.crossesAntimeridian else { return .mixed }
    let halfHeight = (cell.north - cell.south) / 2 * metresPerDegreeBound
    let nearestToEquator = cell.south > 0 ? cell.south : (cell.north < 0 ? -cell.north : 0)
    let halfWidth =
      (cell.east - cell.west) / 2 * metresPerDegreeBound * cos(nearestToEquator * .pi / 180)
      * (1 + 1e-9)
    let reach = (halfHeight * halfHeight + halfWidth * halfWidth).squareRoot()
    let centre = ECEFPosition(
      latitude: (cell.south + cell.north) / 2, longitude: (cell.west + cell.east) / 2)
    let chord = centerECEF.chord(to: centre)
    let limit = chordSquaredLimit.squareRoot()
    if chord + reach + 0.001 <= limit { return .inside }
    if chord - reach - 0.001 > limit { return .outside }
    return .mixed
  }
}
