import Dispatch
import FenceEngine
import FenceFormats
import FenceGeometry

/// The binary form of a zone set that snapshots hold: what makes a restart with a large zone set
/// quick.
///
/// Reading the GeoJSON of 27,743 time-zone polygons (57 MB) took most of a recovery's seconds;
/// this form holds the same zones as exact doubles and is read without a text parse, and its
/// polygons are built on every processor. It starts with the magic bytes `FKZ1`, so a snapshot
/// written before it (whose zone set is GeoJSON, starting with `{`) still loads. Command
/// payloads keep GeoJSON, so the log stays readable with any GeoJSON tool.
///
/// Layout (little-endian, varint counts, strings as a varint length and UTF-8): the zone count,
/// then per zone: id, a flag byte (name, description, dwell present), name, description,
/// custom data as compact JSON text, the rules (retrigger f64, dwell f64, check-out and initial
/// trigger bytes, exit hysteresis f64, exit confirmations varint; then, when flag 8 is set, the
/// rules v2 as compact JSON text of their zone settings), the fences (id, name flag
/// and name, then `0` and centre latitude, longitude and radius for a circle, or `1` and the
/// polygons, each a list of rings of latitude/longitude pairs), then the GEOLINEs (id, name
/// flag and name, direction byte, vertices).
enum ZoneSetCoding {
  static let magic: [UInt8] = Array("FKZ1".utf8)

  /// Whether bytes are in this form (rather than the GeoJSON of earlier snapshots).
  static func isBinary(_ bytes: [UInt8]) -> Bool {
    bytes.count >= magic.count && Array(bytes.prefix(magic.count)) == magic
  }

  static func encode(_ zones: [Zone]) -> [UInt8] {
    var writer = ByteWriter()
    writer.bytes = magic
    writer.varint(UInt64(zones.count))
    for zone in zones { appendZone(zone, to: &writer) }
    return writer.bytes
  }

  /// Appends one zone's record (see the layout above).
  static func appendZone(_ zone: Zone, to writer: inout ByteWriter) {
    writer.string(zone.id)
    let flags: UInt8 =
      (zone.name == nil ? 0 : 1) | (zone.description == nil ? 0 : 2)
      | (zone.rules.dwell == nil ? 0 : 4) | (zone.rules.hasRulesV2 ? 8 : 0)
    writer.u8(flags)
    if let name = zone.name { writer.string(name) }
    if let description = zone.description { writer.string(description) }
    writer.string(JSONWriter.string(.object(zone.customData)))
    writer.f64(zone.rules.minimumRetriggerTime)
    if let dwell = zone.rules.dwell { writer.f64(dwell) }
    writer.u8(zone.rules.checkOut ? 1 : 0)
    writer.u8(zone.rules.initialTrigger ? 1 : 0)
    writer.f64(zone.rules.exitHysteresis)
    writer.i64(Int64(zone.rules.exitConfirmations))
    if zone.rules.hasRulesV2 { writer.string(JSONWriter.string(.object(zone.rules.rulesV2JSON))) }
    writer.varint(UInt64(zone.fences.count))
    for fence in zone.fences {
      writer.string(fence.id)
      writeName(fence.name, to: &writer)
      switch fence.area {
      case .circle(let circle):
        writer.u8(0)
        writer.f64(circle.center.latitude)
        writer.f64(circle.center.longitude)
        writer.f64(circle.radius)
      case .polygon(let multipolygon):
        writer.u8(1)
        writer.varint(UInt64(multipolygon.polygons.count))
        for polygon in multipolygon.polygons {
          let rings = polygon.rings  // made again from the edges at each read: once
          writer.varint(UInt64(rings.count))
          for ring in rings { writeCoordinates(ring, to: &writer) }
        }
      }
    }
    writer.varint(UInt64(zone.geolines.count))
    for geoline in zone.geolines {
      writer.string(geoline.id)
      writeName(geoline.name, to: &writer)
      let direction: UInt8
      switch geoline.direction {
      case .both: direction = 0
      case .leftToRight: direction = 1
      case .rightToLeft: direction = 2
      }
      writer.u8(direction)
      writeCoordinates(geoline.line.vertices, to: &writer)
    }
  }

  private static func writeName(_ name: String?, to writer: inout ByteWriter) {
    writer.u8(name == nil ? 0 : 1)
    if let name { writer.string(name) }
  }

  private static func writeCoordinates(_ coordinates: [Coordinate], to writer: inout ByteWriter) {
    writer.varint(UInt64(coordinates.count))
    for coordinate in coordinates {
      writer.f64(coordinate.latitude)
      writer.f64(coordinate.longitude)
    }
  }

  // MARK: Decoding

  /// A polygon fence read from the bytes, still as rings: built afterwards, in parallel
  /// (``buildPolygons(_:into:)``), into the fence at `fence` of the zone at `zone`; `zoneID`
  /// and `fenceID` name them in a build's error.
  private struct PolygonRecipe {
    var zone: Int
    var fence: Int
    var zoneID: String
    var fenceID: String
    var polygons: [[[Coordinate]]]
  }

  /// The zones of bytes written by ``encode(_:)``.
  ///
  /// The zones are read into the array they are returned in, and each polygon fence is put in
  /// place once built: a zone is never copied on the way (at a million zones, copying each
  /// zone's strings and lists twice was a tenth of a restart).
  ///
  /// - Throws: ``PayloadError`` when the bytes are truncated or hold an impossible value.
  static func decode(_ bytes: [UInt8]) throws(PayloadError) -> [Zone] {
    guard isBinary(bytes) else { throw PayloadError(offset: 0, "not a binary zone set") }
    var reader = ByteReader(bytes)
    reader.offset = magic.count
    let zoneCount = try reader.count(stride: 8)
    var zones: [Zone] = []
    zones.reserveCapacity(zoneCount)
    var polygonRecipes: [PolygonRecipe] = []
    for index in 0..<zoneCount {
      zones.append(try readZone(&reader, index: index, polygons: &polygonRecipes))
    }
    guard reader.isAtEnd else { throw PayloadError(offset: reader.offset, "bytes after the last zone") }
    if !polygonRecipes.isEmpty { try buildPolygons(polygonRecipes, into: &zones) }
    return zones
  }

  /// Reads the zone at `index`; its polygon fences get a placeholder area, and their rings go
  /// to `polygons`.
  private static func readZone(
    _ reader: inout ByteReader, index: Int, polygons polygonRecipes: inout [PolygonRecipe]
  ) throws(PayloadError) -> Zone {
    let id = try reader.string()
    let flags = try reader.u8()
    let name = flags & 1 != 0 ? try reader.string() : nil
    let description = flags & 2 != 0 ? try reader.string() : nil
    let customDataOffset = reader.offset
    let customDataText = try reader.string()
    var customData = JSONObject()
    // Most zones carry none: "{}" needs no parser.
    if customDataText != "{}" {
      do {
        guard case .object(let object) = try JSONReader.parse(customDataText) else {
          throw PayloadError(offset: customDataOffset, "custom data is not a JSON object")
        }
        customData = object
      } catch let error as PayloadError {
        throw error
      } catch {
        throw PayloadError(offset: customDataOffset, "custom data: \(error)")
      }
    }
    let retrigger = try reader.f64()
    let dwell = flags & 4 != 0 ? try reader.f64() : nil
    let checkOut = try reader.u8() != 0
    let initialTrigger = try reader.u8() != 0
    let exitHysteresis = try reader.f64()
    let exitConfirmations = try reader.i64()
    guard exitConfirmations >= 0, exitConfirmations <= Int64(Int32.max) else {
      throw PayloadError(offset: reader.offset, "exit confirmations \(exitConfirmations)")
    }
    var rules = ZoneRules(
      minimumRetriggerTime: retrigger, dwell: dwell, checkOut: checkOut,
      initialTrigger: initialTrigger, exitHysteresis: exitHysteresis,
      exitConfirmations: Int(exitConfirmations))
    if flags & 8 != 0 {
      let offset = reader.offset
      let text = try reader.string()
      guard case .object(let settings)? = try? JSONReader.parse(text) else {
        throw PayloadError(offset: offset, "rules v2 are not a JSON object")
      }
      for (key, value) in settings.members {
        do throws(RuleSettingError) {
          try rules.setRuleV2(key, value)
        } catch {
          throw PayloadError(offset: offset, "rules v2: \(error)")
        }
      }
    }
    var zone = Zone(id: id, name: name, description: description, customData: customData, rules: rules)
    let fenceCount = try reader.count(stride: 3)
    for _ in 0..<fenceCount {
      let fenceID = try reader.string()
      let fenceName = try readName(&reader)
      switch try reader.u8() {
      case 0:
        let latitude = try reader.f64()
        let longitude = try reader.f64()
        let radius = try reader.f64()
        do {
          let circle = try Circle(
            center: Coordinate(latitude: latitude, longitude: longitude), radius: radius)
          zone.fences.append(Fence(id: fenceID, name: fenceName, area: .circle(circle)))
        } catch {
          throw PayloadError(offset: reader.offset, "zone \(id) fence \(fenceID): \(error)")
        }
      case 1:
        let polygonCount = try reader.count(stride: 1)
        var polygons: [[[Coordinate]]] = []
        polygons.reserveCapacity(polygonCount)
        for _ in 0..<polygonCount {
          let ringCount = try reader.count(stride: 1)
          var rings: [[Coordinate]] = []
          rings.reserveCapacity(ringCount)
          for _ in 0..<ringCount { rings.append(try readCoordinates(&reader)) }
          polygons.append(rings)
        }
        // A placeholder area until the polygons are built.
        polygonRecipes.append(
          PolygonRecipe(
            zone: index, fence: zone.fences.count, zoneID: id, fenceID: fenceID, polygons: polygons))
        zone.fences.append(Fence(id: fenceID, name: fenceName, area: placeholder))
      case let tag:
        throw PayloadError(offset: reader.offset - 1, "unknown area kind \(tag)")
      }
    }
    let geolineCount = try reader.count(stride: 3)
    // Gathered first: a zone keeps its GEOLINEs in an immutable box, which each append to the
    // zone's own array would copy.
    var geolines: [Geoline] = []
    geolines.reserveCapacity(geolineCount)
    for _ in 0..<geolineCount {
      let geolineID = try reader.string()
      let geolineName = try readName(&reader)
      let direction: Geoline.DirectionFilter
      switch try reader.u8() {
      case 0: direction = .both
      case 1: direction = .leftToRight
      case 2: direction = .rightToLeft
      case let tag: throw PayloadError(offset: reader.offset - 1, "unknown direction \(tag)")
      }
      let vertices = try readCoordinates(&reader)
      do {
        geolines.append(
          Geoline(id: geolineID, name: geolineName, line: try Polyline(vertices), direction: direction))
      } catch {
        throw PayloadError(offset: reader.offset, "zone \(id) GEOLINE \(geolineID): \(error)")
      }
    }
    if !geolines.isEmpty { zone.geolines = geolines }
    return zone
  }

  private static func readName(_ reader: inout ByteReader) throws(PayloadError) -> String? {
    try reader.u8() != 0 ? try reader.string() : nil
  }

  private static func readCoordinates(_ reader: inout ByteReader) throws(PayloadError) -> [Coordinate] {
    let count = try reader.count(stride: 16)
    var coordinates: [Coordinate] = []
    coordinates.reserveCapacity(count)
    for _ in 0..<count {
      let latitude = try reader.f64()
      let longitude = try reader.f64()
      guard Coordinate.isValid(latitude: latitude, longitude: longitude) else {
        throw PayloadError(offset: reader.offset - 16, "coordinate (\(latitude), \(longitude)) out of range")
      }
      coordinates.append(Coordinate(uncheckedLatitude: latitude, longitude: longitude))
    }
    return coordinates
  }

  /// Stands in a polygon fence's place until ``buildPolygons(_:)`` replaces it.
  private static let placeholder = Area.circle(
    try! Circle(center: Coordinate(uncheckedLatitude: 0, longitude: 0), radius: 1))

  /// Builds every polygon fence (its edge and stripe indexes are most of the work), shared out
  /// over the processors, and puts each in its zone in place of the placeholder.
  private static func buildPolygons(
    _ recipes: [PolygonRecipe], into zones: inout [Zone]
  ) throws(PayloadError) {
    let parts = max(1, min(recipes.count, 8))
    nonisolated(unsafe) let built = UnsafeMutableBufferPointer<Result<MultiPolygon, PayloadError>>
      .allocate(capacity: recipes.count)
    defer { built.deinitialize().deallocate() }
    let step: @Sendable (Int) -> Void = { part in
      for index in stride(from: part, to: recipes.count, by: parts) {
        let recipe = recipes[index]
        (built.baseAddress! + index).initialize(
          to: build(recipe.polygons, fence: recipe.fenceID, zone: recipe.zoneID))
      }
    }
    if parts == 1 { step(0) } else { DispatchQueue.concurrentPerform(iterations: parts, execute: step) }
    for (index, recipe) in recipes.enumerated() {
      let multipolygon = try built[index].get()
      let fence = zones[recipe.zone].fences[recipe.fence]
      zones[recipe.zone].fences[recipe.fence] = Fence(
        id: fence.id, name: fence.name, area: .polygon(multipolygon))
    }
  }

  /// One polygon fence's area, built as the zone loader builds it (so the zone is the same
  /// value).
  private static func build(
    _ polygons: [[[Coordinate]]], fence: String, zone: String
  ) -> Result<MultiPolygon, PayloadError> {
    do {
      let parts = try polygons.map { rings in
        try Polygon(exterior: rings.first ?? [], holes: Array(rings.dropFirst()), name: fence)
      }
      return .success(try MultiPolygon(parts, name: fence))
    } catch {
      return .failure(PayloadError(offset: 0, "zone \(zone) fence \(fence): \(error)"))
    }
  }
}
