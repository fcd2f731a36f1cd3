import FenceGEOS
import FenceGeometry

/// The polygonal shape of a WKT literal, read by GEOS (x = longitude, y = latitude).
///
/// Topology is not checked, so invalid polygons (bowties, holes outside) come through as they
/// are written; only our structural checks (closed rings, 3 distinct points) apply.
func shape(_ wkt: String, name: String = "shape", context: GEOSContext) throws -> MultiPolygon {
  try GEOSGeometry(wkt: wkt, context: context).polygonalParts(name: name)
}

