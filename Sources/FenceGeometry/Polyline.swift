/// A polyline of two or more vertices with straight segments in (lon, lat): a GEOLINE's shape.
///
/// "Left" is the left-hand side when walking from the first vertex to the last.
public struct Polyline: Hashable, Sendable {
  public let vertices: [Coordinate]

  /// - Throws: ``GeometryError`` naming `name` when there are no vertices or fewer than 2
  ///   distinct ones.
  public init(_ vertices: [Coordinate], name: String = "polyline") throws {
    guard !vertices.isEmpty else { throw GeometryError(shape: name, fault: .empty) }
    let distinct = Set(vertices).count
    guard distinct >= 2 else {
      throw GeometryError(shape: name, fault: .tooFewPoints(ring: 0, distinct: distinct, required: 2))
    }
    self.vertices = vertices
  }
}
