#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a synthetic fence set as zones GeoJSON, one feature per line, streaming.
///
/// Every feature is its own zone unless `fencesPerZone` > 1, in which case consecutive features
/// share the zone `z<n>`. Coordinates are written with 6 decimals (about 0.1 m).
///
/// - Circles: a `Point` with `properties.radius` drawn uniformly from `radius`.
/// - Points: a `Point` without a radius (a point fence of the loader's default radius).
/// - Polygons: star-shaped around a random centre: `vertices` vertices at increasing angles
///   (each jittered within its own sector, so no gap reaches 180 degrees) and distances drawn
///   from `radius` × 0.4...1. Vertices sorted by angle around an inner point form a simple
///   (non-self-intersecting) ring; it is written counter-clockwise and closed.
/// - GEOLINEs: a `LineString` of `lineVertices` vertices, a random walk whose legs are drawn
///   from `radius`, direction `both`.
///
/// - Complexity: O(`count` × vertices) time, O(vertices) memory.
struct FenceSetGenerator {
  enum Shape: String, CaseIterable, Sendable {
    case circle, point, polygon, geoline, mixed
  }

  var count: Int
  var shape: Shape
  var radius: ClosedRange<Double>
  var vertices: Int
  var lineVertices: Int
  var fencesPerZone: Int
  var box: GeneratorBox
  var seed: UInt64

  /// Writes the whole FeatureCollection to `output`.
  func write(to output: OutputFile) throws {
    var random = SplitMix64(seed: seed)
    let metresPerLat = box.metresPerDegreeLatitude
    let metresPerLon = box.metresPerDegreeLongitude
    let kinds: [Shape] = [.circle, .polygon, .geoline, .point]
    try output.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
    for index in 0..<count {
      let kind = shape == .mixed ? kinds[random.integer(0...3)] : shape
      let id = "f\(index)"
      var properties = ""
      if fencesPerZone > 1 { properties += "\"zone\":\"z\(index / fencesPerZone)\"" }
      let (lat, lon) = box.randomPosition(using: &random)
      try output.write(index == 0 ? "" : ",\n")
      try output.write("{\"type\":\"Feature\",\"id\":\"\(id)\",\"properties\":{\(properties)")
      switch kind {
      case .circle, .mixed:
        let r = random.uniform(radius)
        try output.write(properties.isEmpty ? "\"radius\":" : ",\"radius\":")
        try output.write(fixed: r, digits: 1)
        try output.write("},\"geometry\":{\"type\":\"Point\",\"coordinates\":")
        try writePosition(lat, lon, to: output)
      case .point:
        try output.write("},\"geometry\":{\"type\":\"Point\",\"coordinates\":")
        try writePosition(lat, lon, to: output)
      case .polygon:
        try output.write("},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[")
        let outer = random.uniform(radius)
        let sector = 2 * Double.pi / Double(vertices)
        var first: (Double, Double) = (0, 0)
        for vertex in 0..<vertices {
          // Jitter each angle within 40 % of its sector: angles stay strictly increasing.
          let angle = sector * (Double(vertex) + 0.4 * random.unit())
          let distance = outer * random.uniform(0.4...1)
          let p = clamp(
            lat + distance * sin(angle) / metresPerLat, lon + distance * cos(angle) / metresPerLon)
          if vertex == 0 { first = p } else { try output.write(",") }
          try writePosition(p.0, p.1, to: output)
        }
        try output.write(",")
        try writePosition(first.0, first.1, to: output)
        try output.write("]]")
      case .geoline:
        try output.write(properties.isEmpty ? "" : ",")
        try output.write("\"direction\":\"both\"},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[")
        var p = (lat, lon)
        var heading = random.uniform(0...(2 * Double.pi))
        try writePosition(p.0, p.1, to: output)
        for _ in 1..<lineVertices {
          let leg = random.uniform(radius)
          heading += random.uniform(-0.8...0.8)
          p = clamp(p.0 + leg * sin(heading) / metresPerLat, p.1 + leg * cos(heading) / metresPerLon)
          try output.write(",")
          try writePosition(p.0, p.1, to: output)
        }
        try output.write("]")
      }
      try output.write("}}")
    }
    try output.write("\n]}\n")
    try output.close()
  }

  private func clamp(_ lat: Double, _ lon: Double) -> (Double, Double) {
    (min(max(lat, -89.9), 89.9), min(max(lon, -180), 180))
  }

  private func writePosition(_ lat: Double, _ lon: Double, to output: OutputFile) throws {
    try output.write("[")
    try output.write(fixed: lon, digits: 6)
    try output.write(",")
    try output.write(fixed: lat, digits: 6)
    try output.write("]")
  }
}
