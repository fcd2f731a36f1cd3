import FenceGeometry

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A simple equirectangular projection of a lat/lon box onto a picture at most `size` units
/// wide and high, with longitudes shrunk by the cosine of the box's middle latitude so shapes
/// keep their proportions near that latitude.
///
/// y grows southwards (screen convention). The box does not wrap the antimeridian: data across
/// it is drawn stretched.
struct MapProjection: Sendable {
  let west: Double
  let north: Double
  let lonScale: Double
  let latScale: Double
  let width: Double
  let height: Double
  /// Picture units per metre (near the middle latitude).
  let unitsPerMetre: Double

  /// Fits `box` (south, west, north, east degrees), padded by `padding` (a fraction of its
  /// size) on each side, into a `size` × `size` square. A degenerate box is widened to about
  /// 1 km.
  init(
    south: Double, west: Double, north: Double, east: Double, size: Double = 1000,
    padding: Double = 0.04
  ) {
    var (s, w, n, e) = (south, west, north, east)
    if !(s <= n && w <= e) { (s, w, n, e) = (-1, -1, 1, 1) }
    if n - s < 0.01 { s -= 0.005; n += 0.005 }
    if e - w < 0.01 { w -= 0.005; e += 0.005 }
    let padLat = (n - s) * padding
    let padLon = (e - w) * padding
    s -= padLat; n += padLat; w -= padLon; e += padLon
    let midLatitude = (s + n) / 2 * .pi / 180
    let shrink = max(cos(midLatitude), 0.05)
    let scale = min(size / ((e - w) * shrink), size / (n - s))
    self.west = w
    self.north = n
    self.latScale = scale
    self.lonScale = scale * shrink
    // Whole units, without a unit more for a rounding error (1000.0000000001 is 1000).
    self.width = ((e - w) * lonScale - 1e-6).rounded(.up)
    self.height = ((n - s) * latScale - 1e-6).rounded(.up)
    self.unitsPerMetre = scale / (WGS84.meridionalRadius(latitude: (s + n) / 2) * .pi / 180)
  }

  @inline(__always)
  func x(_ longitude: Double) -> Double { (longitude - west) * lonScale }

  @inline(__always)
  func y(_ latitude: Double) -> Double { (north - latitude) * latScale }
}
