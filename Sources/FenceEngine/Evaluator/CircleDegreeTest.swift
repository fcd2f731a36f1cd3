#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

import FenceGeometry

/// Decides most circle containment tests in degrees, without the fix's ECEF vector (two sines
/// and two cosines): the answer, when it gives one, is the one of the exact test
/// (`chord² <= chordSquaredLimit`, as `Circle.contains(_:)`).
///
/// With C the ECEF chord from the centre to the fix, K the circle's chord limit, Δφ and Δλ the
/// latitude and (short-way) longitude differences in radians, and a band of latitudes around
/// the centre:
///
/// - *Outside*. If C ≤ K, the shortest surface path (length s) is a geodesic, whose space
///   curvature is its normal curvature, at most 1/ρ with ρ = a(1 − e²) the smallest radius of
///   curvature of the ellipsoid; by Schur's chord-arc comparison C ≥ 2ρ sin(s / 2ρ), so
///   s ≤ S = 2ρ asin(K / 2ρ). The path then stays within S / ρ radians of latitude of the
///   centre (the band), where the meridional radius M is at least `M(least |φ|)` and the
///   parallel radius N cos φ at least `N(least |φ|) cos(greatest |φ|)` (M and N grow with |φ|).
///   So s ≥ √((M_low Δφ)² + (P_low Δλ)²) (the integrand dominates, and the net longitude
///   change of any path is at least the short-way Δλ). A fix outside the band, or whose lower
///   bound exceeds S, is outside.
/// - *Inside*. The straight path in latitude and longitude from a fix in the band to the centre
///   is no longer than √((M_high Δφ)² + (P_high Δλ)²), with M and N at the greatest |φ| and the
///   cosine at the least; the chord is no longer than any surface path, so a fix whose upper
///   bound is at most K is inside.
///
/// Both comparisons keep a margin of 10⁻⁹ relative plus 1 mm, far above the rounding of these
/// few operations (and of the ECEF test itself); between the bounds (a ring about a metre wide
/// at 2 km, at New York) the caller runs the exact test. Circles whose S exceeds 100 km are
/// never decided here (the comparison assumes a short path).
///
/// The bounds are kept as `Float`s, each rounded outward (the low scales and the inside limit
/// down, the high scales and the outside limit up), so that they stay bounds: a rounded value
/// only widens the ring left to the exact test, by about 10⁻⁷ of the radius (0.05 mm at 500
/// m).
///
/// The test keeps 16 bytes of bounds beside its centre (32 in all), so that an element's core
/// (``ElementCore``) takes 48 bytes: 16 less than when it also kept the band and the two
/// latitude scales of its own band.
/// - The band needs no check of its own: a fix beyond it in latitude has a lower bound above
///   the outside limit (M_low ≥ ρ), or at least one the inside test cannot pass, and is left
///   to the exact test.
/// - The latitude scales come from a table by ten degrees of the centre's latitude
///   (``latitudeScales(at:)``) instead of the circle's own band: the ring left to the exact
///   test widens by at most 0.2 % of the radius north and south of the centre.
struct CircleDegreeTest {
  /// The circle's centre (also for circles the test never decides: the evaluator keeps no
  /// other copy of it).
  var center = Coordinate(uncheckedLatitude: 0, longitude: 0)
  /// Metres per degree of longitude: lower and upper bounds within the band.
  var lowLongitudeScale: Float = 0
  var highLongitudeScale: Float = 0
  /// Squared metres: a lower bound beyond this proves the fix outside (negative: the test
  /// never decides); an upper bound at most `insideLimitSquared` proves it inside.
  var outsideLimitSquared: Float = -1
  var insideLimitSquared: Float = -1

  /// Metres per degree of latitude, lower and upper bounds for every circle whose centre is at
  /// `latitude`: the meridional radius M (times π / 180, with the 10⁻⁹ margin, rounded outward
  /// to `Float`s) at the ends of the centre's ten-degree stretch of |latitude| widened by one
  /// degree, which holds any band (at most 0.9°). M grows with |latitude|, by at most 0.2 %
  /// over such a stretch (1 % from the equator to the poles). Literals in a `switch`, so that
  /// reading them costs no one-time initialization check; the tests check them against
  /// ``WGS84``.
  @inline(__always)
  static func latitudeScales(at latitude: Double) -> (low: Double, high: Double) {
    switch Int(abs(latitude) * 0.1) {
    case 0: (110_574.2734375, 110_614.71875)
    case 1: (110_601.453125, 110_717.03125)
    case 2: (110_692.0625, 110_869.46875)
    case 3: (110_835.7578125, 111_053.9140625)
    case 4: (111_015.4765625, 111_248.28125)
    case 5: (111_209.734375, 111_429.1171875)
    case 6: (111_395.125, 111_574.40625)
    case 7: (111_549.1171875, 111_666.359375)
    case 8: (111_652.875, 111_693.984375)
    default: (111_693.6328125, 111_693.984375)
    }
  }

  /// A test that never decides.
  init() {}

  /// The test for a circle around `center` whose squared chord limit is `chordSquaredLimit`.
  init(center: Coordinate, chordSquaredLimit: Double) {
    self.center = center
    let rho = WGS84.minimumRadiusOfCurvature
    let chord = chordSquaredLimit.squareRoot()
    guard chord.isFinite, chord < 2 * rho else { return }
    let longest = 2 * rho * asin(chord / (2 * rho))
    guard longest <= 100_000 else { return }
    let degreesPerRadian = 180 / Double.pi
    let margin = 1e-9
    let halfBand = longest / rho * degreesPerRadian * (1 + margin)
    let south = center.latitude - halfBand
    let north = center.latitude + halfBand
    let leastLatitude = south <= 0 && north >= 0 ? 0 : min(abs(south), abs(north))
    let greatestLatitude = min(90, max(abs(south), abs(north)))
    let radiansPerDegree = Double.pi / 180
    let cosGreatest = max(0, cos(greatestLatitude * radiansPerDegree))
    let cosLeast = cos(leastLatitude * radiansPerDegree)
    lowLongitudeScale = Float(roundingDown: 
      WGS84.primeVerticalRadius(latitude: leastLatitude) * cosGreatest * radiansPerDegree
        * (1 - margin))
    highLongitudeScale = Float(roundingUp: 
      WGS84.primeVerticalRadius(latitude: greatestLatitude) * cosLeast * radiansPerDegree
        * (1 + margin))
    let outside = longest * (1 + margin) + 0.001
    outsideLimitSquared = Float(roundingUp: outside * outside)
    let inside = chord * (1 - margin) - 0.001
    insideLimitSquared = inside > 0 ? Float(roundingDown: inside * inside) : -1
  }

  /// Whether the bounds ever decide (not for circles whose chord limit reaches past 100 km,
  /// nor for the empty test).
  var decides: Bool { outsideLimitSquared >= 0 }

  /// How the circle relates to a cell (a box not crossing the antimeridian), when the bounds
  /// decide for every point of it; `nil` when the exact relation (the cell's ECEF frame:
  /// trigonometry) must.
  ///
  /// The same bounds as ``contains(latitude:longitude:)``, taken at the cell's least and
  /// greatest degree differences from the centre: `.outside` when the lower bound at the least
  /// ones exceeds the outside limit, `.inside` when the upper bound at the greatest ones is
  /// within the inside limit. Rounded subtraction and the short-way fold are monotone, so every
  /// point's own differences, as ``contains(latitude:longitude:)`` computes them, lie between
  /// those of the cell's edges, and its own bounds between the cell's: the point test would give
  /// every point of the cell the same answer, which is the exact test's. (The short-way
  /// longitude difference over the cell is least at an edge unless the centre's meridian
  /// crosses the cell, and greatest at an edge unless the opposite meridian does, where every
  /// difference is near 180 degrees and nothing is decided inside.)
  ///
  /// The bounds' arithmetic is written out here as in ``contains(latitude:longitude:)`` on
  /// purpose: shared through small private helpers, the per-fix path stopped inlining a caller
  /// and copied the evaluator on every fix (8.8 % more instructions on the cold tracks).
  @inline(__always)
  func relation(toCell cell: BoundingBox) -> CellRelation? {
    let outsideLimit = Double(outsideLimitSquared)
    guard outsideLimit >= 0 else { return nil }
    let toSouth = abs(cell.south - center.latitude)
    let toNorth = abs(cell.north - center.latitude)
    let inLatitude = cell.south <= center.latitude && center.latitude <= cell.north
    let leastLatitude = inLatitude ? 0 : min(toSouth, toNorth)
    var toWest = abs(cell.west - center.longitude)
    if toWest > 180 { toWest = 360 - toWest }
    var toEast = abs(cell.east - center.longitude)
    if toEast > 180 { toEast = 360 - toEast }
    let inLongitude = cell.west <= center.longitude && center.longitude <= cell.east
    let leastLongitude = inLongitude ? 0 : min(toWest, toEast)
    let latitudeScales = Self.latitudeScales(at: center.latitude)
    let lowNorth = leastLatitude * latitudeScales.low
    let lowEast = leastLongitude * Double(lowLongitudeScale)
    if lowNorth * lowNorth + lowEast * lowEast > outsideLimit { return .outside }
    let highNorth = max(toSouth, toNorth) * latitudeScales.high
    let highEast = max(toWest, toEast) * Double(highLongitudeScale)
    if highNorth * highNorth + highEast * highEast <= Double(insideLimitSquared) { return .inside }
    return nil
  }

  /// Whether the circle holds a fix at `latitude`, `longitude` (degrees), when the bounds
  /// decide; `nil` when the exact test must.
  @inline(__always)
  func contains(latitude: Double, longitude: Double) -> Bool? {
    let outsideLimit = Double(outsideLimitSquared)
    guard outsideLimit >= 0 else { return nil }
    let latitudeDegrees = abs(latitude - center.latitude)
    var longitudeDegrees = abs(longitude - center.longitude)
    if longitudeDegrees > 180 { longitudeDegrees = 360 - longitudeDegrees }
    let latitudeScales = Self.latitudeScales(at: center.latitude)
    let lowNorth = latitudeDegrees * latitudeScales.low
    let lowEast = longitudeDegrees * Double(lowLongitudeScale)
    if lowNorth * lowNorth + lowEast * lowEast > outsideLimit { return false }
    let highNorth = latitudeDegrees * latitudeScales.high
    let highEast = longitudeDegrees * Double(highLongitudeScale)
    if highNorth * highNorth + highEast * highEast <= Double(insideLimitSquared) { return true }
    return nil
  }
}
