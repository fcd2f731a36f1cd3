#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The WGS84 ellipsoid and distances on it, in metres.
///
/// Distances between nearby points are computed from the straight-line (chord) distance between
/// their Earth-centred, Earth-fixed (ECEF) positions, which is exact on the ellipsoid, then
/// lengthened to the arc with the local radius of curvature: `s = 2R asin(c / 2R)`. Up to 10 km
/// this agrees with the geodesic (Karney) to better than 1 mm, including near the poles and across
/// the antimeridian, where methods based on longitude differences lose accuracy. Beyond about
/// 100 km the error grows with the difference between the local radius and the ellipsoid's
/// (at most about 0.5 %); the engine only needs metre accuracy at those distances.
public enum WGS84 {
  /// Semi-major axis, metres.
  public static let semiMajorAxis = 6_378_137.0
  /// Flattening.
  public static let flattening = 1.0 / 298.257_223_563
  /// First eccentricity squared.
  public static let eccentricitySquared = flattening * (2 - flattening)
  /// The smallest radius of curvature of the ellipsoid (the meridional radius at the equator).
  ///
  /// A distance computed on a sphere of this radius never exceeds the ellipsoidal one, which is
  /// what conservative bounds (index pruning, skipping) need.
  public static let minimumRadiusOfCurvature = semiMajorAxis * (1 - eccentricitySquared)
  /// Metres per degree of latitude or longitude never exceed this: the largest radius of
  /// curvature (at the poles, a / sqrt(1 - e²) = 6,399,593.6 m) times π/180 is 111,693.98 m a
  /// degree, rounded up. A literal, so that reading it on a hot path initialises nothing.
  /// Bounds on a path's length from degree differences (skipping, cell reaches) use it.
  public static let metresPerDegreeBound = 111_694.0

  /// The meridional radius of curvature M at a latitude (metres per radian of latitude).
  @inlinable
  public static func meridionalRadius(latitude: Double) -> Double {
    let s = sin(latitude * .pi / 180)
    let w = 1 - eccentricitySquared * s * s
    return semiMajorAxis * (1 - eccentricitySquared) / (w * w.squareRoot())
  }

  /// The prime-vertical radius of curvature N at a latitude.
  @inlinable
  public static func primeVerticalRadius(latitude: Double) -> Double {
    let s = sin(latitude * .pi / 180)
    return semiMajorAxis / (1 - eccentricitySquared * s * s).squareRoot()
  }

  /// The Gaussian mean radius sqrt(M N) at a latitude: the radius used to turn chords into arcs.
  @inlinable
  public static func gaussianRadius(latitude: Double) -> Double {
    (meridionalRadius(latitude: latitude) * primeVerticalRadius(latitude: latitude)).squareRoot()
  }

  /// Metres along the ellipsoid between two positions (see the type's discussion for accuracy).
  @inlinable
  public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
    let pa = ECEFPosition(a)
    let pb = ECEFPosition(b)
    let radius = gaussianRadius(latitude: (a.latitude + b.latitude) / 2)
    return arc(chord: pa.chord(to: pb), radius: radius)
  }

  /// Metres north and east from `a` to `b` in the local plane at their mid-latitude (the
  /// meridional and prime-vertical radii there; the longitude difference taken the short way).
  ///
  /// No trigonometric call: the cosine of the mid-latitude comes from its Taylor series to the
  /// 12th power (within 7e-9 of the cosine over the whole range of latitudes), and the sine's
  /// square from it. For the steps between a device's fixes (up to tens of kilometres) its
  /// length agrees with ``distance(_:_:)`` to better than 0.1 %, which is what a speed derived
  /// from two fixes needs, on every fix of a conditioned zone.
  public static func localDisplacement(from a: Coordinate, to b: Coordinate) -> (north: Double, east: Double) {
    var dLon = b.longitude - a.longitude
    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
    let radians = Double.pi / 180
    let c = cosineOfLatitude(radians: (a.latitude + b.latitude) / 2 * radians)
    let w = 1 - eccentricitySquared * (1 - c * c)
    let primeVertical = semiMajorAxis / w.squareRoot()
    let meridional = semiMajorAxis * (1 - eccentricitySquared) / (w * w.squareRoot())
    return (
      (b.latitude - a.latitude) * radians * meridional,
      dLon * radians * primeVertical * c
    )
  }

  /// The cosine of a latitude in radians (|x| ≤ π/2) by its Taylor series up to x¹²: the next
  /// term bounds the error, (π/2)¹⁴/14! < 7e-9. Never negative.
  @inline(__always)
  static func cosineOfLatitude(radians x: Double) -> Double {
    let y = x * x
    var p = 1.0 / 479_001_600  // 1/12!
    p = p * y - 1.0 / 3_628_800  // 1/10!
    p = p * y + 1.0 / 40_320  // 1/8!
    p = p * y - 1.0 / 720  // 1/6!
    p = p * y + 1.0 / 24
    p = p * y - 0.5
    p = p * y + 1
    return max(p, 0)
  }

  /// The course from `a` towards `b`, in degrees clockwise from true north, in [0, 360); `nil`
  /// when the two are the same position.
  ///
  /// Measured in the local plane at the mid-latitude (north in metres of the meridional radius,
  /// east in metres of the prime-vertical radius): the direction of travel between two fixes a
  /// few seconds apart, exact for due north, east, south and west; the longitude difference is
  /// taken the short way (across the antimeridian when that is shorter).
  public static func initialBearing(from a: Coordinate, to b: Coordinate) -> Double? {
    guard a != b else { return nil }
    let (north, east) = localDisplacement(from: a, to: b)
    guard north != 0 || east != 0 else { return nil }
    var degrees = atan2(east, north) * 180 / .pi
    if degrees < 0 { degrees += 360 }
    return degrees >= 360 ? 0 : degrees
  }

  /// The arc length of a chord on a sphere of `radius`.
  @inlinable
  public static func arc(chord: Double, radius: Double) -> Double {
    let half = chord / (2 * radius)
    if half >= 1 { return .pi * radius }
    // asin(x) ≈ x + x³/6 for tiny x keeps full precision at sub-metre chords.
    return 2 * radius * asin(half)
  }

  /// The chord length of an arc on a sphere of `radius` (the inverse of ``arc(chord:radius:)``).
  @inlinable
  public static func chord(arc: Double, radius: Double) -> Double {
    let angle = arc / (2 * radius)
    if angle >= .pi / 2 { return 2 * radius }
    return 2 * radius * sin(angle)
  }
}

/// A position as an Earth-centred, Earth-fixed vector, in metres.
///
/// Comparing squared chords between ECEF vectors is how circle fences are tested on the hot path:
/// three multiplications per circle once the fix's own vector is computed.
public struct ECEFPosition: Hashable, Sendable {
  public var x: Double
  public var y: Double
  public var z: Double

  @inlinable
  public init(x: Double, y: Double, z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }

  /// The ECEF vector of a position on the ellipsoid's surface (height 0).
  @inlinable
  public init(_ c: Coordinate) {
    self.init(latitude: c.latitude, longitude: c.longitude)
  }

  /// The ECEF vector of a latitude/longitude in degrees (height 0).
  @inlinable
  public init(latitude: Double, longitude: Double) {
    let phi = latitude * .pi / 180
    let lambda = longitude * .pi / 180
    let sinPhi = sin(phi)
    let cosPhi = cos(phi)
    let n = WGS84.semiMajorAxis / (1 - WGS84.eccentricitySquared * sinPhi * sinPhi).squareRoot()
    x = n * cosPhi * cos(lambda)
    y = n * cosPhi * sin(lambda)
    z = n * (1 - WGS84.eccentricitySquared) * sinPhi
  }

  /// The squared straight-line distance to another position, in square metres.
  @inlinable
  public func chordSquared(to other: ECEFPosition) -> Double {
    let dx = x - other.x
    let dy = y - other.y
    let dz = z - other.z
    return dx * dx + dy * dy + dz * dz
  }

  /// The straight-line distance to another position, in metres.
  @inlinable
  public func chord(to other: ECEFPosition) -> Double {
    chordSquared(to: other).squareRoot()
  }
}
