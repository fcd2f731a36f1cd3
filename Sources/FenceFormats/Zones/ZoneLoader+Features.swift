import FenceEngine
import FenceGEOS
import FenceGeometry

extension ZoneLoading {
  /// Reads one feature into its zone's draft.
  mutating func loadFeature(_ node: Int, index: Int) throws {
    var fenceID: String?
    // Named in errors once known, when the feature's `zone` differs from its id.
    var zoneName: String?
    let file = self.file
    func fail(_ property: String?, _ message: String) -> ZoneLoadError {
      ZoneLoadError(
        file: file, featureIndex: index, featureID: fenceID, zone: zoneName, property: property,
        message: message)
    }
    guard tape.kind(node) == .object else {
      throw fail(nil, "expected a GeoJSON Feature object, got \(tape.describe(node))")
    }
    guard let typeNode = tape.member(node, "type"), tape.string(typeNode) == "Feature" else {
      let got = tape.member(node, "type").map { tape.describe($0) } ?? "nothing"
      throw fail("type", "expected \"Feature\", got \(got)")
    }
    // Properties.
    var properties: [(key: String, value: Int)] = []
    if let propertiesNode = tape.member(node, "properties") {
      switch tape.kind(propertiesNode) {
      case .object: properties = tape.members(propertiesNode)
      case .null: break
      default:
        throw fail("properties", "expected an object or null, got \(tape.describe(propertiesNode))")
      }
    }
    func property(_ key: String) -> Int? { properties.last { $0.key == key }?.value }

    // Fence id: the feature's id, else properties.id, else f<index>.
    if let idNode = fenceIDNode(ofFeature: node) {
      guard let text = fenceIDText(idNode) else {
        if tape.string(idNode) != nil {
          throw fail("id", "expected a non-empty string or a number, got \"\"")
        }
        throw fail("id", "expected a string or a number, got \(tape.describe(idNode))")
      }
      fenceID = text
    }
    let id = fenceID ?? "f\(index)"
    // A key given twice is almost always a mistake (which one was meant?), so it is refused
    // rather than resolved by keeping the last; checked once the id is known, to name it.
    if let duplicate = tape.firstDuplicateKey(under: node, skipping: ["coordinates"]) {
      let place = duplicate.path.isEmpty ? "the feature" : duplicate.path.joined(separator: ".")
      throw fail(
        duplicate.path.first, "\(place) has the key \(quoted(duplicate.key)) twice; give each key once")
    }
    fenceID = id

    // Zone.
    var zoneID = id
    if let zoneNode = property("zone") {
      if let s = tape.string(zoneNode), !s.isEmpty {
        zoneID = s
      } else if let x = tape.number(zoneNode) {
        zoneID = JSONWriter.numberText(x)
      } else {
        throw fail("zone", "expected a zone id (a non-empty string or a number), got \(tape.describe(zoneNode))")
      }
    }
    if zoneID != id { zoneName = zoneID }
    let zone = draft(zoneID)
    drafts[zone].hasFeatures = true
    let source = Source.feature(index: index, id: id)

    // Rules.
    for key in ZoneLoader.ruleKeys {
      guard let valueNode = property(key) else { continue }
      switch ruleValue(key, valueNode) {
      case .success(let value):
        try set(key, value, zone: zone, source: source) { fail(key, $0) }
      case .failure(let problem):
        throw fail(key, problem.message)
      }
    }

    // Custom data.
    var customData = JSONObject()
    if let dataNode = property("customData"), tape.kind(dataNode) == .object {
      customData = tape.object(dataNode)
    } else {
      for (key, valueNode) in properties where !ZoneLoader.isReserved(key) {
        customData[key] = tape.value(valueNode)
      }
    }
    try merge(customData, zone: zone, source: source) { key, message in
      fail("customData", message + " (key \(quoted(key)))")
    }
    let fenceName = property("name").flatMap { tape.string($0) }

    // A roaming zone's feature (rules v2 `roam`): its circle moves with devices, so the feature
    // has no geometry of its own and makes no fence.
    if property("roam") != nil {
      if let geometryNode = tape.member(node, "geometry"), tape.kind(geometryNode) != .null {
        throw fail(
          "geometry", "a roaming zone's feature has geometry null (its circle moves with devices), got \(tape.describe(geometryNode))")
      }
      return
    }

    // Geometry.
    guard let geometryNode = tape.member(node, "geometry"), tape.kind(geometryNode) == .object else {
      let got = tape.member(node, "geometry").map { tape.describe($0) } ?? "nothing"
      throw fail("geometry", "expected a geometry object, got \(got)")
    }
    guard let geometryTypeNode = tape.member(geometryNode, "type"),
      let geometryType = tape.string(geometryTypeNode)
    else {
      throw fail("geometry", "expected a geometry \"type\"")
    }
    guard let coordinates = tape.member(geometryNode, "coordinates") else {
      throw fail("geometry", "\(geometryType) has no \"coordinates\"")
    }
    let shapes = ShapeReader(tape: tape, fenceID: id) { fail("geometry", $0) }

    func claim(_ fenceID: String) throws {
      // The id's owner, if any: in the table, or the zone of that id claiming it (see
      // `fenceOwners`).
      var owner = fenceOwners[fenceID]
      let ownZone = fenceID == zoneID ? zone : drafts.index(of: fenceID)
      if owner == nil, let ownZone, drafts[ownZone].selfFeature >= 0 {
        owner = drafts[ownZone].selfFeature
      }
      if let owner {
        let ownerID = featureIDText(ofFeature: Int(owner))
        throw fail(
          "id",
          "fence id \(quoted(fenceID)) is already used by feature \(owner) (id \(quoted(ownerID))); fence and GEOLINE ids must be unique")
      }
      if fenceID == zoneID {
        drafts[zone].selfFeature = Int32(truncatingIfNeeded: index)
      } else {
        fenceOwners[fenceID] = Int32(truncatingIfNeeded: index)
      }
    }

    switch geometryType {
    case "Point":
      let center = try shapes.position(coordinates)
      try claim(id)
      if let radiusNode = property("radius"), tape.kind(radiusNode) != .null {
        guard let radius = tape.number(radiusNode), radius > 0, ValidRange.distance.contains(radius) else {
          throw fail(
            "radius",
            "expected a number of metres above 0 and at most \(JSONWriter.numberText(ValidRange.distance.upperBound)), got \(tape.describe(radiusNode))")
        }
        drafts[zone].fences.append(
          try shapes.wrap { try Fence.circle(id: id, name: fenceName, center: center, radius: radius) })
      } else {
        drafts[zone].fences.append(
          try shapes.wrap {
            try Fence.point(id: id, name: fenceName, at: center, radius: options.pointRadius)
          })
      }
    case "Polygon", "MultiPolygon":
      var polygons: [Polygon] = []
      if geometryType == "Polygon" {
        polygons = [try shapes.polygon(coordinates, repair: options.repair)]
      } else {
        let parts = try shapes.array(coordinates, "an array of polygons")
        guard !parts.isEmpty else { throw fail("geometry", "MultiPolygon has no polygons") }
        for part in parts { polygons.append(try shapes.polygon(part, repair: options.repair)) }
      }
      try claim(id)
      let area = try validated(try shapes.wrap { try MultiPolygon(polygons, name: id) }, id: id) {
        fail("geometry", $0)
      }
      drafts[zone].fences.append(Fence(id: id, name: fenceName, area: .polygon(area)))
    case "LineString", "MultiLineString":
      var direction = Geoline.DirectionFilter.both
      let directionNode = property("direction")
      if let directionNode {
        switch ruleValue("direction", directionNode) {
        case .success(.string(let s)): direction = Geoline.DirectionFilter(rawValue: s) ?? .both
        case .success: break
        case .failure(let problem): throw fail("direction", problem.message)
        }
      }
      let lines: [(String, Int)]
      if geometryType == "LineString" {
        lines = [(id, coordinates)]
      } else {
        let parts = try shapes.array(coordinates, "an array of line strings")
        guard !parts.isEmpty else { throw fail("geometry", "MultiLineString has no lines") }
        lines = parts.enumerated().map { ("\(id)#\($0.offset)", $0.element) }
      }
      for (lineID, lineNode) in lines {
        let vertices = try shapes.positions(lineNode)
        try claim(lineID)
        let line = try shapes.wrap { try Polyline(vertices, name: lineID) }
        drafts[zone].appendGeolines(
          [(Geoline(id: lineID, name: fenceName, line: line, direction: direction), directionNode != nil)])
      }
    default:
      throw fail(
        "geometry",
        "unsupported geometry type \(quoted(geometryType)): expected Point, Polygon, MultiPolygon, LineString or MultiLineString")
    }
  }

  /// The area after GEOS validation, or after MakeValid when repairing an invalid one.
  mutating func validated(
    _ area: MultiPolygon, id: String, fail: (String) -> ZoneLoadError
  ) throws -> MultiPolygon {
    if options.trustsTopology { return area }
    if geos == nil {
      do {
        geos = try GEOSContext()
      } catch {
        throw fail("cannot start GEOS to validate polygons: \(error)")
      }
    }
    guard let geos else { preconditionFailure("GEOS context was just created") }
    do {
      try geos.validate(area, name: id)
      return area
    } catch {
      guard options.repair else {
        throw fail(
          ShapeReader.message(error, fenceID: id)
            + " (loading with repair, `--repair` on the command line, fixes it with GEOS MakeValid)")
      }
    }
    do {
      return try geos.repair(area, name: id)
    } catch {
      throw fail("could not be repaired: " + ShapeReader.message(error, fenceID: id))
    }
  }
}

/// Reads GeoJSON coordinates from the tape into validated shapes.
struct ShapeReader {
  let tape: JSONTape
  let fenceID: String
  let fail: (String) -> ZoneLoadError

  /// The text of a geometry error: the fault alone when it names the fence itself, else the
  /// part it names too (`dock part 1: self-intersection (…)`).
  static func message(_ error: GeometryError, fenceID: String) -> String {
    error.shape == fenceID ? error.faultDescription : error.description
  }

  /// Runs a shape initializer and turns its `GeometryError` into a load error.
  func wrap<T>(_ make: () throws -> T) throws -> T {
    do {
      return try make()
    } catch let error as GeometryError {
      throw fail(Self.message(error, fenceID: fenceID))
    }
  }

  func array(_ node: Int, _ expected: String) throws -> [Int] {
    guard tape.kind(node) == .array else {
      throw fail("coordinates: expected \(expected), got \(tape.describe(node))")
    }
    return tape.elements(node)
  }

  /// A `[longitude, latitude]` position (a third value, the altitude, is ignored).
  func position(_ node: Int) throws -> Coordinate {
    guard tape.kind(node) == .array, tape.count(node) >= 2,
      let longitude = tape.number(node + 1), let latitude = tape.number(node + 2)
    else {
      throw fail("coordinates: expected a position [longitude, latitude], got \(describePosition(node))")
    }
    return try wrap { try Coordinate(latitude: latitude, longitude: longitude, shape: fenceID) }
  }

  private func describePosition(_ node: Int) -> String {
    guard tape.kind(node) == .array else { return tape.describe(node) }
    let parts = tape.elements(node).prefix(3).map { tape.describe($0) }
    return "[" + parts.joined(separator: ", ") + (tape.count(node) > 3 ? ", ...]" : "]")
  }

  func positions(_ node: Int) throws -> [Coordinate] {
    let elements = try array(node, "an array of positions")
    var result: [Coordinate] = []
    result.reserveCapacity(elements.count)
    for element in elements { result.append(try position(element)) }
    return result
  }

  /// A polygon from its rings; with `repair`, an unclosed ring is closed first.
  func polygon(_ node: Int, repair: Bool) throws -> Polygon {
    let ringNodes = try array(node, "an array of linear rings")
    guard !ringNodes.isEmpty else { throw fail("coordinates: a polygon needs at least one ring") }
    var rings: [[Coordinate]] = []
    for ringNode in ringNodes {
      var ring = try positions(ringNode)
      if repair, let first = ring.first, ring.last != first { ring.append(first) }
      rings.append(ring)
    }
    return try wrap {
      try Polygon(exterior: rings[0], holes: Array(rings.dropFirst()), name: fenceID)
    }
  }
}
