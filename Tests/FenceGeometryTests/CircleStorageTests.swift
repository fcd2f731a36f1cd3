import FenceGeometry
import Foundation
import Testing

/// A circle keeps its centre and radius only; what its tests need is computed when read, the
/// same values whichever way (its ``Circle/chordTest`` or its own properties).
@Suite struct CircleStorageTests {
  @Test func aCircleKeepsItsCentreAndRadiusOnly() {
    #expect(MemoryLayout<Circle>.size == 24)
  }

  @Test func derivedValuesFollowTheirFormulas() throws {
    for (latitude, longitude, radius) in [
      (40.7, -74.0, 250.0), (0.0, 0.0, 1.0), (-89.9, 179.5, 50_000.0), (60.25, 24.95, 0.5),
    ] {
      let center = try Coordinate(latitude: latitude, longitude: longitude)
      let circle = try Circle(center: center, radius: radius)
      let localRadius = WGS84.gaussianRadius(latitude: latitude)
      let chord = WGS84.chord(arc: radius, radius: localRadius)
      #expect(circle.centerECEF == ECEFPosition(center))
      #expect(circle.localRadius.bitPattern == localRadius.bitPattern)
      #expect(circle.chordSquaredLimit.bitPattern == (chord * chord).bitPattern)
      #expect(circle.chordTest.centerECEF == circle.centerECEF)
      #expect(circle.chordTest.chordSquaredLimit.bitPattern == circle.chordSquaredLimit.bitPattern)
    }
  }

  /// The chord test answers as the circle on both sides of its edge.
  @Test func theChordTestAnswersAsTheCircle() throws {
    let center = try Coordinate(latitude: 40.7, longitude: -74.0)
    let circle = try Circle(center: center, radius: 300)
    let test = circle.chordTest
    var inside = 0
    for step in 0..<400 {
      let bearing = Double(step) * 0.9
      let metres = 290 + Double(step % 21)
      let north = metres * cos(bearing * .pi / 180)
      let east = metres * sin(bearing * .pi / 180)
      let position = ECEFPosition(
        latitude: 40.7 + north / 111_000, longitude: -74.0 + east / 84_300)
      #expect(test.contains(position) == circle.contains(position))
      if circle.contains(position) { inside += 1 }
    }
    // Both sides of the edge were reached.
    #expect(inside > 50 && inside < 350)
  }
}
