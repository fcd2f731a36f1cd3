// The Swift sample of the FenceGEOS DocC catalog (Sources/FenceGEOS/Documentation.docc),
// compiled and run here; see Scripts/check-doc-samples.

import FenceGEOS
import FenceGeometry
import Testing

/// FenceGEOS.md, "Overview". The sample's `fence` is the parameter; returns `inside`.
func fenceGEOSOverview(fence: MultiPolygon) throws -> Bool {
  let context = try GEOSContext()
  try context.validate(fence, name: "depot")          // throws GeometryError with GEOS's reason
  let repaired = try context.makeValid(fence, name: "depot")
  let prepared = try PreparedShape(repaired, context: context)
  let inside = try prepared.covers(latitude: 40.7, longitude: -74.0)  // boundary counts as inside
  return inside
}

/// The sample on a square whose edge runs through (40.7, -74.0), and on one beside it.
@Test func theFenceGEOSOverviewCountsTheBoundaryAsInside() throws {
  func square(south: Double, west: Double) throws -> MultiPolygon {
    let corners = [
      (south, west), (south, west + 0.1), (south + 0.1, west + 0.1), (south + 0.1, west),
      (south, west),
    ]
    return MultiPolygon(
      try Polygon(exterior: corners.map { Coordinate(uncheckedLatitude: $0.0, longitude: $0.1) }))
  }
  #expect(try fenceGEOSOverview(fence: square(south: 40.7, west: -74.05)) == true)
  #expect(try fenceGEOSOverview(fence: square(south: 40.8, west: -74.05)) == false)
}
