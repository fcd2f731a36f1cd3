// Short ways to build the zones of a test. Each zone made here has one fence or GEOLINE whose id
// is the zone's id, so expected events can leave the fence out.

extension Zone {
  /// A zone of one circle fence of `radius` metres; the fence's id is the zone's id.
  ///
  /// - Throws: ``GeometryError`` for a radius that is not a finite number above 0.
  public static func circle(
    _ id: String, center: Coordinate, radius: Double, rules: ZoneRules = .default,
    customData: JSONObject = [:]
  ) throws -> Zone {
    Zone(
      id: id, customData: customData,
      fences: [try .circle(id: id, center: center, radius: radius)], rules: rules)
  }

  /// A zone of one point fence (a circle of the default 100 m); the fence's id is the zone's id.
  public static func point(
    _ id: String, at center: Coordinate, rules: ZoneRules = .default, customData: JSONObject = [:]
  ) throws -> Zone {
    Zone(id: id, customData: customData, fences: [try .point(id: id, at: center)], rules: rules)
  }

  /// A zone of one polygon fence; the fence's id is the zone's id.
  ///
  /// Rings may be given open or closed (the first vertex is repeated at the end when it is not
  /// already there), in either winding.
  ///
  /// - Throws: ``GeometryError`` for a ring with fewer than 3 distinct vertices.
  public static func polygon(
    _ id: String, _ exterior: [Coordinate], holes: [[Coordinate]] = [],
    rules: ZoneRules = .default, customData: JSONObject = [:]
  ) throws -> Zone {
    Zone(
      id: id, customData: customData, fences: [try .polygon(id: id, exterior, holes: holes)],
      rules: rules)
  }

  /// A zone of one GEOLINE through `vertices`; the GEOLINE's id is the zone's id.
  ///
  /// - Throws: ``GeometryError`` for fewer than 2 distinct vertices.
  public static func geoline(
    _ id: String, _ vertices: [Coordinate], direction: Geoline.DirectionFilter = .both,
    rules: ZoneRules = .default, customData: JSONObject = [:]
  ) throws -> Zone {
    Zone(
      id: id, customData: customData,
      geolines: [Geoline(id: id, line: try Polyline(vertices, name: id), direction: direction)],
      rules: rules)
  }
}

extension Fence {
  /// A polygon fence from rings given open or closed, in either winding.
  ///
  /// - Throws: ``GeometryError`` for a ring with fewer than 3 distinct vertices.
  public static func polygon(
    id: String, name: String? = nil, _ exterior: [Coordinate], holes: [[Coordinate]] = []
  ) throws -> Fence {
    let polygon = try Polygon(
      exterior: closed(exterior), holes: holes.map(closed), name: id)
    return Fence(id: id, name: name, area: .polygon(MultiPolygon(polygon)))
  }

  private static func closed(_ ring: [Coordinate]) -> [Coordinate] {
    guard let first = ring.first, ring.last != first else { return ring }
    return ring + [first]
  }
}
