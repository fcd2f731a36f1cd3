#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A lower bound, in metres, of the WGS84 distance from one position to anything inside a
/// (longitude, latitude) box of a frame.
///
/// With geodetic latitude and longitude as coordinates, the ellipsoid's metric is
/// `ds² = M² dφ² + N² cos²φ dλ²`, and `N ≥ M`, both growing with `|φ|`. The shortest path
/// between two positions of one hemisphere stays poleward of the lower of their latitudes, so
/// along it the metric is nowhere shorter than that of a sphere of radius `R = M(φ_low)`, the
/// meridional radius at the lower latitude (across the equator, the smallest radius
/// `a(1 − e²)`). Spherical distances on that sphere therefore never exceed the true one. The
/// spherical haversine `sin²(θ/2) = sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2)` grows with `|Δφ|`,
/// `|Δλ|` and `cos φ₂`, so the box's latitude gap, longitude gap (modulo 360, at most 180) and
/// smallest cosine of latitude bound it from below; `sin x ≥ x − x³/6` and `asin x ≥ x` avoid any
/// trigonometry per box. ``WGS84/distance(_:_:)`` measures arcs with a local radius and may fall
/// short of the geodesic by about `θ²e²/24` relative; the bound allows `θ²/100`.
///
/// Near the position (reach under 0.1 radian, latitude under 70 degrees) a second bound is
/// taken and the larger one kept: the mid-latitude plane distance (east scale at the latitude
/// midway between the position and the box's end that makes it smallest), less the plane's
/// relative error allowance (`ρ²/(2 cos²φ)` at an angular reach `ρ`, plus 1 % per radian of
/// latitude for the radii's change). The sphere's radius is the smaller of M and N, so the
/// plane bound is the sharper one for boxes east or west of the position.
struct BoxDistanceBound {
  /// The plane around the position: its coordinates, its latitude's sine and cosine, and the
  /// radii of curvature there per degree.
  let plane: LocalPlane
  /// The meridional radius at the position's latitude.
  let radius: Double
  /// Whether the plane bound applies at this latitude.
  let usePlane: Bool
  /// `1 / cos²φ`.
  let secant2: Double

  init(_ p: Position) {
    self.init(LocalPlane(p))
  }

  /// The bound around the origin of `plane` (whose sines, cosines and radii it reuses).
  init(_ plane: LocalPlane) {
    self.plane = plane
    radius = WGS84.meridionalRadius(latitude: plane.latitude)
    usePlane = abs(plane.latitude) < 70
    secant2 = 1 / (plane.cosLatitude * plane.cosLatitude)
  }

  /// The bound for the box `minX ... maxX` by `minY ... maxY` (frame degrees, longitudes in
  /// [-180, 360]) whose smallest cosine of latitude is `cosMin` and whose meridional radius at
  /// the latitude nearest the equator is `boxRadius`.
  @inline(__always)
  func metres(
    minX: Double, minY: Double, maxX: Double, maxY: Double, cosMin: Double, boxRadius: Double
  ) -> Double {
    let x = plane.longitude
    let y = plane.latitude
    let cosLatitude = plane.cosLatitude
    let dLat = max(0, minY - y, y - maxY)
    var dLon = max(0, minX - x, x - maxX)
    if dLon > 0 {
      dLon = min(dLon, max(0, minX - (x + 360), (x + 360) - maxX))
      dLon = min(dLon, max(0, minX - (x - 360), (x - 360) - maxX), 180)
    }
    let halfLat = dLat * (.pi / 360)
    let halfLon = dLon * (.pi / 360)
    let sinLat = halfLat - halfLat * halfLat * halfLat / 6
    let sinLon = halfLon - halfLon * halfLon * halfLon / 6
    let haversine = sinLat * sinLat + cosLatitude * cosMin * sinLon * sinLon
    let oneHemisphere = (y >= 0 && minY >= 0) || (y <= 0 && maxY <= 0)
    let sphere = oneHemisphere ? min(radius, boxRadius) : WGS84.minimumRadiusOfCurvature
    let angle = 2 * haversine.squareRoot()
    let spherical = sphere * angle * (1 - 0.01 * angle * angle)
    guard usePlane else { return spherical }
    // The plane bound, in the frame turn nearest the box's middle.
    let middle = (minX + maxX) * 0.5
    let px = abs(x + 360 - middle) < abs(x - middle) ? x + 360 : x
    let planeLon = max(0, minX - px, px - maxX)
    let longitudeReach = max(abs(minX - px), abs(maxX - px)) * (.pi / 180)
    let latitudeReach = max(abs(minY - y), abs(maxY - y)) * (.pi / 180)
    let reach = max(latitudeReach, longitudeReach * cosLatitude)
    guard reach < 0.1 else { return spherical }
    let eastScale =
      plane.primeVerticalPerDegree
      * min(plane.cosLatitude(midwayTo: minY), plane.cosLatitude(midwayTo: maxY))
    let north = plane.metresPerDegreeY * dLat
    let east = eastScale * planeLon
    let slack = 0.5 * reach * reach * secant2 + 0.01 * latitudeReach + 1e-6
    return max(spherical, (north * north + east * east).squareRoot() * (1 - slack))
  }

  /// The bound for node `node` of a ``ChunkTree``'s flat node array.
  @inline(__always)
  func metres(node: Int, of nodes: UnsafeBufferPointer<Float>) -> Double {
    let n = ChunkTree.stride * node
    return metres(
      minX: Double(nodes[n]), minY: Double(nodes[n + 1]), maxX: Double(nodes[n + 2]),
      maxY: Double(nodes[n + 3]), cosMin: Double(nodes[n + 4]), boxRadius: Double(nodes[n + 5]))
  }
}
