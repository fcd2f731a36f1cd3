import FenceGeometry

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Great-circle distances from one position to planar latitude/longitude boxes, on a sphere of
/// radius ``WGS84/minimumRadiusOfCurvature``.
///
/// The sphere's metric in geodetic latitude and longitude is nowhere longer than the ellipsoid's
/// (its radius is the smallest radius of curvature), so the distance to a box on it is a lower
/// bound of the true distance to anything inside the box: the bound the index prunes with.
///
/// The closest point of a box to a position outside its longitudes lies on the box's meridian
/// edge nearest in longitude (for any latitude, the great-circle distance grows with the
/// longitude difference), at the latitude closest to where that meridian's great circle comes
/// nearest to the position, clamped to the box (Schubert, Zimek and Kriegel 2013, "Geodetic
/// distance queries on R-trees for indexing geographic data"; geokdbush does the same).
/// Computed in haversine form, accurate at sub-metre distances, and valid at the poles and
/// across the antimeridian.
struct SphericalBoxDistance: Sendable {
  static let radius = WGS84.minimumRadiusOfCurvature
  private static let radiansPerDegree = Double.pi / 180

  let latitude: Double
  let longitude: Double
  private let sinLatitude: Double
  private let cosLatitude: Double

  init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
    let phi = latitude * Self.radiansPerDegree
    sinLatitude = sin(phi)
    cosLatitude = cos(phi)
  }

  /// The haversine of the central angle to the box, in [0, 1]: `sin²(d / 2R)`.
  ///
  /// The box must be planar (`west <= east`), in degrees.
  @inline(__always)
  func haversine(west: Double, south: Double, east: Double, north: Double) -> Double {
    let inside = longitude >= west && longitude <= east
    let dLon =
      inside ? 0 : min(Self.wrappedGap(longitude - west), Self.wrappedGap(longitude - east))
    if dLon == 0 {  // on the box's longitudes (180 and -180 are one meridian)
      let dLat = max(0, south - latitude, latitude - north) * Self.radiansPerDegree
      let s = sin(dLat * 0.5)
      return s * s
    }
    let lambda = dLon * Self.radiansPerDegree
    let halfSin = sin(lambda * 0.5)
    let havLon = halfSin * halfSin
    let cosLon = 1 - 2 * havLon
    if cosLon > 0 {
      // The meridian's great circle comes closest at atan2(sin φ, cos φ cos Δλ); along the
      // meridian the distance falls to that latitude and rises after it.
      let nearest = atan2(sinLatitude, cosLatitude * cosLon) / Self.radiansPerDegree
      return haversine(toLatitude: min(max(nearest, south), north), havLon: havLon)
    }
    // Beyond a quarter turn the distance rises towards the middle of the edge: take a corner.
    return min(
      haversine(toLatitude: south, havLon: havLon), haversine(toLatitude: north, havLon: havLon))
  }

  /// `hav(φ − φ') + cos φ cos φ' hav(Δλ)`.
  @inline(__always)
  private func haversine(toLatitude other: Double, havLon: Double) -> Double {
    let s = sin((latitude - other) * Self.radiansPerDegree * 0.5)
    let h = s * s + cosLatitude * cos(other * Self.radiansPerDegree) * havLon
    return min(max(h, 0), 1)
  }

  /// The distance in metres on the sphere for a haversine from
  /// ``haversine(west:south:east:north:)``.
  @inline(__always)
  static func metres(haversine h: Double) -> Double {
    2 * radius * asin(min(h.squareRoot(), 1))
  }

  /// The largest haversine of a distance within `metres` (`-1` when nothing is, as for a
  /// negative or NaN radius).
  static func haversineLimit(metres: Double) -> Double {
    guard metres >= 0 else { return -1 }
    let angle = metres / (2 * radius)
    if angle >= .pi / 2 { return 1 }
    let s = sin(angle)
    return s * s
  }

  /// The difference of two longitudes in degrees, as the shorter way round: in [0, 180].
  @inline(__always)
  static func wrappedGap(_ difference: Double) -> Double {
    let d = abs(difference)
    return d > 180 ? 360 - d : d
  }

  /// The distance in metres to a box that may cross the antimeridian.
  func metres(to box: BoundingBox) -> Double {
    let (first, second) = box.planarParts
    var h = haversine(west: first.west, south: first.south, east: first.east, north: first.north)
    if let second {
      h = min(
        h, haversine(west: second.west, south: second.south, east: second.east, north: second.north)
      )
    }
    return Self.metres(haversine: h)
  }
}

/// A cheap lower bound of the spherical distance from one position to planar boxes, for the
/// nearest-neighbour queue: no trigonometry per box.
///
/// `hav(d) = hav(Δφ) + cos φ cos φ' hav(Δλ)` is at least the sum of each term's minimum over the
/// box: the latitude gap, and the longitude gap times the smallest `cos φ'` within reach. Only
/// points within `reach` metres matter to a search limited to that radius, and their latitudes
/// lie within `reach / R` of the position's, so the smallest cosine over that band, computed
/// once per search, serves for every box. `sin t >= t - t³/6` for `0 <= t <= π/2` replaces the
/// sines. The result never exceeds the haversine of the distance from the position to the
/// nearest point of the box that lies within `reach`; for a box with no such point it may,
/// which only ever concerns boxes beyond the search radius.
struct SphericalBoxLowerBound: Sendable {
  private static let halfRadiansPerDegree = Double.pi / 360

  let latitude: Double
  let longitude: Double
  /// `cos φ` times the smallest `cos φ'` for `φ'` within reach of the position.
  private let cosineProduct: Double

  init(latitude: Double, longitude: Double, reach: Double) {
    self.latitude = latitude
    self.longitude = longitude
    let band = reach / SphericalBoxDistance.radius * 180 / .pi
    let farthest = min(90, abs(latitude) + band)
    cosineProduct = max(0, cos(latitude * .pi / 180)) * max(0, cos(farthest * .pi / 180))
  }

  /// A lower bound of ``SphericalBoxDistance/haversine(west:south:east:north:)`` (see the type).
  @inline(__always)
  func haversine(west: Double, south: Double, east: Double, north: Double) -> Double {
    let inside = longitude >= west && longitude <= east
    let dLon =
      inside
      ? 0
      : min(
        SphericalBoxDistance.wrappedGap(longitude - west),
        SphericalBoxDistance.wrappedGap(longitude - east))
    let t = max(0, south - latitude, latitude - north) * Self.halfRadiansPerDegree
    let u = dLon * Self.halfRadiansPerDegree
    let sinT = t - t * t * t * (1.0 / 6)
    let sinU = u - u * u * u * (1.0 / 6)
    return sinT * sinT + cosineProduct * (sinU * sinU)
  }

  /// A lower bound in metres of the distance whose haversine is `h`: `2R·√h <= 2R·asin(√h)`.
  @inline(__always)
  static func metres(haversine h: Double) -> Double {
    2 * SphericalBoxDistance.radius * h.squareRoot()
  }
}

extension RTree {
  /// A lower bound, in metres, of the distance from `position` to any point of `box`.
  ///
  /// The great-circle distance on a sphere of radius ``WGS84/minimumRadiusOfCurvature``, whose
  /// metric in latitude and longitude is nowhere longer than the ellipsoid's: 0 when the box
  /// holds the position. The box may cross the antimeridian; the poles need no special case.
  /// Radius searches and ``nearest(to:count:within:exactDistance:into:scratch:)`` prune with it.
  public static func lowerBoundDistance(from position: Position, to box: BoundingBox) -> Double {
    SphericalBoxDistance(latitude: position.latitude, longitude: position.longitude)
      .metres(to: box)
  }
}
