import FenceEngine
import FenceGeometry

/// A small fixed zone set in New York Harbor that uses every rule the evaluator keeps state
/// for: a circle with dwell, retrigger window, exit hysteresis and two exit confirmations; a
/// polygon with a hole whose zone does not check out; a GEOLINE; so that a restored snapshot
/// can hold stays, dwell timers, pending exits, retrigger windows and monitored sets.
///
/// The snapshot and store targets restore into evaluators loaded with these zones, and their
/// seed corpora were written from evaluators loaded with them.
public enum FixtureZones {
  /// The Battery, the middle of the set.
  public static let center = Coordinate(uncheckedLatitude: 40.7003, longitude: -74.0153)

  /// Coordinates `east` and `north` metres from ``center``.
  public static func offset(east: Double, north: Double) -> Coordinate {
    Coordinate(
      uncheckedLatitude: center.latitude + north / 111_320,
      longitude: center.longitude + east / 84_400)
  }

  /// The zones (ids `battery`, `basin`, `line`).
  public static func zones() -> [Zone] {
    do {
      let battery = Zone(
        id: "battery", customData: ["pier": .number(1)],
        fences: [try Fence.circle(id: "battery-circle", center: center, radius: 150)],
        rules: ZoneRules(
          minimumRetriggerTime: 30, dwell: 60, exitHysteresis: 20, exitConfirmations: 2))
      let square = [
        offset(east: 300, north: -200), offset(east: 700, north: -200),
        offset(east: 700, north: 200), offset(east: 300, north: 200), offset(east: 300, north: -200),
      ]
      let hole = [
        offset(east: 450, north: -50), offset(east: 550, north: -50), offset(east: 550, north: 50),
        offset(east: 450, north: 50), offset(east: 450, north: -50),
      ]
      let basin = Zone(
        id: "basin",
        fences: [
          Fence(id: "basin-square", area: .polygon(MultiPolygon(try Polygon(exterior: square, holes: [hole]))))
        ],
        rules: ZoneRules(dwell: 0, checkOut: false))
      let line = Zone(
        id: "line",
        geolines: [
          Geoline(
            id: "line-1",
            line: try Polyline([offset(east: -300, north: -400), offset(east: -300, north: 400)]),
            direction: .leftToRight)
        ])
      return [battery, basin, line]
    } catch {
      fatalError("the fixture zones do not build: \(error)")
    }
  }

  /// Positions that visit every zone: inside the circle, in its hysteresis ring, outside,
  /// inside the square, in its hole, and on both sides of the GEOLINE.
  public static let stops: [Coordinate] = [
    center, offset(east: 160, north: 0), offset(east: 0, north: 400), offset(east: 400, north: 0),
    offset(east: 500, north: 0), offset(east: -400, north: 0), offset(east: -200, north: 0),
  ]
}
