#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Distances in metres from a position to straight (longitude, latitude) segments.
///
/// Two stages. ``LocalPlane`` maps the segment into an equirectangular plane around the
/// position (metres east and north, with the WGS84 radii of curvature at the position's
/// latitude and longitudes wrapped to the nearest turn), which ranks edges and gives a first
/// foot point. ``metres(from:ax:ay:bx:by:)`` then moves the foot point along the true segment
/// with Gauss-Newton steps on the exact ECEF chord and measures the distance to it with
/// ``WGS84/distance(_:_:)``. Near the poles, where a (lon, lat) segment curves on the ground,
/// it also starts from the best of 16 samples along the segment.
enum SegmentDistance {
  /// Metres from `p` to the segment `(ax, ay) → (bx, by)` given in a frame's degrees (longitudes
  /// may be unwrapped beyond 180; the segment must span at most 180 degrees of longitude).
  static func metres(
    from p: Position, ax: Double, ay: Double, bx: Double, by: Double, plane: LocalPlane
  ) -> Double {
    let t0 = plane.footParameter(ax: ax, ay: ay, bx: bx, by: by)
    var best = refined(from: p, ax: ax, ay: ay, bx: bx, by: by, start: t0)
    if max(abs(ay), abs(by), abs(p.latitude)) > 80, ax != bx {
      // A segment near a pole may wind around the position: search it coarsely first.
      var bestT = 0.0
      var bestChord = Double.infinity
      for k in 0...16 {
        let t = Double(k) / 16
        let c = ECEFPosition(latitude: ay + t * (by - ay), longitude: ax + t * (bx - ax))
          .chordSquared(to: p.ecef)
        if c < bestChord {
          bestChord = c
          bestT = t
        }
      }
      best = min(best, refined(from: p, ax: ax, ay: ay, bx: bx, by: by, start: bestT))
    }
    return best
  }

  /// Minimizes the squared ECEF chord from `p` to the point at parameter `t` of the segment
  /// (Gauss-Newton, clamped to [0, 1]) and returns the WGS84 distance to the point found.
  static func refined(
    from p: Position, ax: Double, ay: Double, bx: Double, by: Double, start: Double
  ) -> Double {
    let degrees = Double.pi / 180
    let dPhi = (by - ay) * degrees
    let dLambda = (bx - ax) * degrees
    var t = start
    for _ in 0..<6 {
      let phi = (ay + t * (by - ay)) * degrees
      let lambda = (ax + t * (bx - ax)) * degrees
      let sinPhi = sin(phi)
      let cosPhi = cos(phi)
      let sinLambda = sin(lambda)
      let cosLambda = cos(lambda)
      let w = 1 - WGS84.eccentricitySquared * sinPhi * sinPhi
      let n = WGS84.semiMajorAxis / w.squareRoot()
      let m = n * (1 - WGS84.eccentricitySquared) / w
      // Residual from p to the current point, and the derivative of the point along t:
      // M·dφ along the local north plus N·cosφ·dλ along the local east.
      let rx = n * cosPhi * cosLambda - p.ecef.x
      let ry = n * cosPhi * sinLambda - p.ecef.y
      let rz = n * (1 - WGS84.eccentricitySquared) * sinPhi - p.ecef.z
      let north = m * dPhi
      let east = n * cosPhi * dLambda
      let dx = -sinPhi * cosLambda * north - sinLambda * east
      let dy = -sinPhi * sinLambda * north + cosLambda * east
      let dz = cosPhi * north
      let h = dx * dx + dy * dy + dz * dz
      guard h > 0 else { break }
      let next = min(1, max(0, t - (rx * dx + ry * dy + rz * dz) / h))
      let moved = abs(next - t) * h.squareRoot()
      t = next
      if moved < 1e-4 { break }
    }
    let foot = Coordinate(
      uncheckedLatitude: ay + t * (by - ay),
      longitude: LocalPlane.geographic(ax + t * (bx - ax)))
    return WGS84.distance(p.coordinate, foot)
  }
}

/// An equirectangular plane around one position: metres east and north, using the WGS84 radii
/// of curvature at that latitude. Good for ranking nearby edges; not a distance by itself.
struct LocalPlane {
  let latitude: Double
  let longitude: Double
  /// Metres per degree of longitude and latitude at the position.
  let metresPerDegreeX: Double
  let metresPerDegreeY: Double
  /// Sine and cosine of the position's latitude.
  let sinLatitude: Double
  let cosLatitude: Double
  /// Metres per degree along the parallel, divided by the cosine of latitude (N per degree).
  let primeVerticalPerDegree: Double

  init(_ p: Position) {
    latitude = p.latitude
    longitude = p.longitude
    let degrees = Double.pi / 180
    sinLatitude = sin(p.latitude * degrees)
    cosLatitude = cos(p.latitude * degrees)
    primeVerticalPerDegree = WGS84.primeVerticalRadius(latitude: p.latitude) * degrees
    metresPerDegreeX = primeVerticalPerDegree * cosLatitude
    metresPerDegreeY = WGS84.meridionalRadius(latitude: p.latitude) * degrees
  }

  /// A longitude difference brought into [-180, 180].
  @inline(__always)
  static func wrapped(_ d: Double) -> Double {
    d > 180 ? d - 360 : (d < -180 ? d + 360 : d)
  }

  /// A frame longitude (possibly beyond 180) brought back into [-180, 180].
  @inline(__always)
  static func geographic(_ x: Double) -> Double {
    wrapped(x)
  }

  /// The parameter in [0, 1] of the point of the segment nearest to the plane's origin.
  @inline(__always)
  func footParameter(ax: Double, ay: Double, bx: Double, by: Double) -> Double {
    let px = LocalPlane.wrapped(ax - longitude) * metresPerDegreeX
    let py = (ay - latitude) * metresPerDegreeY
    let dx = (bx - ax) * metresPerDegreeX
    let dy = (by - ay) * metresPerDegreeY
    let length2 = dx * dx + dy * dy
    guard length2 > 0 else { return 0 }
    return min(1, max(0, -(px * dx + py * dy) / length2))
  }

  /// The squared distance from the origin to the segment in the plane whose east scale is that
  /// of the latitude midway between the origin and the segment's middle (the "mid-latitude"
  /// approximation, whose relative error is of second order in the distance), in square metres.
  @inline(__always)
  func midLatitudeDistanceSquared(ax: Double, ay: Double, bx: Double, by: Double) -> Double {
    let cosMid = cosLatitude(midwayTo: (ay + by) * 0.5)
    return distanceSquared(
      ax: ax, ay: ay, bx: bx, by: by, metresPerDegreeX: primeVerticalPerDegree * cosMid)
  }

  /// The cosine of the latitude midway between the origin and `latitude` (degrees), from the
  /// origin's sine and cosine (Taylor to third order in the half step: accurate for small steps
  /// only).
  @inline(__always)
  func cosLatitude(midwayTo latitude: Double) -> Double {
    let delta = (latitude - self.latitude) * (0.5 * .pi / 180)
    let delta2 = delta * delta
    return cosLatitude * (1 - 0.5 * delta2) - sinLatitude * delta * (1 - delta2 / 6)
  }

  /// The squared plane distance from the origin to the segment, with `metresPerDegreeX` as the
  /// east scale, in square metres.
  @inline(__always)
  func distanceSquared(
    ax: Double, ay: Double, bx: Double, by: Double, metresPerDegreeX: Double
  ) -> Double {
    let px = LocalPlane.wrapped(ax - longitude) * metresPerDegreeX
    let py = (ay - latitude) * metresPerDegreeY
    let dx = (bx - ax) * metresPerDegreeX
    let dy = (by - ay) * metresPerDegreeY
    let length2 = dx * dx + dy * dy
    let t = length2 > 0 ? min(1, max(0, -(px * dx + py * dy) / length2)) : 0
    let fx = px + t * dx
    let fy = py + t * dy
    return fx * fx + fy * fy
  }
}
