#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

import FenceGeometry
import FenceIndex

// Skipping fixes that cannot change anything: after a full evaluation, the device's safe
// radius (the distance to the nearest fence boundary or GEOLINE, capped); a later fix inside it
// only fires timers. See `Docs/EventSemantics.md`, "Skipping fixes that cannot change anything".
extension ZoneEvaluator {
  /// Handles an accepted fix that cannot enter, leave or cross anything: only timers and
  /// bookkeeping.
  mutating func skip(
    _ fix: LocationFix, _ coordinate: Coordinate, device d: Int, into events: inout [ZoneEvent]
  ) {
    let t = fix.time
    skippedFixCount += 1
    fireDueDwells(upTo: t, current: d, fix: fix, into: &events)
    recordLastFix(fix, coordinate, device: d)
  }

  /// Metres per degree of latitude or longitude never exceed this: the largest radius of
  /// curvature of the WGS84 ellipsoid (at the poles, a / sqrt(1 - e²)), in metres per degree,
  /// rounded up.
  static let metresPerDegreeBound =
    WGS84.semiMajorAxis / (1 - WGS84.eccentricitySquared).squareRoot() * .pi / 180 * (1 + 1e-9)

  /// The largest safe radius noted, in metres: fence boundaries are measured up to this far.
  static let largestSafeRadius = safeRadiusLimit

  /// Degrees of latitude, more than ``safeRadiusLimit`` metres anywhere (at least 110,574 m a
  /// degree): a fix farther in latitude from the safe centre is never skipped in degrees.
  static let safeLatitudeBand = 0.003

  /// Whether a fix at `coordinate` provably lies inside the device's safe radius (with a 0.5 m
  /// margin), judged in degrees without trigonometry.
  ///
  /// The length of the straight path in latitude and longitude from the safe centre bounds the
  /// WGS84 distance, which bounds the ECEF chord from above; that length is at most the
  /// Euclidean combination of the degree differences scaled by the largest metres per degree
  /// on the path. So a `true` here implies a `true` from ``canSkip(_:device:)``, which decides
  /// whenever this says `false`; the skipped fixes are exactly the same.
  @inline(__always)
  func canSkipInDegrees(_ coordinate: Coordinate, device d: Int) -> Bool {
    guard configuration.skipsUnchangedFixes, configuration.proximity == nil else { return false }
    return devices.withUnsafeBufferPointer { devices in
      let device = devices[d]
      guard device.hasFix, device.safeRadius > 0, device.safeGeneration == zoneGeneration
      else { return false }
      let latitudeMetres = (coordinate.latitude - device.safeLatitude) * Self.metresPerDegreeBound
      var degrees = abs(coordinate.longitude - device.safeLongitude)
      if degrees > 180 { degrees = 360 - degrees }
      let longitudeMetres = degrees * device.safeMetresPerDegreeLongitude
      let bound = (latitudeMetres * latitudeMetres + longitudeMetres * longitudeMetres)
        .squareRoot()
      // NaN (no centre in degrees) compares false.
      return bound * (1 + 1e-9) + 0.5 < device.safeRadius
    }
  }

  /// Whether a fix at `position` lies inside the device's safe radius (with a 0.5 m margin),
  /// so that neither it nor the movement to it can change any zone state: one ECEF distance.
  @inline(__always)
  func canSkip(_ position: Position, device d: Int) -> Bool {
    guard configuration.skipsUnchangedFixes, configuration.proximity == nil,
      devices[d].hasFix, devices[d].safeRadius > 0,
      devices[d].safeGeneration == zoneGeneration
    else { return false }
    // The chord is within a micrometre of the arc at these distances; both ends of the
    // movement lie in the disc, and so does the straight segment between them.
    return devices[d].safeCenter.chord(to: position.ecef) + 0.5 < devices[d].safeRadius
  }

  /// Notes how far from `position` the device can move without any fence boundary or GEOLINE
  /// in reach, after a full evaluation; 0 while an exit is pending or a stay holds only through
  /// hysteresis (those change state on fixes that move nowhere).
  ///
  /// `insideBoundary` is the distance to the boundary of the nearest fence holding the position
  /// (from
  /// ``markInside(at:position:records:filter:current:previous:measuringBoundary:)``); the nearest
  /// other fence and the nearest GEOLINE within what is left come from box searches. A
  /// radius no larger than 0.5 m plus `movement` (metres from the previous fix) would not let
  /// a device at that pace skip its next fix, so it is not worth searching for: it is noted
  /// as 0. `movement` is measured only when the rest leaves a radius above 0.5 m.
  mutating func noteSafeRadius(
    around position: Position, device d: Int, insideBoundary: Double, isFirst: Bool
  ) {
    var safe = min(Self.safeRadiusLimit, insideBoundary)
    for r in devices[d].records.indices where devices[d].records[r].presence != .outside {
      if devices[d].records[r].exitCount > 0 || devices[d].records[r].fenceNow < 0 { safe = 0 }
    }
    var useful = 0.5
    if safe > useful, !isFirst {
      useful += ECEFPosition(devices[d].lastCoordinate).chord(to: position.ecef)
    }
    if safe <= useful { safe = 0 }
    if safe > 0 {
      safe = nearestBoundary(to: position, within: safe, records: devices[d].records)
      if safe <= useful { safe = 0 }
    }
    devices[d].safeCenter = position.ecef
    devices[d].safeRadius = safe
    devices[d].safeGeneration = zoneGeneration
    devices[d].safeLatitude = position.latitude
    devices[d].safeLongitude = position.longitude
    // The largest cosine of latitude within the band around the centre.
    let nearestToEquator = max(0, abs(position.latitude) - Self.safeLatitudeBand)
    devices[d].safeMetresPerDegreeLongitude =
      Self.metresPerDegreeBound * cos(nearestToEquator * .pi / 180) * (1 + 1e-9)
  }

  /// The distance to the nearest fence boundary or GEOLINE when within `radius` metres, else
  /// `radius`; the boundaries of the fences named by a record's `fenceNow` in `records` (the
  /// fences holding `position` that the caller measured) are left out.
  ///
  /// One box search per index over the box that holds the disc of `radius`
  /// (``BoundingBox/reach(around:metres:)``), measuring each element it reports with the best
  /// distance so far as the cap (``fenceDistanceToBoundary(_:from:within:cores:polygons:)``):
  /// within a radius of at most ``largestSafeRadius`` that is few elements, and box
  /// comparisons cost far less than a best-first search's spherical bounds and queue. Every
  /// reported fence is measured to its boundary whether or not it holds the position, so no
  /// containment test is needed. Not mutating, so that the closures borrow the evaluator
  /// instead of copying it.
  func nearestBoundary(
    to position: Position, within radius: Double, records: [ZoneRecord]
  ) -> Double {
    var safe = radius
    let reach = BoundingBox.reach(around: position.coordinate, metres: radius)
    let cores = elementCores
    let polygons = polygonFences
    fenceIndex.search(intersecting: reach) { slot in
      guard safe > 0 else { return }
      if cores[Int(slot)].kind == .polygon {
        // A polygon measured by the caller: its full search would only repeat that one.
        let (r, found) = records.recordIndex(of: cores[Int(slot)].zone)
        if found, records[r].fenceNow == slot { return }
      }
      safe = Self.fenceDistanceToBoundary(
        slot, from: position, within: safe, cores: cores, polygons: polygons)
    }
    if safe > 0, !geolineIndex.isEmpty {
      let reach = BoundingBox.reach(around: position.coordinate, metres: safe)
      geolineIndex.search(intersecting: reach) { slot in
        guard safe > 0 else { return }
        safe = min(safe, geolineDistance(slot, from: position))
      }
    }
    return safe
  }

  /// Metres from a position to the fence's boundary when less than ``largestSafeRadius``, else
  /// that limit (no safe radius can use more): `Area.distanceToBoundary(from:within:)`.
  func fenceDistanceToBoundary(_ slot: Int32, from position: Position) -> Double {
    Self.fenceDistanceToBoundary(
      slot, from: position, within: Self.largestSafeRadius, cores: elementCores,
      polygons: polygonFences)
  }

  /// Metres from a position to the boundary of the fence in `slot` on the given element tables
  /// when less than `limit`, else `limit` (infinity: the exact distance). A polygon's search
  /// visits only the edge chunks within `limit`.
  static func fenceDistanceToBoundary(
    _ slot: Int32, from position: Position, within limit: Double = .infinity,
    cores: [ElementCore], polygons: [PolygonFence?]
  ) -> Double {
    let core = cores[Int(slot)]
    switch core.kind {
    case .circle:
      return min(limit, abs(core.circleDistanceFromCenter(position.ecef) - core.radius))
    case .polygon:
      guard let polygon = polygons[Int(slot)] else { return limit }
      return polygon.shape.distanceToBoundary(from: position, within: limit)
    case .geoline, .vacant: return limit
    }
  }

  /// Metres from a position to the GEOLINE in `slot`.
  func geolineDistance(_ slot: Int32, from position: Position) -> Double {
    guard case .geoline(let line, _)? = elements[Int(slot)]?.shape else { return .infinity }
    return line.distance(from: position)
  }
}
