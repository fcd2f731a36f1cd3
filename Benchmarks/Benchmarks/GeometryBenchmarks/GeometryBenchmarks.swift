import Benchmark
import FenceGEOS
import FenceGeometry
import FenceWorkloads

// Point-in-polygon: FenceGeometry's `MultiPolygon.contains` beside GEOS prepared covers
// (`PreparedShape.covers`) on the same polygons and points, 1,000 queries per iteration. The
// setup checks that both give the same answer for every query point (and warms GEOS's lazily
// built edge index) before anything is timed. Real data that is not found is skipped.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    timeUnits: .nanoseconds,
    warmupIterations: 2,
    scalingFactor: .kilo,
    maxDuration: .seconds(3),
    maxIterations: 1_000
  )

  Benchmark("WGS84 distance") { benchmark in
    let a = Coordinate(uncheckedLatitude: 40.7, longitude: -74.0)
    let b = Coordinate(uncheckedLatitude: 40.71, longitude: -74.02)
    for _ in benchmark.scaledIterations { blackHole(WGS84.distance(a, b)) }
  }

  for vertices in [10, 100, 1_000, 10_000, 100_000] {
    registerPIP("PIP star \(vertices) vertices") {
      let star = MultiPolygon(StarPolygon.make(vertexCount: vertices))
      let points = StarPolygon.points(in: star.boundingBox, count: 1_000)
      return (shapes: [star], queries: points.map { (0, $0) })
    }
  }
  registerPIP("PIP NYC boroughs") {
    guard let boroughs = RealPolygons.nycBoroughs() else { return nil }
    return queriesInBoxes(boroughs.map(\.shape), minimumVertices: 0)
  }
  registerPIP("PIP tz-world all polygons") {
    guard let zones = RealPolygons.tzWorld() else { return nil }
    return queriesInBoxes(zones.map(\.shape), minimumVertices: 0)
  }
  registerPIP("PIP tz-world polygons of 1000+ vertices") {
    guard let zones = RealPolygons.tzWorld() else { return nil }
    return queriesInBoxes(zones.map(\.shape), minimumVertices: 1_000)
  }
}

/// Shapes and (shape index, point) queries.
typealias PIPWorkload = (shapes: [MultiPolygon], queries: [(Int, Position)])

/// 1,000 queries: a shape among those with at least `minimumVertices` vertices, spread over
/// them by a multiplicative hash of the query number, then a point uniform in its box.
func queriesInBoxes(_ shapes: [MultiPolygon], minimumVertices: Int) -> PIPWorkload {
  let chosen = shapes.filter { $0.vertexCount >= minimumVertices }
  precondition(!chosen.isEmpty, "No shape has \(minimumVertices) vertices")
  var queries: [(Int, Position)] = []
  for (k, point) in StarPolygon.points(
    in: BoundingBox(south: 0, west: 0, north: 1, east: 1), count: 1_000
  ).enumerated() {
    let shape = (k &* 2_654_435_761) % chosen.count
    let box = chosen[shape].boundingBox
    // A box crossing the antimeridian is unwrapped (east + 360), sampled, then wrapped back.
    let east = box.west > box.east ? box.east + 360 : box.east
    var longitude = box.west + (east - box.west) * point.longitude
    if longitude > 180 { longitude -= 360 }
    let latitude = box.south + (box.north - box.south) * point.latitude
    queries.append((shape, Position(Coordinate(uncheckedLatitude: latitude, longitude: longitude))))
  }
  return (chosen, queries)
}

/// Registers the FenceGeometry and GEOS benchmarks of one workload, made in setup by `make`
/// (which returns `nil` when its data is missing: both benchmarks then measure nothing and say
/// so).
func registerPIP(_ name: String, make: @escaping () -> PIPWorkload?) {
  let fixture = PIPFixture(make: make)

  Benchmark("\(name): FenceGeometry") { benchmark in
    guard fixture.isAvailable else { return }
    let shapes = fixture.shapes
    let queries = fixture.queries
    var inside = 0
    for i in benchmark.scaledIterations {
      let (shape, point) = queries[i]
      if shapes[shape].contains(latitude: point.latitude, longitude: point.longitude) {
        inside += 1
      }
    }
    blackHole(inside)
  } setup: {
    fixture.prepare()
  }

  Benchmark("\(name): GEOS prepared covers") { benchmark in
    guard fixture.isAvailable else { return }
    let prepared = fixture.prepared
    let queries = fixture.queries
    var inside = 0
    for i in benchmark.scaledIterations {
      let (shape, point) = queries[i]
      if geosCovers(prepared[shape], point) { inside += 1 }
    }
    blackHole(inside)
  } setup: {
    fixture.prepare()
  }
}

/// The shapes of one workload, prepared by GEOS, with answers checked.
final class PIPFixture {
  private let make: () -> PIPWorkload?
  private(set) var isAvailable = false
  private(set) var shapes: [MultiPolygon] = []
  private(set) var prepared: [PreparedShape] = []
  private(set) var queries: [(Int, Position)] = []

  init(make: @escaping () -> PIPWorkload?) {
    self.make = make
  }

  func prepare() {
    guard let workload = make() else { return }
    let context: GEOSContext
    do {
      context = try GEOSContext()
      prepared = try workload.shapes.map { shape throws(GEOSError) in
        try PreparedShape(shape, context: context)
      }
    } catch {
      preconditionFailure("GEOS: \(error)")
    }
    shapes = workload.shapes
    queries = workload.queries
    var inside = 0
    for (shape, point) in queries {
      let ours = shapes[shape].contains(latitude: point.latitude, longitude: point.longitude)
      let theirs = geosCovers(prepared[shape], point)
      precondition(
        ours == theirs,
        "FenceGeometry says \(ours), GEOS \(theirs) for shape \(shape) at \(point.coordinate)")
      if ours { inside += 1 }
    }
    precondition(
      inside > 0 && inside < queries.count, "\(inside) of \(queries.count) points inside")
    isAvailable = true
  }
}

@inline(__always)
func geosCovers(_ shape: PreparedShape, _ point: Position) -> Bool {
  do {
    return try shape.covers(latitude: point.latitude, longitude: point.longitude)
  } catch {
    preconditionFailure("GEOS: \(error)")
  }
}
