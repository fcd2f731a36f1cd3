import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// The edge-indexed containment and distance on real outlines (the NYC boroughs, 76k vertices
/// with many islands), checked against plain ray casting and scanning every edge. Skipped when
/// the shared data folder is absent.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: sharedDataPath("fences/nyc-boroughs.geojson"))))
struct RealPolygonTests {
  @Test func boroughContainmentAndDistanceMatchTheReferences() throws {
    let boroughs = try PolygonFixtures.read(
      path: sharedDataPath("fences/nyc-boroughs.geojson"), nameProperty: "name")
    #expect(boroughs.count == 5)
    var generator = SeededGenerator(seed: 5)
    var insideCount = 0
    for borough in boroughs {
      let box = borough.shape.boundingBox
      let vertices = borough.shape.polygons.flatMap { $0.rings.joined() }
      for k in 0..<300 {
        let c: Coordinate
        if k % 3 == 0 {
          c = vertices[Int.random(in: 0..<vertices.count, using: &generator)]
        } else {
          c = lonLat(
            Double.random(in: box.west...box.east, using: &generator),
            Double.random(in: box.south...box.north, using: &generator))
        }
        let indexed = borough.shape.contains(latitude: c.latitude, longitude: c.longitude)
        let plain = borough.shape.polygons.contains {
          $0.containsByRayCasting(latitude: c.latitude, longitude: c.longitude)
        }
        #expect(indexed == plain, "\(borough) \(c)")
        if k % 3 == 0 { #expect(indexed, "a vertex is on the boundary: \(c)") }
        if indexed { insideCount += 1 }
        if k % 15 == 1 {
          let p = Position(c)
          let scanned = borough.shape.polygons.map { $0.distanceToBoundaryByScanning(from: p) }
            .min() ?? .infinity
          #expect(abs(borough.shape.distanceToBoundary(from: p) - scanned) <= 1e-9 * max(1, scanned))
        }
      }
    }
    #expect(insideCount > 500)
  }
}
