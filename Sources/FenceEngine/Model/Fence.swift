import FenceGeometry

/// An area that belongs to a zone: a circle, a point (a circle of the default radius) or a
/// (multi)polygon. Its id is unique across the engine.
public struct Fence: Hashable, Sendable {
  /// Unique across the evaluator, shared with GEOLINE ids.
  public var id: String
  /// A human-readable name (not used by the engine).
  public var name: String?
  /// The covered area; its boundary counts as inside.
  public var area: Area

  /// A fence of any area.
  public init(id: String, name: String? = nil, area: Area) {
    self.id = id
    self.name = name
    self.area = area
  }

  /// A point fence: a circle of `radius` (default 100 m) whose size the user did not choose.
  public static func point(id: String, name: String? = nil, at center: Coordinate,
    radius: Double = Circle.defaultPointRadius) throws -> Fence
  {
    Fence(id: id, name: name, area: .circle(try Circle(center: center, radius: radius, name: id)))
  }

  /// A circle fence of `radius` metres.
  public static func circle(id: String, name: String? = nil, center: Coordinate, radius: Double)
    throws -> Fence
  {
    Fence(id: id, name: name, area: .circle(try Circle(center: center, radius: radius, name: id)))
  }
}
