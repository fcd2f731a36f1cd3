/// A polyline of two or more vertices with straight segments in (lon, lat): a GEOLINE's shape.
///
/// "Left" is the left-hand side when walking from the first vertex to the last. A polyline with
/// a segment spanning more than 180 degrees of longitude crosses the antimeridian and is
/// unwrapped once at construction, as ``Polygon`` is.
public struct Polyline: Hashable, Sendable {
  /// The vertices, as given.
  public let vertices: [Coordinate]
  /// A box that holds the whole polyline (`west > east` when it crosses the antimeridian).
  public let boundingBox: BoundingBox
  /// The segments, indexed by latitude; consecutive repeated vertices are left out.
  let index: EdgeIndex

  /// - Throws: ``GeometryError`` naming `name` when there are no vertices or fewer than 2
  ///   distinct ones.
  public init(_ vertices: [Coordinate], name: String = "polyline") throws {
    guard !vertices.isEmpty else { throw GeometryError(shape: name, fault: .empty) }
    let distinct = Set(vertices).count
    guard distinct >= 2 else {
      throw GeometryError(shape: name, fault: .tooFewPoints(ring: 0, distinct: distinct, required: 2))
    }
    self.vertices = vertices
    self.index = EdgeIndex(chains: [vertices])
    self.boundingBox = index.boundingBox
  }

  /// Whether the polyline was unwrapped because it crosses the antimeridian.
  public var crossesAntimeridian: Bool { index.isUnwrapped }

  /// Metres from a position to the nearest point of the polyline.
  ///
  /// Accurate to about a millimetre up to 10 km (see ``Polygon/distanceToBoundary(from:)``).
  public func distance(from p: Position) -> Double {
    index.distance(from: p)
  }

  public static func == (lhs: Polyline, rhs: Polyline) -> Bool { lhs.vertices == rhs.vertices }
  public func hash(into hasher: inout Hasher) { hasher.combine(vertices) }
}
