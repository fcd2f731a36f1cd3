import FenceEngine
import FenceGeometry
import FuzzSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One case of the differential target, drawn from the fuzzer's bytes: an evaluator
/// configuration, zones of fences within the reference model's rules (a retrigger window of 0,
/// 30 or 300 s, one to three exit confirmations, initial trigger on or off), and a stream of
/// steps.
///
/// Everything is placed on a grid around one of a few places (mid-latitude, next to null
/// island, on the antimeridian, near each pole), with a grid step from half a metre to 300
/// metres, so that fixes land inside, outside and exactly on fences (a step can put a fix on
/// a polygon vertex or a circle's centre).
struct DifferentialCase {
  enum Step {
    case fix(LocationFix)
    case advance(Timestamp)
    /// Snapshot the evaluator, decode, and restore into a fresh one loaded in reverse order.
    case snapshotRoundTrip
  }

  var configuration = ZoneEvaluator.Configuration()
  var zones: [Zone] = []
  var steps: [Step] = []

  static let places: [(latitude: Double, longitude: Double)] = [
    (40.7, -74.0), (0.0004, 0.0003), (-33.9, 179.9995), (89.995, 10), (-89.99, -170),
    (0, -180), (51.5, 0),
  ]
  static let gridSteps = [0.5, 5, 40, 300]
  static let zoneIDs = ["z0", "z1", "z2"]
  static let deviceIDs = ["d0", "d1", "d2"]
  static let maximumSteps = 150

  init(_ input: inout FuzzBytes) {
    let flags = input.byte()
    configuration.skipsUnchangedFixes = flags & 1 != 0
    configuration.cellCacheCapacity = [65_536, 0, 1, 16][Int(flags >> 1 & 3)]
    if flags & 8 != 0 { configuration.predicateBackend = .geosPrepared }
    if flags & 16 != 0 { configuration.maximumSpeed = 30 }
    if flags & 32 != 0 { configuration.maximumAccuracy = 20 }
    let place = Self.places[input.choice(Self.places.count)]
    let grid = Self.gridSteps[input.choice(Self.gridSteps.count)]
    let frame = Frame(latitude: place.latitude, longitude: place.longitude, metres: grid)

    // Fences, each in one of the zones.
    var fencesByZone: [String: [Fence]] = [:]
    var markers: [Coordinate] = []
    let fenceCount = 1 + input.choice(6)
    for index in 0..<fenceCount {
      let kind = input.byte()
      let zone = Self.zoneIDs[input.choice(Self.zoneIDs.count)]
      let center = frame.coordinate(east: Double(input.int8()) * 4, north: Double(input.int8()) * 4)
      let size = Double(1 + Int(input.byte())) * 2
      let id = "f\(index)"
      guard let center, let made = frame.fence(id: id, kind: kind, center: center, size: size)
      else { continue }
      fencesByZone[zone, default: []].append(made.fence)
      markers.append(center)
      markers.append(contentsOf: made.vertices)
    }
    // Rules within the reference model: retrigger window, exit confirmations, initial trigger.
    zones = fencesByZone.keys.sorted().map { id in
      let rules = input.byte()
      return Zone(
        id: id, fences: fencesByZone[id]!,
        rules: ZoneRules(
          minimumRetriggerTime: [0, 0, 30, 300][Int(rules & 3)], checkOut: true,
          initialTrigger: rules & 4 == 0, exitConfirmations: 1 + Int(rules >> 3 & 3) % 3))
    }

    // Steps.
    var clock: Int64 = 1_600_000_000_000_000
    while !input.isAtEnd && steps.count < Self.maximumSteps {
      let code = input.byte()
      switch code {
      case 0xF8...0xFB:
        steps.append(.advance(Timestamp(microsecondsSinceEpoch: clock + Int64(input.byte()) * 1_000_000)))
      case 0xFC...0xFF:
        steps.append(.snapshotRoundTrip)
      default:
        let device = Self.deviceIDs[Int(code) % Self.deviceIDs.count]
        // Half seconds, so that some fixes of a device are out of order or duplicates.
        clock += Int64(input.int8()) * 500_000
        let east = Double(input.int8())
        let north = Double(input.int8())
        var latitude = Double.nan
        var longitude = Double.nan
        switch code {
        case 0xF0: break  // NaN
        case 0xF1: (latitude, longitude) = (0, 0)
        case 0xF2: (latitude, longitude) = (-0.0, 0)
        case 0xF3: (latitude, longitude) = (90.000001, place.longitude)
        case 0xF4: (latitude, longitude) = (place.latitude, 180)
        case 0xF5: (latitude, longitude) = (place.latitude, -180)
        case 0xF6: (latitude, longitude) = (place.latitude, .infinity)
        case 0xF7:
          if !markers.isEmpty {
            let marker = markers[(Int(east) + 128) % markers.count]
            (latitude, longitude) = (marker.latitude, marker.longitude)
          }
        default:
          if let coordinate = frame.coordinate(east: east, north: north) {
            (latitude, longitude) = (coordinate.latitude, coordinate.longitude)
          }
        }
        var accuracy: Double?
        switch code >> 5 {
        case 5: accuracy = Double(input.byte())
        case 6: accuracy = [-1, .nan, 0, 100, 100.000001, .infinity][input.choice(6)]
        default: break
        }
        steps.append(
          .fix(
            LocationFix(
              device: device, time: Timestamp(microsecondsSinceEpoch: clock), latitude: latitude,
              longitude: longitude, accuracy: accuracy)))
      }
    }
  }
}

/// Metres on a local grid around a place, as coordinates.
struct Frame {
  var latitude: Double
  var longitude: Double
  /// Metres per grid unit.
  var metres: Double

  /// The coordinate `east` and `north` grid units from the place, longitudes wrapped across
  /// the antimeridian; `nil` beyond a pole.
  func coordinate(east: Double, north: Double) -> Coordinate? {
    let metresPerDegree = 111_320.0
    let lat = latitude + north * metres / metresPerDegree
    guard abs(lat) <= 90 else { return nil }
    let cosine = max(cos(latitude * .pi / 180), 1e-3)
    var lon = longitude + east * metres / (metresPerDegree * cosine)
    while lon > 180 { lon -= 360 }
    while lon < -180 { lon += 360 }
    return Coordinate(uncheckedLatitude: lat, longitude: lon)
  }

  /// A fence of the kind `kind` chooses (a circle, a regular polygon of 3 to 8 sides, or a
  /// rectangle with a rectangular hole) of `size` grid units around `center`, with the
  /// vertices of a polygon; `nil` when the shape would reach over a pole or span more than 90
  /// degrees of longitude (it would not be the simple polygon drawn).
  func fence(id: String, kind: UInt8, center: Coordinate, size: Double) -> (fence: Fence, vertices: [Coordinate])? {
    let local = Frame(latitude: center.latitude, longitude: center.longitude, metres: metres)
    switch kind % 3 {
    case 0:
      guard let fence = try? Fence.circle(id: id, center: center, radius: size * metres) else { return nil }
      return (fence, [])
    case 1:
      let sides = 3 + Int(kind / 3) % 6
      let turn = Double(kind / 18) / 14 * 2 * .pi / Double(sides)
      var ring: [Coordinate] = []
      for index in 0..<sides {
        let angle = turn + Double(index) * 2 * .pi / Double(sides)
        guard let vertex = local.coordinate(east: size * cos(angle), north: size * sin(angle)) else {
          return nil
        }
        ring.append(vertex)
      }
      return polygon(id: id, rings: [ring])
    default:
      let corners = [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1)]
      var outer: [Coordinate] = []
      var inner: [Coordinate] = []
      for (x, y) in corners {
        guard let o = local.coordinate(east: x * size, north: y * size * 0.7),
          let i = local.coordinate(east: x * size / 3, north: y * size / 4)
        else { return nil }
        outer.append(o)
        inner.append(i)
      }
      return polygon(id: id, rings: [outer, inner])
    }
  }

  private func polygon(id: String, rings: [[Coordinate]]) -> (fence: Fence, vertices: [Coordinate])? {
    let longitudes = rings[0].map(\.longitude)
    var span = longitudes.max()! - longitudes.min()!
    if span > 180 { span = 360 - span }
    guard span <= 90 else { return nil }
    let closed = rings.map { $0 + [$0[0]] }
    guard
      let shape = try? Polygon(exterior: closed[0], holes: Array(closed.dropFirst()), name: id)
    else { return nil }
    return (Fence(id: id, area: .polygon(MultiPolygon(shape))), rings.flatMap { $0 })
  }
}
