import FenceGEOS
import FenceGeometry

/// The polygonal shape of a WKT literal, read by GEOS (x = longitude, y = latitude).
///
/// Topology is not checked, so invalid polygons (bowties, holes outside) come through as they
/// are written; only our structural checks (closed rings, 3 distinct points) apply.
func shape(_ wkt: String, name: String = "shape", context: GEOSContext) throws -> MultiPolygon {
  try GEOSGeometry(wkt: wkt, context: context).polygonalParts(name: name)
}

/// A deterministic SplitMix64 generator, so every run tests the same points.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
