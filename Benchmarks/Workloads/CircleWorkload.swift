import FenceGeometry
import FenceTesting

/// Where a seeded workload puts its fences and query points.
public enum WorkloadRegion: Sendable {
  /// The contiguous United States (latitude 25...49, longitude -125...-67, about 8 million
  /// km²): fences spread over a country, so most fixes are in no fence or one.
  case country
  /// A 100 km square around New York (latitude 40.3...41.2, longitude -74.6...-73.4, about
  /// 10,000 km²): fences dense enough that a 1 km radius holds tens to hundreds of them.
  case metro

  /// The region as a box.
  public var box: BoundingBox {
    switch self {
    case .country: BoundingBox(south: 25, west: -125, north: 49, east: -67)
    case .metro: BoundingBox(south: 40.3, west: -74.6, north: 41.2, east: -73.4)
    }
  }
}

/// Seeded random circle fences of realistic sizes and query points around them.
///
/// Radii are uniform in 25...1000 m, so boxes are 50 m to 2 km across; centres are uniform in
/// the region. Ids are the positions in ``circles``.
public struct CircleWorkload: Sendable {
  public let region: WorkloadRegion
  public let circles: [Circle]
  /// The circles' boxes under their ids (the index's input).
  public let items: [(id: Int32, box: BoundingBox)]

  /// `count` circles from `seed`.
  public init(count: Int, region: WorkloadRegion, seed: UInt64 = 0xF3_7CE5) {
    self.region = region
    var random = SplitMix64(seed: seed)
    let box = region.box
    var circles: [Circle] = []
    circles.reserveCapacity(count)
    for index in 0..<count {
      let center = Coordinate(
        uncheckedLatitude: box.south + (box.north - box.south) * random.nextUnit(),
        longitude: box.west + (box.east - box.west) * random.nextUnit())
      let radius = 25 + 975 * random.nextUnit()
      guard let circle = try? Circle(center: center, radius: radius, name: "c\(index)") else {
        preconditionFailure("Radius \(radius) at \(center) was rejected")
      }
      circles.append(circle)
    }
    self.circles = circles
    self.items = circles.enumerated().map { (Int32($0.offset), $0.element.boundingBox) }
  }

  /// Query points: every other one inside a random circle's box (so searches find something),
  /// the rest uniform over the region.
  public func queryPoints(count: Int, seed: UInt64 = 0x9_0E11) -> [Position] {
    var random = SplitMix64(seed: seed)
    let region = self.region.box
    return (0..<count).map { index in
      let box: BoundingBox
      if index % 2 == 0, !items.isEmpty {
        box = items[Int(random.next() % UInt64(items.count))].box
      } else {
        box = region
      }
      return Position(
        Coordinate(
          uncheckedLatitude: box.south + (box.north - box.south) * random.nextUnit(),
          longitude: box.west + (box.east - box.west) * random.nextUnit()))
    }
  }
}
