/// One or more polygons that together form one fence's area.
///
/// A position is inside when any part covers it (boundaries included).
public struct MultiPolygon: Hashable, Sendable {
  public let polygons: [Polygon]

  /// - Throws: ``GeometryError/Fault/empty`` when there are no polygons.
  public init(_ polygons: [Polygon], name: String = "multipolygon") throws {
    guard !polygons.isEmpty else { throw GeometryError(shape: name, fault: .empty) }
    self.polygons = polygons
  }

  /// A multipolygon of one polygon.
  public init(_ polygon: Polygon) {
    self.polygons = [polygon]
  }

  /// The number of vertices over all parts and rings.
  public var vertexCount: Int { polygons.reduce(0) { $0 + $1.vertexCount } }
}
