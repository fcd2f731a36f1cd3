import FenceGeometry
import FenceTestSupport
import Foundation

// Small constructors shared by this target's tests (the seeded generator is
// FenceTestSupport's `SeededGenerator`).

/// A coordinate from (longitude, latitude), the order GeoJSON and the tables here use.
func lonLat(_ longitude: Double, _ latitude: Double) -> Coordinate {
  Coordinate(uncheckedLatitude: latitude, longitude: longitude)
}

/// A closed ring from (longitude, latitude) pairs; the first pair is repeated at the end.
func ring(_ points: [(Double, Double)]) -> [Coordinate] {
  let ring = points.map { lonLat($0.0, $0.1) }
  return ring + [ring[0]]
}

/// A polygon from (longitude, latitude) rings; the tables here are valid, so it cannot throw.
func polygon(_ exterior: [(Double, Double)], holes: [[(Double, Double)]] = []) throws -> Polygon {
  try Polygon(exterior: ring(exterior), holes: holes.map(ring))
}


/// A star-shaped polygon of `count` vertices around (`longitude`, `latitude`), its radius in
/// degrees varying as a random walk (`jagged` adds independent spikes on top).
func starPolygon(
  count: Int, longitude: Double, latitude: Double, radius: Double, jagged: Bool,
  generator: inout SeededGenerator
) throws -> Polygon {
  var points: [(Double, Double)] = []
  var r = 1.0
  for i in 0..<count {
    let angle = Double(i) / Double(count) * 2 * .pi
    let step = min(0.02, 2 / Double(count))  // smooth at any vertex count
    r = min(1.2, max(0.6, r + Double.random(in: -step...step, using: &generator)))
    let spike = jagged ? Double.random(in: 0...0.3, using: &generator) : 0
    let radial = radius * (r + spike)
    var lon = longitude + radial * cos(angle)
    if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
    points.append((lon, latitude + radial * sin(angle)))
  }
  return try polygon(points)
}

/// ``starPolygon(count:longitude:latitude:radius:jagged:generator:)``'s jagged star with its
/// coordinates rounded to `decimals` places (at most 6), as a zone file's text gives them: an
/// index of at least 32 edges keeps them packed (decision 0018).
func decimalStarPolygon(
  count: Int, longitude: Double, latitude: Double, radius: Double, decimals: Int, seed: UInt64
) throws -> Polygon {
  try Polygon(
    exterior: decimalStarRing(
      count: count, longitude: longitude, latitude: latitude, radius: radius, decimals: decimals,
      seed: seed))
}

/// The ring of ``decimalStarPolygon(count:longitude:latitude:radius:decimals:seed:)``, as given
/// to the polygon.
func decimalStarRing(
  count: Int, longitude: Double, latitude: Double, radius: Double, decimals: Int, seed: UInt64
) throws -> [Coordinate] {
  var generator = SeededGenerator(seed: seed)
  let star = try starPolygon(
    count: count, longitude: longitude, latitude: latitude, radius: radius, jagged: true,
    generator: &generator)
  let power = [1.0, 10, 100, 1_000, 10_000, 100_000, 1_000_000][decimals]
  return star.exterior.map {
    lonLat(($0.longitude * power).rounded() / power, ($0.latitude * power).rounded() / power)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The rows of a CSV fixture under `Fixtures/` as numbers, header skipped.
func numericRows(_ name: String, filePath: String = #filePath) throws -> [[Double]] {
  // This file is Tests/FenceGeometryTests/TestGeometry.swift: the root is three levels up.
  let root = filePath.split(separator: "/").dropLast(3).joined(separator: "/")
  let text = try String(contentsOfFile: "/\(root)/Fixtures/\(name)", encoding: .utf8)
  return text.split(separator: "\n").dropFirst().map { line in
    line.split(separator: ",").map { Double(String($0)) ?? .nan }
  }
}

/// `count` seeded points (latitude, longitude) from 18.5 to 21.5 N and 8.5 to 11.5 E: around and
/// inside a star of radius 1 degree centred on (20 N, 10 E).
func pointsAroundStar(count: Int, seed: UInt64) -> [(Double, Double)] {
  var generator = SeededGenerator(seed: seed)
  return (0..<count).map { _ in
    (Double.random(in: 18.5...21.5, using: &generator), Double.random(in: 8.5...11.5, using: &generator))
  }
}
