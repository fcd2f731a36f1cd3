import FenceEngine
import FenceGEOS
import FenceGeometry

/// Why zones could not be written as GeoJSON that loads back equal: names the zone, the fence
/// or GEOLINE, and the property at fault.
///
/// `zone "dock": fence "dock-1": property "geometry": not a valid polygon: …`
public struct ZoneWriteError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The zone's id.
  public var zone: String?
  /// The fence's or GEOLINE's id, when the problem is in one.
  public var fence: String?
  /// The rule, `customData`, `geometry` or other part at fault.
  public var property: String?
  /// What is wrong and why it cannot be written.
  public var message: String

  public init(zone: String? = nil, fence: String? = nil, property: String? = nil, message: String) {
    self.zone = zone
    self.fence = fence
    self.property = property
    self.message = message
  }

  public var description: String {
    var parts: [String] = []
    if let zone { parts.append("zone \(quoted(zone))") }
    if let fence { parts.append("fence \(quoted(fence))") }
    if let property { parts.append("property \(quoted(property))") }
    parts.append(message)
    return parts.joined(separator: ": ")
  }
}

/// Writes zones as a GeoJSON FeatureCollection that ``ZoneLoader`` loads back equal.
///
/// `ZoneLoader.loadZones(from:)` with default ``ZoneLoadOptions`` (no repair, any point radius,
/// any default rules) returns zones `==` to the input sorted by id: everything is written
/// explicitly, so no loader default matters.
///
/// The layout, one zone setting or feature per line, is the same bytes for the same set of
/// zones whatever their order:
///
/// - The top-level `zones` member holds each zone's settings, zones sorted by id: `zoneName`
///   and `description` when set, then every rule (`minimumRetriggerTime`, `dwell`, `null` for
///   none, `checkOut`, `initialTrigger`, `exitHysteresis`, `exitConfirmations`) and
///   `customData`, members in their stored order.
/// - `features` lists, zone by zone in the same order, the zone's fences in order and then its
///   GEOLINEs in order. Each has its `id` and `properties.zone`, `properties.name` when it
///   has a name, and `properties.customData` as `{}` (the zone's data is in `zones`; an empty
///   object keeps `name` out of it). A circle is a Point with `radius` (point fences too: they
///   are circles); a polygon area is a Polygon when it has one part, else a MultiPolygon,
///   rings and their winding as stored; a GEOLINE is a LineString (never a MultiLineString,
///   so an id containing `#` is kept) with its `direction`.
/// - Numbers are the shortest text that reads back as the same `Double` (``JSONWriter``).
///
/// What GeoJSON read by the loader cannot hold makes the writer throw rather than lose it:
/// a zone with no fence and no GEOLINE, an empty zone or fence id, two zones with one id, a
/// fence or GEOLINE id used twice in the set, a rule outside what the loader accepts
/// (negative or non-finite times and distances, `exitConfirmations` outside 1...1000000),
/// a non-finite number in `customData` or `customData` nested too deep for the JSON reader,
/// a coordinate out of range, and a polygon GEOS finds invalid (the loader rejects it
/// unless repairing).
public enum ZoneSetWriter {
  /// The GeoJSON text of zones, as UTF-8 bytes (see the type's discussion).
  ///
  /// Polygons are validated with GEOS, as the loader does, so this takes about as long as
  /// loading the result.
  ///
  /// - Throws: ``ZoneWriteError`` for the first zone that cannot be written faithfully.
  public static func bytes(_ zones: [Zone]) throws(ZoneWriteError) -> [UInt8] {
    let sorted = zones.sorted { $0.id < $1.id }
    var checker = ZoneSetChecker(sortedZones: sorted)
    for index in sorted.indices { try checker.check(zoneAt: index) }

    // Written as bytes: the text of a million zones took about 2 s of `String` appends, each
    // JSON string and number first made as bytes of its own.
    var out: [UInt8] = []
    out.reserveCapacity(estimatedByteCount(of: sorted))
    JSONWriter.appendASCII(#"{"type":"FeatureCollection","zones":{"#, to: &out)
    for (index, zone) in sorted.enumerated() {
      JSONWriter.appendASCII(index == 0 ? "\n" : ",\n", to: &out)
      appendSettings(of: zone, to: &out)
    }
    JSONWriter.appendASCII(sorted.isEmpty ? #"},"features":["# : "\n},\"features\":[", to: &out)
    var first = true
    for zone in sorted {
      if let roam = zone.rules.roam {
        // A roaming zone's feature: no geometry, its `roam` (also in its settings above).
        JSONWriter.appendASCII(first ? "\n" : ",\n", to: &out)
        first = false
        JSONWriter.appendASCII(#"{"type":"Feature","properties":{"zone":"#, to: &out)
        JSONWriter.appendString(zone.id, to: &out)
        JSONWriter.appendASCII(#","roam":"#, to: &out)
        JSONWriter.append(roam.json, to: &out)
        JSONWriter.appendASCII(#","customData":{}},"geometry":null}"#, to: &out)
      }
      for fence in zone.fences {
        JSONWriter.appendASCII(first ? "\n" : ",\n", to: &out)
        first = false
        appendFeature(fence, zone: zone.id, to: &out)
      }
      for geoline in zone.geolines {
        JSONWriter.appendASCII(first ? "\n" : ",\n", to: &out)
        first = false
        appendFeature(geoline, zone: zone.id, to: &out)
      }
    }
    JSONWriter.appendASCII(first ? "]}\n" : "\n]}\n", to: &out)
    return out
  }

  /// The GeoJSON text of zones (see the type's discussion), ending in a newline: ``bytes(_:)``
  /// as a string.
  ///
  /// - Throws: ``ZoneWriteError`` for the first zone that cannot be written faithfully.
  public static func string(_ zones: [Zone]) throws(ZoneWriteError) -> String {
    String(decoding: try bytes(zones), as: UTF8.self)
  }

  /// Room to reserve for the text of `zones`: at least what most zone sets take, so that the
  /// text is not copied as it grows. A million circles take 308 bytes each; an array that
  /// doubled as it was written held 201 MB and 402 MB at once near the end. Reserved room that
  /// is never written costs no memory once the array is large enough to be mapped on its own,
  /// so the estimate errs high: 400 bytes a zone and 200 a fence or GEOLINE besides their ids,
  /// names and descriptions, and 48 a vertex. A zone whose custom data or rules v2 take more
  /// makes the array grow as before.
  static func estimatedByteCount(of zones: [Zone]) -> Int {
    var total = 64
    zones.withUnsafeBufferPointer { zones in
      for zone in zones {
        total += 400 + 2 * zone.id.utf8.count
        total += 2 * ((zone.name?.utf8.count ?? 0) + (zone.description?.utf8.count ?? 0))
        for fence in zone.fences {
          total += 200 + 2 * fence.id.utf8.count + 2 * (fence.name?.utf8.count ?? 0)
          if case .polygon(let shape) = fence.area { total += 48 * shape.vertexCount }
        }
        for geoline in zone.geolines {
          total += 200 + 2 * geoline.id.utf8.count + 48 * geoline.line.vertices.count
        }
      }
    }
    return total
  }

  // MARK: Writing

  /// `"<zone id>":{settings…}` for the top-level `zones` member.
  static func appendSettings(of zone: Zone, to out: inout [UInt8]) {
    JSONWriter.appendString(zone.id, to: &out)
    JSONWriter.appendASCII(":{", to: &out)
    if let name = zone.name {
      JSONWriter.appendASCII(#""zoneName":"#, to: &out)
      JSONWriter.appendString(name, to: &out)
      JSONWriter.appendASCII(",", to: &out)
    }
    if let description = zone.description {
      JSONWriter.appendASCII(#""description":"#, to: &out)
      JSONWriter.appendString(description, to: &out)
      JSONWriter.appendASCII(",", to: &out)
    }
    let rules = zone.rules
    JSONWriter.appendASCII(#""minimumRetriggerTime":"#, to: &out)
    JSONWriter.appendNumber(rules.minimumRetriggerTime, to: &out)
    JSONWriter.appendASCII(#","dwell":"#, to: &out)
    if let dwell = rules.dwell {
      JSONWriter.appendNumber(dwell, to: &out)
    } else {
      JSONWriter.appendASCII("null", to: &out)
    }
    JSONWriter.appendASCII(#","checkOut":"#, to: &out)
    JSONWriter.appendASCII(rules.checkOut ? "true" : "false", to: &out)
    JSONWriter.appendASCII(#","initialTrigger":"#, to: &out)
    JSONWriter.appendASCII(rules.initialTrigger ? "true" : "false", to: &out)
    JSONWriter.appendASCII(#","exitHysteresis":"#, to: &out)
    JSONWriter.appendNumber(rules.exitHysteresis, to: &out)
    JSONWriter.appendASCII(#","exitConfirmations":"#, to: &out)
    JSONWriter.appendInteger(Int64(rules.exitConfirmations), to: &out)
    // Rules v2 only when set (their absence is their default, which no loader option changes).
    if rules.hasRulesV2 {
      for (key, value) in rules.rulesV2JSON.members {
        JSONWriter.appendASCII(",", to: &out)
        JSONWriter.appendString(key, to: &out)
        JSONWriter.appendASCII(":", to: &out)
        JSONWriter.append(value, to: &out)
      }
    }
    JSONWriter.appendASCII(#","customData":"#, to: &out)
    JSONWriter.append(zone.customData, to: &out)
    JSONWriter.appendASCII("}", to: &out)
  }

  /// The start of a feature up to its geometry's `coordinates` value; `extra` writes the
  /// properties after `name`.
  static func appendFeatureStart(
    id: String, zone: String, name: String?, geometry: StaticString, to out: inout [UInt8],
    extra: (inout [UInt8]) -> Void
  ) {
    JSONWriter.appendASCII(#"{"type":"Feature","id":"#, to: &out)
    JSONWriter.appendString(id, to: &out)
    JSONWriter.appendASCII(#","properties":{"zone":"#, to: &out)
    JSONWriter.appendString(zone, to: &out)
    if let name {
      JSONWriter.appendASCII(#","name":"#, to: &out)
      JSONWriter.appendString(name, to: &out)
    }
    extra(&out)
    JSONWriter.appendASCII(#","customData":{}},"geometry":{"type":""#, to: &out)
    JSONWriter.appendASCII(geometry, to: &out)
    JSONWriter.appendASCII(#"","coordinates":"#, to: &out)
  }

  static func appendFeature(_ fence: Fence, zone: String, to out: inout [UInt8]) {
    switch fence.area {
    case .circle(let circle):
      appendFeatureStart(id: fence.id, zone: zone, name: fence.name, geometry: "Point", to: &out) {
        JSONWriter.appendASCII(#","radius":"#, to: &$0)
        JSONWriter.appendNumber(circle.radius, to: &$0)
      }
      appendPosition(circle.center, to: &out)
    case .polygon(let area):
      let parts = area.polygons
      appendFeatureStart(
        id: fence.id, zone: zone, name: fence.name,
        geometry: parts.count == 1 ? "Polygon" : "MultiPolygon", to: &out
      ) { _ in }
      if parts.count == 1 {
        appendRings(parts[0], to: &out)
      } else {
        JSONWriter.appendASCII("[", to: &out)
        for (index, polygon) in parts.enumerated() {
          if index > 0 { JSONWriter.appendASCII(",", to: &out) }
          appendRings(polygon, to: &out)
        }
        JSONWriter.appendASCII("]", to: &out)
      }
    }
    JSONWriter.appendASCII("}}", to: &out)
  }

  static func appendFeature(_ geoline: Geoline, zone: String, to out: inout [UInt8]) {
    appendFeatureStart(id: geoline.id, zone: zone, name: geoline.name, geometry: "LineString", to: &out) {
      JSONWriter.appendASCII(#","direction":""#, to: &$0)
      $0.append(contentsOf: geoline.direction.rawValue.utf8)
      JSONWriter.appendASCII("\"", to: &$0)
    }
    appendPositions(geoline.line.vertices, to: &out)
    JSONWriter.appendASCII("}}", to: &out)
  }

  static func appendRings(_ polygon: Polygon, to out: inout [UInt8]) {
    JSONWriter.appendASCII("[", to: &out)
    for (index, ring) in polygon.rings.enumerated() {
      if index > 0 { JSONWriter.appendASCII(",", to: &out) }
      appendPositions(ring, to: &out)
    }
    JSONWriter.appendASCII("]", to: &out)
  }

  static func appendPositions(_ coordinates: [Coordinate], to out: inout [UInt8]) {
    JSONWriter.appendASCII("[", to: &out)
    for (index, coordinate) in coordinates.enumerated() {
      if index > 0 { JSONWriter.appendASCII(",", to: &out) }
      appendPosition(coordinate, to: &out)
    }
    JSONWriter.appendASCII("]", to: &out)
  }

  /// `[longitude,latitude]`, GeoJSON's order.
  static func appendPosition(_ coordinate: Coordinate, to out: inout [UInt8]) {
    JSONWriter.appendASCII("[", to: &out)
    JSONWriter.appendNumber(coordinate.longitude, to: &out)
    JSONWriter.appendASCII(",", to: &out)
    JSONWriter.appendNumber(coordinate.latitude, to: &out)
    JSONWriter.appendASCII("]", to: &out)
  }
}

/// Checks, zone by zone, that everything can be written so that it loads back equal.
struct ZoneSetChecker {
  /// The deepest `customData` the JSON reader takes where the writer puts it: the document,
  /// the `zones` member and the zone's settings are three levels above it.
  static let maximumCustomDataDepth = JSONTapeParser.maximumDepth - 3

  /// The zones, sorted by id: two with the same id are neighbours.
  let zones: [Zone]
  /// Each fence and GEOLINE id seen, with its zone's index in ``zones``; reserved for them all
  /// at once (a million zones' ids grew the table some twenty times).
  var fenceZones: [String: Int] = [:]
  var geos: GEOSContext?

  init(sortedZones: [Zone]) {
    zones = sortedZones
    fenceZones.reserveCapacity(sortedZones.reduce(0) { $0 + $1.fences.count + $1.geolines.count })
  }

  /// Checks the zone at `index`, after those before it.
  mutating func check(zoneAt index: Int) throws(ZoneWriteError) {
    let zone = zones[index]
    func fail(fence: String?, _ property: String?, _ message: String) -> ZoneWriteError {
      ZoneWriteError(zone: zone.id, fence: fence, property: property, message: message)
    }
    func fail(_ property: String?, _ message: String) -> ZoneWriteError {
      fail(fence: nil, property, message)
    }
    guard !zone.id.isEmpty else {
      throw fail(nil, "a zone id must not be empty (the loader rejects an empty properties.zone)")
    }
    guard index == 0 || zones[index - 1].id != zone.id else {
      throw fail(nil, "two zones have this id; zone ids must be unique")
    }
    guard !zone.fences.isEmpty || !zone.geolines.isEmpty || zone.rules.roam != nil else {
      throw fail(
        nil,
        "the zone has no fence and no GEOLINE: GeoJSON carries a zone only on its features, so it would be lost")
    }
    try checkRules(zone.rules, fail: fail)
    try checkCustomData(zone.customData, fail: fail)

    for fence in zone.fences {
      func fenceFail(_ property: String?, _ message: String) -> ZoneWriteError {
        fail(fence: fence.id, property, message)
      }
      try claim(fence.id, zoneAt: index, fail: fenceFail)
      switch fence.area {
      case .circle(let circle):
        try checkCoordinates([circle.center], fail: fenceFail)
        guard circle.radius.isFinite, circle.radius > 0 else {
          throw fenceFail("radius", "expected a number of metres > 0, got \(circle.radius)")
        }
      case .polygon(let area):
        for polygon in area.polygons {
          for ring in polygon.rings { try checkCoordinates(ring, fail: fenceFail) }
        }
        try validate(area, id: fence.id, fail: fenceFail)
      }
    }
    for geoline in zone.geolines {
      func geolineFail(_ property: String?, _ message: String) -> ZoneWriteError {
        fail(fence: geoline.id, property, message)
      }
      try claim(geoline.id, zoneAt: index, fail: geolineFail)
      try checkCoordinates(geoline.line.vertices, fail: geolineFail)
    }
  }

  mutating func claim(
    _ id: String, zoneAt index: Int, fail: (String?, String) -> ZoneWriteError
  ) throws(ZoneWriteError) {
    guard !id.isEmpty else {
      throw fail("id", "a fence or GEOLINE id must not be empty (the loader rejects an empty feature id)")
    }
    if let other = fenceZones.updateValue(index, forKey: id) {
      let place = other == index ? "this zone" : "zone \(quoted(zones[other].id))"
      throw fail(
        "id", "the id is used twice (also in \(place)); fence and GEOLINE ids must be unique across all zones")
    }
  }

  func checkRules(_ rules: ZoneRules, fail: (String?, String) -> ZoneWriteError) throws(ZoneWriteError) {
    func nonNegative(_ x: Double, _ key: String, _ unit: String) throws(ZoneWriteError) {
      guard x.isFinite, x >= 0 else {
        throw fail(key, "expected a number of \(unit) >= 0, got \(x)")
      }
    }
    try nonNegative(rules.minimumRetriggerTime, "minimumRetriggerTime", "seconds")
    if let dwell = rules.dwell { try nonNegative(dwell, "dwell", "seconds") }
    try nonNegative(rules.exitHysteresis, "exitHysteresis", "metres")
    guard (1...1_000_000).contains(rules.exitConfirmations) else {
      throw fail(
        "exitConfirmations",
        "expected a whole number from 1 to 1000000 (what the loader accepts), got \(rules.exitConfirmations)")
    }
    // Rules v2 as the loader will read them back.
    guard rules.hasRulesV2 else { return }
    for (key, value) in rules.rulesV2JSON.members {
      var check = ZoneRules()
      do throws(RuleSettingError) {
        try check.setRuleV2(key, value)
      } catch {
        throw fail(key, error.path.isEmpty ? error.message : "\(error.path): \(error.message)")
      }
    }
  }

  func checkCustomData(_ data: JSONObject, fail: (String?, String) -> ZoneWriteError) throws(ZoneWriteError) {
    /// Checks a value at `path` (`customData["a"][2]`) whose container depth is `depth`.
    func check(_ value: JSONValue, path: String, depth: Int) throws(ZoneWriteError) {
      switch value {
      case .number(let x):
        guard x.isFinite else {
          throw fail("customData", "\(shortened(path)) is \(x), which JSON cannot hold")
        }
      case .array(let elements):
        try checkDepth(depth + 1, path: path)
        for (index, element) in elements.enumerated() {
          try check(element, path: path + "[\(index)]", depth: depth + 1)
        }
      case .object(let object):
        try checkDepth(depth + 1, path: path)
        for member in object.members {
          try check(member.value, path: path + "[\(quoted(member.key))]", depth: depth + 1)
        }
      case .null, .bool, .string:
        break
      }
    }
    func checkDepth(_ depth: Int, path: String) throws(ZoneWriteError) {
      guard depth <= Self.maximumCustomDataDepth else {
        throw fail(
          "customData",
          "nested more than \(Self.maximumCustomDataDepth) levels deep, more than the JSON reader takes there (at \(shortened(path)))")
      }
    }
    /// A path cut to 80 characters and `…`: a deep one is long.
    func shortened(_ path: String) -> String {
      path.count > 80 ? String(path.prefix(80)) + "…" : path
    }
    try check(.object(data), path: "customData", depth: 0)
  }

  func checkCoordinates(_ coordinates: [Coordinate], fail: (String?, String) -> ZoneWriteError)
    throws(ZoneWriteError)
  {
    for c in coordinates where !Coordinate.isValid(latitude: c.latitude, longitude: c.longitude) {
      throw fail(
        "geometry",
        "coordinate (lat \(c.latitude), lon \(c.longitude)) is not finite or out of range")
    }
  }

  /// GEOS validation, as the loader does it without repair.
  mutating func validate(_ area: MultiPolygon, id: String, fail: (String?, String) -> ZoneWriteError)
    throws(ZoneWriteError)
  {
    if geos == nil {
      do {
        geos = try GEOSContext()
      } catch {
        throw fail("geometry", "cannot start GEOS to validate the polygon: \(error)")
      }
    }
    guard let geos else { preconditionFailure("GEOS context was just created") }
    do {
      try geos.validate(area, name: id)
    } catch {
      throw fail(
        "geometry",
        "not a valid polygon, which the loader rejects unless repairing: "
          + ShapeReader.message(error, fenceID: id))
    }
  }
}
