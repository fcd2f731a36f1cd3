import FenceGeometry
import Testing

@Suite struct BoundingBoxTests {
  @Test func aBoxAcrossTheAntimeridianHolds180NotZero() {
    let box = BoundingBox(south: -10, west: 170, north: 10, east: -170)
    #expect(box.crossesAntimeridian)
    #expect(box.contains(latitude: 0, longitude: 180))
    #expect(box.contains(latitude: 0, longitude: -180))
    #expect(box.contains(latitude: 0, longitude: 175))
    #expect(box.contains(latitude: 0, longitude: -175))
    #expect(!box.contains(latitude: 0, longitude: 0))
    #expect(!box.contains(latitude: 0, longitude: 160))
    #expect(!box.contains(latitude: 11, longitude: 180))
    #expect(box.intersects(BoundingBox(south: 0, west: -175, north: 1, east: -160)))
    #expect(!box.intersects(BoundingBox(south: 0, west: 0, north: 1, east: 10)))
  }

  @Test func aMultipolygonAcrossTheAntimeridianGetsACrossingBox() throws {
    let parts = try MultiPolygon([
      polygon([(170, 0), (179, 0), (179, 1), (170, 1)]),
      polygon([(-179, 0), (-170, 0), (-170, 1), (-179, 1)]),
    ])
    #expect(parts.boundingBox == BoundingBox(south: 0, west: 170, north: 1, east: -170))
  }

  @Test func aCircleHoldingThePoleSpansEveryLongitude() throws {
    let circle = try Circle(center: lonLat(30, 89.99), radius: 5_000)
    let box = circle.boundingBox
    #expect(box.north == 90)
    #expect(box.west == -180 && box.east == 180)
    #expect(box.south < 89.99 - 5_000 / 111_700)
  }

  @Test func aCircleAcrossTheAntimeridianGetsACrossingBox() throws {
    let circle = try Circle(center: lonLat(179.99, 0), radius: 10_000)
    let box = circle.boundingBox
    #expect(box.crossesAntimeridian)
    #expect(box.contains(latitude: 0, longitude: 180))
    #expect(box.contains(latitude: 0, longitude: -179.95))
    #expect(!box.contains(latitude: 0, longitude: -179.8))
    #expect(!box.contains(latitude: 0, longitude: 0))
  }

  /// Every point of a circle's edge (found by bisection along 72 bearings) lies in its box,
  /// for circles at the equator, at mid latitudes, near a pole and across 180.
  @Test(arguments: [(0.0, 10.0, 1_000.0), (-74.0, 40.7, 10_000), (170, 80, 20_000),
    (179.995, -30, 5_000), (0, -88, 50_000)])
  func circleEdgeLiesInItsBox(longitude: Double, latitude: Double, radius: Double) throws {
    let circle = try Circle(center: lonLat(longitude, latitude), radius: radius)
    let box = circle.boundingBox
    for k in 0..<72 {
      let angle = Double(k) * 5 * .pi / 180
      // Bisection on the step along the bearing (degrees of arc in a local plane).
      var low = 0.0
      var high = 3 * radius / 111_000
      func point(_ s: Double) -> Coordinate {
        let lat = min(90, max(-90, latitude + s * cos(angle)))
        var lon = longitude + s * sin(angle) / max(1e-9, cos(lat * .pi / 180))
        lon = lon.truncatingRemainder(dividingBy: 360)
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return lonLat(lon, lat)
      }
      for _ in 0..<60 {
        let mid = (low + high) / 2
        if WGS84.distance(circle.center, point(mid)) <= radius { low = mid } else { high = mid }
      }
      let edge = point(low)
      // On the edge to bisection precision (contains() would decide a nanometre either way).
      #expect(abs(circle.distanceFromCenter(ECEFPosition(edge)) - radius) <= 1e-6)
      #expect(box.contains(edge), "\(edge) outside \(box)")
    }
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
