import Benchmark
import FenceGeometry

let benchmarks: @Sendable () -> Void = {
  Benchmark("WGS84 distance") { benchmark in
    let a = Coordinate(uncheckedLatitude: 40.7, longitude: -74.0)
    let b = Coordinate(uncheckedLatitude: 40.71, longitude: -74.02)
    for _ in benchmark.scaledIterations { blackHole(WGS84.distance(a, b)) }
  }
}
