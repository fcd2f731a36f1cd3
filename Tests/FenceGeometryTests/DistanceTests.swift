import FenceGeometry
import FenceTestSupport
import Testing

@Suite struct DistanceTests {
  /// Point-to-segment distances against GeographicLib (Fixtures/geodesic/segments.csv: the
  /// segment, straight in (lon, lat), sampled densely and refined by golden-section search):
  /// 60 random cases, 15 at latitudes 80 to 89.9, 10 across the antimeridian; points up to 10 km
  /// away, segments up to 10 km long.
  ///
  /// Tolerance: 0.1 m (the spec's requirement at 10 km).
  @Test func segmentDistancesMatchTheReference() throws {
    let rows = try numericRows("geodesic/segments.csv")
    #expect(rows.count == 85)
    for row in rows {
      let p = Position(try Coordinate(latitude: row[0], longitude: row[1]))
      let a = try Coordinate(latitude: row[2], longitude: row[3])
      var endLongitude = row[5]
      if endLongitude > 180 { endLongitude -= 360 } else if endLongitude < -180 { endLongitude += 360 }
      let b = try Coordinate(latitude: row[4], longitude: endLongitude)
      let line = try Polyline([a, b])
      let reversed = try Polyline([b, a])
      #expect(abs(line.distance(from: p) - row[6]) <= 0.1, "\(p.coordinate) to \(a)-\(b)")
      #expect(abs(reversed.distance(from: p) - row[6]) <= 0.1, "\(p.coordinate) to \(b)-\(a)")
    }
  }

  /// A point on a segment is at distance 0 (to rounding), and a vertex at exactly 0.
  @Test func pointsOnTheLineAreAtZero() throws {
    let line = try Polyline([lonLat(-74, 40.5), lonLat(-73.5, 40.75), lonLat(-73, 40.5)])
    #expect(line.distance(from: Position(lonLat(-73.5, 40.75))) == 0)
    #expect(line.distance(from: Position(lonLat(-73.75, 40.625))) < 1e-3)
    #expect(line.boundingBox == BoundingBox(south: 40.5, west: -74, north: 40.75, east: -73))
  }

  /// The indexed nearest-edge search returns what scanning every edge returns, for star
  /// polygons of up to 100,000 vertices and positions inside, outside and far away.
  @Test(arguments: [50, 1_000, 20_000, 100_000])
  func indexedDistanceMatchesScanning(vertexCount: Int) throws {
    var generator = SeededGenerator(seed: 99 + UInt64(vertexCount))
    let star = try starPolygon(
      count: vertexCount, longitude: 2.35, latitude: 48.85, radius: 0.05, jagged: false,
      generator: &generator)
    let samples = vertexCount >= 100_000 ? 12 : 60
    for k in 0..<samples {
      let spread = k % 3 == 0 ? 1.0 : 0.08
      let p = Position(
        lonLat(
          2.35 + Double.random(in: -spread...spread, using: &generator),
          48.85 + Double.random(in: -spread...spread, using: &generator)))
      let indexed = star.distanceToBoundary(from: p)
      let scanned = star.distanceToBoundaryByScanning(from: p)
      #expect(abs(indexed - scanned) <= 1e-9 * max(1, scanned), "\(p.coordinate)")
      let inside = star.contains(latitude: p.latitude, longitude: p.longitude)
      #expect(star.distance(from: p) == (inside ? 0 : indexed))
    }
  }

  /// Distances to a polygon's edges against dense sampling of each edge with WGS84.distance
  /// (every 0.5 m along the nearest edges), including a hole and a polygon across 180.
  ///
  /// Tolerance: 0.1 m.
  @Test func polygonBoundaryDistanceMatchesDenseSampling() throws {
    let square = try polygon(
      [(10, 50), (10.1, 50), (10.1, 50.05), (10, 50.05)],
      holes: [[(10.04, 50.02), (10.06, 50.02), (10.06, 50.03), (10.04, 50.03)]])
    let across = try polygon([(179.95, -16), (-179.95, -16), (-179.95, -15.95), (179.95, -15.95)])
    let cases: [(Polygon, Coordinate)] = [
      (square, lonLat(10.05, 50.025)),  // in the hole
      (square, lonLat(10.02, 50.01)),  // inside
      (square, lonLat(10.15, 50.07)),  // outside, nearest a vertex
      (square, lonLat(10.05, 49.97)),  // outside, south
      (across, lonLat(179.99, -15.99)),
      (across, lonLat(-179.9, -15.97)),
    ]
    for (shape, c) in cases {
      let p = Position(c)
      var reference = Double.infinity
      for ring in shape.rings {
        for i in 0..<(ring.count - 1) {
          reference = min(reference, sampledDistance(from: c, ring[i], ring[i + 1]))
        }
      }
      #expect(abs(shape.distanceToBoundary(from: p) - reference) <= 0.1, "\(c)")
    }
    let hole = Position(lonLat(10.05, 50.025))
    #expect(square.distance(from: hole) > 500)
    #expect(square.distance(from: Position(lonLat(10.02, 50.01))) == 0)
    let parts = try MultiPolygon([square, across])
    #expect(parts.distance(from: hole) == square.distance(from: hole))
    #expect(Area.polygon(parts).distance(from: hole) == square.distance(from: hole))
  }

  /// The minimum of WGS84.distance over points every ~0.5 m along a (lon, lat) segment, with
  /// longitudes unwrapped across 180.
  private func sampledDistance(from c: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
    var dLon = b.longitude - a.longitude
    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
    let length = WGS84.distance(a, b)
    let steps = max(1, Int(length / 0.5))
    var best = Double.infinity
    for k in 0...steps {
      let t = Double(k) / Double(steps)
      var lon = a.longitude + t * dLon
      if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
      best = min(best, WGS84.distance(c, lonLat(lon, a.latitude + t * (b.latitude - a.latitude))))
    }
    return best
  }
}
