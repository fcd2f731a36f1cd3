import ArgumentParser
import FenceGeometry

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The area synthetic data is placed in, given on the command line as `WEST,SOUTH,EAST,NORTH`
/// in degrees (the order of a GeoJSON `bbox`).
///
/// The box must not cross the antimeridian (`west < east`) and must lie within latitudes
/// -85...85 so that metre-to-degree conversions stay meaningful.
struct GeneratorBox: ExpressibleByArgument, Hashable, Sendable {
  var west: Double
  var south: Double
  var east: Double
  var north: Double

  /// New York harbor and the city, the default area.
  static let newYork = GeneratorBox(west: -74.3, south: 40.5, east: -73.7, north: 40.9)

  init(west: Double, south: Double, east: Double, north: Double) {
    self.west = west
    self.south = south
    self.east = east
    self.north = north
  }

  init?(argument: String) {
    let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map {
      Double(trimmingWhitespace($0))
    }
    guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2],
      let n = parts[3], w.isFinite, s.isFinite, e.isFinite, n.isFinite,
      -180 <= w, w < e, e <= 180, -85 <= s, s < n, n <= 85
    else { return nil }
    self.init(west: w, south: s, east: e, north: n)
  }

  var defaultValueDescription: String { "\(west),\(south),\(east),\(north)" }

  var midLatitude: Double { (south + north) / 2 }

  /// Metres per degree of latitude near the box's middle.
  var metresPerDegreeLatitude: Double {
    WGS84.meridionalRadius(latitude: midLatitude) * .pi / 180
  }

  /// Metres per degree of longitude near the box's middle.
  var metresPerDegreeLongitude: Double {
    WGS84.primeVerticalRadius(latitude: midLatitude) * cos(midLatitude * .pi / 180) * .pi / 180
  }

  /// A uniform random position in the box (uniform in degrees).
  func randomPosition(using random: inout SplitMix64) -> (latitude: Double, longitude: Double) {
    let latitude = random.uniform(south...north)
    let longitude = random.uniform(west...east)
    return (latitude, longitude)
  }
}

/// A range of metres given as `LOW...HIGH` (or one value), for radii and step lengths.
struct MetreRange: ExpressibleByArgument, Hashable, Sendable {
  var range: ClosedRange<Double>

  init(_ range: ClosedRange<Double>) { self.range = range }

  init?(argument: String) {
    let low: Double?
    let high: Double?
    if let dots = argument.firstRange(of: "...") {
      low = Double(argument[..<dots.lowerBound])
      high = Double(argument[dots.upperBound...])
    } else {
      low = Double(argument)
      high = low
    }
    guard let low, let high, low.isFinite, high.isFinite, low > 0, low <= high else { return nil }
    range = low...high
  }

  var defaultValueDescription: String {
    range.lowerBound == range.upperBound
      ? "\(range.lowerBound)" : "\(range.lowerBound)...\(range.upperBound)"
  }
}

/// `text` without the whitespace at either end (the tool links no Foundation for
/// `trimmingCharacters(in:)`: see decision 0012, its last entries).
private func trimmingWhitespace(_ text: Substring) -> Substring {
  guard let first = text.firstIndex(where: { !$0.isWhitespace }),
    let last = text.lastIndex(where: { !$0.isWhitespace })
  else { return "" }
  return text[first...last]
}
