import FenceEngine
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

@Suite struct ZoneLoaderTests {
  func c(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(uncheckedLatitude: latitude, longitude: longitude)
  }

  /// The loader's check of reserved property names says exactly what the public set says.
  @Test func theReservedPropertyCheckMatchesThePublicSet() {
    for key in ZoneLoader.reservedProperties { #expect(ZoneLoader.isReserved(key), "\(key)") }
    for key in ["name", "customData", "Zone", "ID", "radius ", "", "dwellTime", "type"] {
      #expect(!ZoneLoader.isReserved(key), "\(key)")
    }
    // The v1 rules, the placing keys, and the six settings of rules v2.
    #expect(ZoneLoader.reservedProperties.count == 17)
    for key in ["schedule", "validFrom", "validUntil", "exitOnRemove", "conditions", "roam"] {
      #expect(ZoneLoader.isReserved(key), "\(key)")
    }
  }

  func load(_ text: String, options: ZoneLoadOptions = ZoneLoadOptions()) throws -> [Zone] {
    try ZoneLoader.loadZones(from: Array(text.utf8), options: options)
  }

  /// The error thrown for a text, or nil.
  func loadError(_ text: String, options: ZoneLoadOptions = ZoneLoadOptions()) -> ZoneLoadError? {
    do {
      _ = try load(text, options: options)
      return nil
    } catch let error as ZoneLoadError {
      return error
    } catch {
      Issue.record("unexpected error \(error)")
      return nil
    }
  }

  /// A FeatureCollection of the given features (and extra top-level members).
  func collection(_ features: String..., extra: String = "") -> String {
    #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]" + extra + "}"
  }

  func point(_ id: String, _ properties: String = "{}", lon: Double = -74, lat: Double = 40.5)
    -> String
  {
    #"{"type":"Feature","id":"\#(id)","properties":\#(properties),"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
  }

  @Test func harborZonesLoadExactly() throws {
    let zones = try ZoneLoader.loadZones(contentsOf: fixturePath("zones/nyharbor-zones.geojson"))
    #expect(
      zones.map(\.id) == [
        "st-george", "whitehall", "narrows", "kill-van-kull", "governors-island",
        "upper-bay-anchorage",
      ])
    #expect(
      zones[0]
        == Zone(
          id: "st-george", name: "St. George Ferry Terminal",
          customData: ["terminal": .string("St. George"), "borough": .string("Staten Island")],
          fences: [try .circle(id: "st-george-slips", center: c(40.644, -74.0716), radius: 300)],
          rules: ZoneRules(minimumRetriggerTime: 300, dwell: 120)))
    #expect(zones[1].fences == [try .circle(id: "whitehall-slips", center: c(40.7008, -74.0131), radius: 250)])
    #expect(
      zones[2]
        == Zone(
          id: "narrows", name: "The Narrows",
          customData: [
            "waterway": .string("The Narrows"),
            "note": .string("harbor entrance under the Verrazzano bridge"),
          ],
          geolines: [
            Geoline(
              id: "narrows-line",
              line: try Polyline([c(40.601, -74.06), c(40.605, -74.044), c(40.61, -74.028)]),
              direction: .both)
          ],
          rules: ZoneRules(minimumRetriggerTime: 600)))
    #expect(zones[3].geolines.map(\.id) == ["kvk-line"])
    #expect(zones[3].rules == ZoneRules(minimumRetriggerTime: 600))
    #expect(zones[4].rules == ZoneRules(exitHysteresis: 25))
    #expect(zones[4].customData == ["kind": .string("island")])
    let island = try Polygon(exterior: [
      c(40.693, -74.024), c(40.686, -74.023), c(40.685, -74.016), c(40.69, -74.011),
      c(40.695, -74.015), c(40.693, -74.024),
    ])
    #expect(zones[4].fences == [Fence(id: "governors-island-shore", area: .polygon(MultiPolygon(island)))])
    #expect(zones[5].name == "Upper Bay anchorage")
    #expect(zones[5].rules == ZoneRules(minimumRetriggerTime: 1800, dwell: 900))
  }

  @Test func boroughsAreRejectedWithGEOSReasonUnlessRepaired() throws {
    // Queens has a ring that touches itself at a vertex, which GEOS (OGC rules) calls invalid.
    let path = fixturePath("zones/nyc-boroughs.geojson")
    #expect(throws: ZoneLoadError(
      file: path, featureIndex: 1, featureID: "boro-4", property: "geometry",
      message: "boro-4 part 17: self-intersection (Ring Self-intersection[-73.83728 40.78901]) (loading with repair, `--repair` on the command line, fixes it with GEOS MakeValid)")
    ) {
      try ZoneLoader.loadZones(contentsOf: path)
    }
    let boroughs = try ZoneLoader.loadZones(contentsOf: path, options: ZoneLoadOptions(repair: true))
    #expect(boroughs.map(\.id) == ["boro-5", "boro-4", "boro-3", "boro-1", "boro-2"])
    #expect(boroughs[0].customData == ["name": .string("Staten Island"), "boroCode": .number(5)])
    #expect(boroughs[0].fences[0].name == "Staten Island")
    let vertices = boroughs.reduce(0) { total, zone in
      guard case .polygon(let area) = zone.fences[0].area else { return total }
      return total + area.vertexCount
    }
    #expect(vertices > 70_000)
  }

  @Test func portsLoadAsPointFences() throws {
    let ports = try ZoneLoader.loadZones(contentsOf: fixturePath("zones/world-ports-us-east.geojson"))
    #expect(ports.count == 307)
    #expect(ports[0].id == "wpi-3730.0")
    #expect(ports[0].fences == [try .point(id: "wpi-3730.0", name: "GODERICH", at: c(43.75, -81.733333))])
    #expect(ports[0].customData == ["name": .string("GODERICH"), "country": .string("CA"), "harborSize": .string("S")])
  }

  @Test func pointRadiusOptionSizesPointFencesOnly() throws {
    let zones = try load(
      collection(point("a"), point("b", #"{"radius":20}"#)), options: ZoneLoadOptions(pointRadius: 50))
    #expect(zones[0].fences == [try .point(id: "a", at: c(40.5, -74), radius: 50)])
    #expect(zones[1].fences == [try .circle(id: "b", center: c(40.5, -74), radius: 20)])
  }

  @Test func fenceIDsComeFromIDThenPropertiesThenIndex() throws {
    let text = collection(
      #"{"type":"Feature","id":7,"properties":{"id":"ignored"},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      #"{"type":"Feature","properties":{"id":"from-props"},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      #"{"type":"Feature","properties":null,"geometry":{"type":"Point","coordinates":[1,2]}}"#)
    let zones = try load(text)
    #expect(zones.map(\.id) == ["7", "from-props", "f2"])
    #expect(zones.map { $0.fences[0].id } == ["7", "from-props", "f2"])
  }

  @Test func multiLineStringGivesOneGeolinePerPart() throws {
    let text = collection(
      #"{"type":"Feature","id":"river","properties":{"zone":"crossings","direction":"leftToRight"},"geometry":{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3],[4,3]]]}}"#)
    let zones = try load(text)
    #expect(zones.count == 1)
    #expect(
      zones[0].geolines == [
        Geoline(id: "river#0", line: try Polyline([c(0, 0), c(1, 1)]), direction: .leftToRight),
        Geoline(id: "river#1", line: try Polyline([c(2, 2), c(3, 3), c(3, 4)]), direction: .leftToRight),
      ])
    #expect(zones[0].customData == [:])
  }

  @Test func featuresOfOneZoneShareRulesAndMergeCustomData() throws {
    let text = collection(
      point("a", #"{"zone":"z","dwell":60,"checkOut":false,"terminal":"A"}"#),
      point("b", #"{"zone":"z","dwell":60,"customData":{"pier":3}}"#))
    let zones = try load(text)
    #expect(zones.count == 1)
    #expect(zones[0].fences.map(\.id) == ["a", "b"])
    #expect(zones[0].rules == ZoneRules(dwell: 60, checkOut: false))
    #expect(zones[0].customData == ["terminal": .string("A"), "pier": .number(3)])
  }

  @Test func conflictingRulesNameBothFeatures() {
    let text = collection(
      point("a", #"{"zone":"z","dwell":60}"#), point("b", #"{"zone":"z"}"#),
      point("c", #"{"zone":"z","dwell":90}"#))
    #expect(
      loadError(text)
        == ZoneLoadError(
          featureIndex: 2, featureID: "c", zone: "z", property: "dwell",
          message: #"zone "z" gets 90 here but 60 from feature 0 (id "a")"#))
    #expect(
      loadError(text)?.description
        == #"feature 2 (id "c", zone "z"): property "dwell": zone "z" gets 90 here but 60 from feature 0 (id "a")"#)
  }

  @Test func conflictingCustomDataIsAnError() {
    let text = collection(
      point("a", #"{"zone":"z","berth":1}"#), point("b", #"{"zone":"z","berth":2}"#))
    #expect(
      loadError(text)?.description
        == #"feature 1 (id "b", zone "z"): property "customData": customData of zone "z" gets 2 here but 1 from feature 0 (id "a") (key "berth")"#)
  }

  @Test func topLevelZonesMemberSetsRulesNameAndCustomData() throws {
    let text = collection(
      point("a", #"{"zone":"z","kind":"dock"}"#),
      extra: #","zones":{"z":{"name":"Zed","description":"a dock","minimumRetriggerTime":30,"initialTrigger":false,"exitConfirmations":2,"customData":{"owner":"port"}}}"#)
    let zones = try load(text)
    #expect(
      zones == [
        Zone(
          id: "z", name: "Zed", description: "a dock",
          customData: ["kind": .string("dock"), "owner": .string("port")],
          fences: [try .point(id: "a", at: c(40.5, -74))],
          rules: ZoneRules(minimumRetriggerTime: 30, initialTrigger: false, exitConfirmations: 2))
      ])
    let conflict = collection(
      point("a", #"{"zone":"z","dwell":5}"#), extra: #","zones":{"z":{"dwell":6}}"#)
    #expect(
      loadError(conflict)?.description
        == #"zones member "z": property "dwell": zone "z" gets 6 here but 5 from feature 0 (id "a")"#)
    let orphan = collection(point("a"), extra: #","zones":{"zz":{"dwell":6}}"#)
    #expect(
      loadError(orphan)?.description
        == #"zones member "zz": no feature belongs to this zone (set properties.zone of its features to "zz")"#)
  }

  @Test func defaultsApplyOnlyToRulesAZoneDoesNotSet() throws {
    let defaults = ZoneRules(
      minimumRetriggerTime: 10, dwell: 300, checkOut: false, initialTrigger: false,
      exitHysteresis: 5, exitConfirmations: 3)
    let zones = try load(
      collection(point("a", #"{"dwell":null,"exitHysteresis":0}"#), point("b")),
      options: ZoneLoadOptions(defaults: defaults))
    #expect(
      zones[0].rules
        == ZoneRules(
          minimumRetriggerTime: 10, dwell: nil, checkOut: false, initialTrigger: false,
          exitHysteresis: 0, exitConfirmations: 3))
    #expect(zones[1].rules == defaults)
  }

  struct BadCase: CustomTestStringConvertible, Sendable {
    let name: String
    let feature: String
    let message: String
    var testDescription: String { name }
  }

  @Test(arguments: [
    BadCase(
      name: "radius not a number",
      feature: #"{"type":"Feature","id":"dock-2","properties":{"radius":"abc"},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      message: #"feature 0 (id "dock-2"): property "radius": expected a number of metres above 0 and at most 10000000, got "abc""#),
    BadCase(
      name: "negative radius",
      feature: #"{"type":"Feature","id":"d","properties":{"radius":-5},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      message: #"feature 0 (id "d"): property "radius": expected a number of metres above 0 and at most 10000000, got -5"#),
    BadCase(
      name: "swapped coordinates",
      feature: #"{"type":"Feature","id":"nyc","properties":{},"geometry":{"type":"Point","coordinates":[40.7,-174.0]}}"#,
      message: #"feature 0 (id "nyc"): property "geometry": latitude -174.0 is out of range but longitude 40.7 is not: were latitude and longitude swapped? GeoJSON positions are [longitude, latitude]"#),
    BadCase(
      name: "bad rule type",
      feature: #"{"type":"Feature","id":"d","properties":{"checkOut":"yes"},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      message: #"feature 0 (id "d"): property "checkOut": expected true or false, got "yes""#),
    BadCase(
      name: "bad exit confirmations",
      feature: #"{"type":"Feature","id":"d","properties":{"exitConfirmations":1.5},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
      message: #"feature 0 (id "d"): property "exitConfirmations": expected a whole number from 1 to 1000000, got 1.5"#),
    BadCase(
      name: "bad direction",
      feature: #"{"type":"Feature","id":"l","properties":{"direction":"north"},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}"#,
      message: #"feature 0 (id "l"): property "direction": expected "both", "leftToRight" or "rightToLeft", got "north""#),
    BadCase(
      name: "unclosed ring",
      feature: #"{"type":"Feature","id":"p","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}}"#,
      message: #"feature 0 (id "p"): property "geometry": ring 0 is not closed (its last position must equal its first)"#),
    BadCase(
      name: "too few points",
      feature: #"{"type":"Feature","id":"p","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}}"#,
      message: #"feature 0 (id "p"): property "geometry": ring 0 has 2 distinct points; at least 3 are required"#),
    BadCase(
      name: "self-intersection with GEOS's reason",
      feature: #"{"type":"Feature","id":"bowtie","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}"#,
      message: #"feature 0 (id "bowtie"): property "geometry": self-intersection (Self-intersection[0.5 0.5]) (loading with repair, `--repair` on the command line, fixes it with GEOS MakeValid)"#),
    BadCase(
      name: "unsupported geometry",
      feature: #"{"type":"Feature","id":"m","properties":{},"geometry":{"type":"MultiPoint","coordinates":[[1,2]]}}"#,
      message: #"feature 0 (id "m"): property "geometry": unsupported geometry type "MultiPoint": expected Point, Polygon, MultiPolygon, LineString or MultiLineString"#),
    BadCase(
      name: "no geometry",
      feature: #"{"type":"Feature","id":"n","properties":{},"geometry":null}"#,
      message: #"feature 0 (id "n"): property "geometry": expected a geometry object, got null"#),
    BadCase(
      name: "short position",
      feature: #"{"type":"Feature","id":"s","properties":{},"geometry":{"type":"Point","coordinates":[1]}}"#,
      message: #"feature 0 (id "s"): property "geometry": coordinates: expected a position [longitude, latitude], got [1]"#),
  ])
  func badFeaturesNameFeaturePropertyAndExpectation(_ c: BadCase) {
    #expect(loadError(collection(c.feature))?.description == c.message)
  }

  @Test func duplicateFenceIDsAreAnError() {
    let text = collection(point("a"), point("a", #"{"zone":"other"}"#))
    #expect(
      loadError(text)?.description
        == #"feature 1 (id "a", zone "other"): property "id": fence id "a" is already used by feature 0 (id "a"); fence and GEOLINE ids must be unique"#)
  }

  /// An id that is its zone's own is claimed by the zone, the others in the loader's table
  /// (`fenceOwners`): a duplicate is found whichever way each of the two is held, and a zone
  /// of a feature's own id may still gather other fences.
  @Test func duplicateFenceIDsAreFoundWhereverTheFirstIsHeld() throws {
    let already = #"fence id "a" is already used by feature 0 (id "a"); fence and GEOLINE ids must be unique"#
    let cases = [
      // In another zone, then a zone of its own.
      (collection(point("a", #"{"zone":"other"}"#), point("a")), #"feature 1 (id "a"): property "id": "# + already),
      // In the zone named as it (given as `zone`), then a zone of its own.
      (collection(point("a", #"{"zone":"a"}"#), point("a")), #"feature 1 (id "a"): property "id": "# + already),
      // A zone of its own, then the zone named as it given as `zone`.
      (collection(point("a"), point("a", #"{"zone":"a"}"#)), #"feature 1 (id "a"): property "id": "# + already),
      // In another zone twice.
      (collection(point("a", #"{"zone":"z1"}"#), point("a", #"{"zone":"z2"}"#)),
       #"feature 1 (id "a", zone "z2"): property "id": "# + already),
    ]
    for (text, message) in cases {
      #expect(loadError(text)?.description == message)
    }
    // A zone of a feature's own id takes other features' fences.
    let zones = try load(collection(point("x"), point("y", #"{"zone":"x"}"#), point("z", #"{"zone":"y"}"#)))
    #expect(zones.map(\.id) == ["x", "y"])
    #expect(zones.map { $0.fences.map(\.id) } == [["x", "y"], ["z"]])
  }

  /// The defining feature is named by its own id, read again from the document: its `id`, its
  /// `properties.id` (a number written as JSON writes it), or `f<index>`; a MultiLineString's
  /// GEOLINE ids are its id with `#<n>`.
  @Test func duplicateFenceIDsNameTheDefiningFeaturesID() {
    let numbered = #"{"type":"Feature","properties":{"id":7},"geometry":{"type":"Point","coordinates":[1,2]}}"#
    #expect(
      loadError(collection(point("x"), numbered, point("7")))?.description
        == #"feature 2 (id "7"): property "id": fence id "7" is already used by feature 1 (id "7"); fence and GEOLINE ids must be unique"#)
    let anonymous = #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}"#
    #expect(
      loadError(collection(anonymous, point("f0")))?.description
        == #"feature 1 (id "f0"): property "id": fence id "f0" is already used by feature 0 (id "f0"); fence and GEOLINE ids must be unique"#)
    let lines = #"{"type":"Feature","id":"L","properties":{},"geometry":{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3]]]}}"#
    #expect(
      loadError(collection(lines, point("L#1")))?.description
        == #"feature 1 (id "L#1"): property "id": fence id "L#1" is already used by feature 0 (id "L"); fence and GEOLINE ids must be unique"#)
  }

  @Test func repairTurnsABowtieIntoTwoTriangles() throws {
    let bowtie = #"{"type":"Feature","id":"bowtie","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}"#
    let zones = try load(collection(bowtie), options: ZoneLoadOptions(repair: true))
    guard case .polygon(let area) = zones[0].fences[0].area else {
      Issue.record("not a polygon")
      return
    }
    #expect(area.polygons.count == 2)
    #expect(area.contains(latitude: 0.5, longitude: 0.25))
    #expect(!area.contains(latitude: 0.25, longitude: 0.5))
  }

  @Test func loadingIsAllOrNothing() {
    // The first features are fine; the last is bad: nothing is returned, the error names it.
    let text = collection(point("a"), point("b"), point("c", #"{"radius":0}"#))
    #expect(throws: ZoneLoadError(featureIndex: 2, featureID: "c", property: "radius", message: "expected a number of metres above 0 and at most 10000000, got 0")) {
      try load(text)
    }
  }

  @Test func trustedTopologySkipsGEOSValidationButNotStructure() throws {
    let bowtie = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"bowtie","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}]}"#
    #expect(throws: ZoneLoadError.self) { try load(bowtie) }
    var trusted = ZoneLoadOptions()
    trusted.trustsTopology = true
    let zones = try load(bowtie, options: trusted)
    #expect(zones.map(\.id) == ["bowtie"])
    #expect(zones[0].fences.count == 1)
    // Structure is still checked: an unclosed ring is an error, trusted or not.
    let unclosed = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"open","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1]]]}}]}"#
    #expect(throws: ZoneLoadError.self) { try load(unclosed, options: trusted) }
  }

  @Test func invalidJSONAndWrongTopLevelAreErrors() {
    #expect(loadError("{\"type\":\"FeatureCollection\",\n\"features\":[,]}")?.description == "invalid JSON at line 2, column 13: expected a JSON value, found ','")
    #expect(loadError(#"{"type":"Feature"}"#)?.description == #"property "type": expected a GeoJSON FeatureCollection, got type "Feature""#)
  }

  @Test func gzipZoneFilesReadTransparently() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let copy = directory.path + "/zones.geojson"
    try FileManager.default.copyItem(atPath: fixturePath("zones/nyharbor-zones.geojson"), toPath: copy)
    try run("/bin/gzip", [copy])
    #expect(
      try ZoneLoader.loadZones(contentsOf: copy + ".gz")
        == ZoneLoader.loadZones(contentsOf: fixturePath("zones/nyharbor-zones.geojson")))
    #expect(throws: ZoneLoadError.self) { try ZoneLoader.loadZones(contentsOf: copy) }
  }
}
