import FenceGeometry
import FenceTestSupport
import Foundation

/// Seeded boxes and queries that stress the index's edge cases: boxes crossing or touching the
/// antimeridian, boxes at the poles, points, duplicates, and coordinates on a coarse grid so that
/// queries land exactly on edges.
struct RandomBoxes {
  var random: SeededGenerator

  init(seed: UInt64) {
    random = SeededGenerator(seed: seed)
  }

  /// A latitude, on a half-degree grid one time in three.
  mutating func latitude(in range: ClosedRange<Double> = -90...90) -> Double {
    let value = random.double(in: range)
    return random.int(below: 3) == 0
      ? min(max((value * 2).rounded() / 2, range.lowerBound), range.upperBound) : value
  }

  /// A longitude, on a half-degree grid one time in three, exactly ±180 now and then.
  mutating func longitude() -> Double {
    switch random.int(below: 40) {
    case 0: return 180
    case 1: return -180
    case 2...13: return (random.double(in: -180...180) * 2).rounded() / 2
    default: return random.double(in: -180...180)
    }
  }

  /// One item box.
  mutating func box() -> BoundingBox {
    switch random.int(below: 20) {
    case 0:  // crossing the antimeridian
      let south = latitude()
      return BoundingBox(
        south: south, west: random.double(in: 150...180),
        north: min(90, south + random.double(in: 0...20)),
        east: random.double(in: -180 ... -150))
    case 1:  // ending at 180 or starting at -180
      let south = latitude()
      let north = min(90, south + random.double(in: 0...10))
      return random.int(below: 2) == 0
        ? BoundingBox(south: south, west: random.double(in: 160...180), north: north, east: 180)
        : BoundingBox(
          south: south, west: -180, north: north, east: random.double(in: -180 ... -160))
    case 2:  // at a pole
      let reach = random.double(in: 0...15)
      let west = longitude()
      let east =
        random.int(below: 4) == 0 ? longitude() : min(180, west + random.double(in: 0...90))
      return random.int(below: 2) == 0
        ? BoundingBox(south: 90 - reach, west: west, north: 90, east: east)
        : BoundingBox(south: -90, west: west, north: -90 + reach, east: east)
    case 3:  // a point
      let lat = latitude()
      let lon = longitude()
      return BoundingBox(south: lat, west: lon, north: lat, east: lon)
    case 4:  // large
      let south = latitude(in: -90...60)
      let west = random.double(in: -180...120)
      return BoundingBox(
        south: south, west: west, north: min(90, south + random.double(in: 0...40)),
        east: min(180, west + random.double(in: 0...60)))
    default:  // small, on the grid one time in three
      let south = latitude()
      let west = longitude()
      let size =
        random.int(below: 3) == 0 ? Double(random.int(below: 5)) / 2 : random.double(in: 0...3)
      let east = west + size
      return BoundingBox(
        south: south, west: west, north: min(90, south + size), east: east > 180 ? east - 360 : east
      )
    }
  }

  /// A query box, crossing or reaching the antimeridian now and then.
  mutating func queryBox() -> BoundingBox {
    if random.int(below: 4) == 0 { return box() }
    let south = latitude()
    let west = longitude()
    let width = random.double(in: 0...12)
    let east = west + width
    return BoundingBox(
      south: south, west: west, north: min(90, south + random.double(in: 0...12)),
      east: east > 180 ? east - 360 : east)
  }

  /// A query position, at a pole or on the antimeridian now and then.
  mutating func position() -> Position {
    var lat = latitude()
    if random.int(below: 50) == 0 { lat = random.int(below: 2) == 0 ? 90 : -90 }
    return Position(Coordinate(uncheckedLatitude: lat, longitude: longitude()))
  }

  /// A search radius in metres: from zero to beyond half the Earth, mostly 1 to 500 km.
  mutating func radius() -> Double {
    switch random.int(below: 200) {
    case 0...4: return 0
    case 5: return 25_000_000
    case 6...15: return 1_000 * pow(10, random.double(in: 2.7...3.5))
    default: return 1_000 * pow(10, random.double(in: 0...2.7))
    }
  }
}

/// The centre of a box, across the antimeridian when the box crosses it.
func centre(of box: BoundingBox) -> Coordinate {
  var lon = box.crossesAntimeridian ? (box.west + box.east + 360) / 2 : (box.west + box.east) / 2
  if lon > 180 { lon -= 360 }
  return Coordinate(uncheckedLatitude: (box.south + box.north) / 2, longitude: lon)
}
