import FenceEngine
import FenceGeometry
import FenceTestSupport
import Testing

@testable import FenceFormats

@Suite struct ZoneSetWriterTests {
  func c(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(uncheckedLatitude: latitude, longitude: longitude)
  }

  /// A closed ring of the box's corners, counter-clockwise.
  func box(south: Double, west: Double, north: Double, east: Double) -> [Coordinate] {
    [c(south, west), c(south, east), c(north, east), c(north, west), c(south, west)]
  }

  /// Writes zones, loads them back with default options and checks they are the same zones.
  func expectRoundTrip(
    _ zones: [Zone], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let bytes = try ZoneSetWriter.bytes(zones)
    let loaded = try ZoneLoader.loadZones(from: bytes)
    let expected = zones.sorted { $0.id < $1.id }
    #expect(loaded.count == expected.count, sourceLocation: sourceLocation)
    for (got, want) in zip(loaded, expected) where got != want {
      Issue.record("zone \(want.id) differs after the round trip", sourceLocation: sourceLocation)
    }
    #expect(loaded == expected, sourceLocation: sourceLocation)
  }

  /// The room reserved for a zone set's text covers the text of the fixtures' zone sets and of
  /// generated circles, so the text is written without growing; and it stays within a few
  /// times the text.
  @Test func theReservedRoomCoversTheText() throws {
    var options = ZoneLoadOptions()
    options.repair = true
    var sets: [[Zone]] = []
    for file in ["zones/nyharbor-zones.geojson", "zones/nyc-boroughs.geojson", "zones/world-ports-us-east.geojson"] {
      sets.append(try ZoneLoader.loadZones(contentsOf: fixturePath(file), options: options))
    }
    var circles: [Zone] = []
    for k in 0..<2_000 {
      let step = Double(k)
      let center = c(40 + step * 1e-4, -74 - step * 1e-4)
      let fence = try Fence.circle(id: "circle-\(k)", center: center, radius: 25.5 + step)
      circles.append(Zone(id: "circle-\(k)", fences: [fence]))
    }
    sets.append(circles)
    for zones in sets {
      let written = try ZoneSetWriter.bytes(zones).count
      let reserved = ZoneSetWriter.estimatedByteCount(of: zones)
      #expect(reserved >= written)
      #expect(reserved <= 4 * written)
    }
  }

  func writeError(_ zones: [Zone]) -> ZoneWriteError? {
    do {
      _ = try ZoneSetWriter.bytes(zones)
      return nil
    } catch {
      return error
    }
  }

  // MARK: Fixtures

  @Test(arguments: [
    ("zones/nyharbor-zones.geojson", false),
    ("zones/world-ports-us-east.geojson", false),
    ("zones/nyc-boroughs.geojson", true),
    ("polygons/nyc-manhattan.geojson", false),
    ("polygons/tz-world-sample.geojson", false),
    ("polygons/tz-world-magadan-invalid.geojson", true),
  ])
  func fixturesRoundTrip(file: String, repair: Bool) throws {
    let zones = try ZoneLoader.loadZones(
      contentsOf: fixturePath(file), options: ZoneLoadOptions(repair: repair))
    #expect(!zones.isEmpty)
    try expectRoundTrip(zones)
  }

  @Test func loaderOptionsUsedForTheInputDoNotMatterForTheOutput() throws {
    let options = ZoneLoadOptions(
      pointRadius: 250,
      defaults: ZoneRules(
        minimumRetriggerTime: 30, dwell: 90, checkOut: false, initialTrigger: false,
        exitHysteresis: 12, exitConfirmations: 2))
    let ports = try ZoneLoader.loadZones(
      contentsOf: fixturePath("zones/world-ports-us-east.geojson"), options: options)
    guard case .circle(let circle) = ports[0].fences[0].area else {
      Issue.record("a port is not a circle")
      return
    }
    #expect(circle.radius == 250)
    #expect(ports[0].rules == options.defaults)
    try expectRoundTrip(ports)
    let harbor = try ZoneLoader.loadZones(
      contentsOf: fixturePath("zones/nyharbor-zones.geojson"), options: options)
    try expectRoundTrip(harbor)
  }

  // MARK: Hand-made zones

  var allKindsOfCustomData: JSONObject {
    [
      "null": .null, "yes": .bool(true), "no": .bool(false),
      "int": .number(42), "negative": .number(-7), "fraction": .number(0.1),
      "third": .number(1.0 / 3.0), "negativeZero": .number(-0.0),
      "smallest": .number(.leastNonzeroMagnitude), "largest": .number(.greatestFiniteMagnitude),
      "twoTo53": .number(9_007_199_254_740_992), "twoTo53PlusTwo": .number(9_007_199_254_740_994),
      "epochMicros": .number(1_767_607_200_000_000),
      "text": .string(
        "quote \" backslash \\ slash / tab \t newline \n return \r nul \u{0} bell \u{7} del \u{7F} é 🚢 \u{2028} \u{FEFF}"
      ),
      "": .string("an empty key"),
      "array": .array([.number(1), .string("two"), .array([]), .object([:]), .null, .bool(true)]),
      "object": .object([
        "nested": .object(["deeper": .array([.bool(false), .object(["deepest": .string("∞")])])])
      ]),
      // Keys the loader reserves in properties are plain data here.
      "customData": .string("not the member"), "name": .string("data name"), "zone": .number(3),
      "id": .string("data id"), "radius": .number(-1), "direction": .string("sideways"),
      "dwell": .null,
    ]
  }

  func handMadeZones() throws -> [Zone] {
    let shell = box(south: 40.70, west: -74.02, north: 40.72, east: -74.00)
    let hole = [c(40.705, -74.015), c(40.705, -74.005), c(40.715, -74.005), c(40.705, -74.015)]
    // Clockwise shell, with two holes.
    let clockwise = Array(box(south: 40.60, west: -74.20, north: 40.64, east: -74.10).reversed())
    let holes = [
      box(south: 40.61, west: -74.19, north: 40.62, east: -74.18),
      box(south: 40.62, west: -74.12, north: 40.63, east: -74.11),
    ]
    let multi = try MultiPolygon([
      try Polygon(exterior: shell, holes: [hole]),
      try Polygon(exterior: box(south: 40.80, west: -73.95, north: 40.8123456789, east: -73.9)),
      try Polygon(exterior: box(south: -0.5, west: 179.5, north: 0.5, east: 180)),
    ])
    let line = try Polyline([c(40.601, -74.06), c(40.605, -74.044), c(40.61, -74.028)])
    return [
      Zone(
        id: "harbor", name: "Harbor ✓", description: "Every kind of fence.\nSecond line.",
        customData: allKindsOfCustomData,
        fences: [
          try .circle(id: "slip", name: "Slip 1", center: c(40.644, -74.0716), radius: 0.5),
          try .point(id: "buoy", at: c(-33.856_784_123_456, 151.215_297)),
          Fence(
            id: "holes", name: "",
            area: .polygon(MultiPolygon(try Polygon(exterior: clockwise, holes: holes)))),
          Fence(id: "parts", area: .polygon(multi)),
        ],
        geolines: [
          Geoline(id: "both", name: "Both ways", line: line, direction: .both),
          Geoline(id: "ltr", line: line, direction: .leftToRight),
          Geoline(id: "rtl", line: line, direction: .rightToLeft),
        ],
        rules: ZoneRules(
          minimumRetriggerTime: 12.5, dwell: 0.25, checkOut: false, initialTrigger: false,
          exitHysteresis: 7.75, exitConfirmations: 1_000_000)),
      Zone(
        id: "lines only",
        geolines: [
          Geoline(id: "narrows#0", line: line, direction: .rightToLeft),
          Geoline(id: "narrows#1", line: try Polyline([c(-90, -180), c(90, 180)])),
        ],
        rules: ZoneRules(dwell: 0, exitConfirmations: 3)),
      Zone(
        id: "Zürich 🇨🇭 e\u{301} 東京 שלום",
        name: "",
        description: "",
        fences: [try .circle(id: "瑞士 ✓", name: "名前", center: c(47.3769, 8.5417), radius: 1e6)],
        geolines: [Geoline(id: "e\u{301}", line: line)]),
      Zone(
        id: "quote \" backslash \\ tab \t newline \n nul \u{0} /slash/",
        customData: ["k": .string("\u{1F}")],
        fences: [
          try .circle(id: "fence \"quoted\" \\ \u{8}\u{C}\r", center: c(0, 0), radius: 100.000_000_000_01)
        ]),
      Zone(id: "1234", fences: [try .circle(id: "5678", center: c(90, 180), radius: 1)]),
    ]
  }

  @Test func handMadeZonesRoundTrip() throws {
    let zones = try handMadeZones()
    try expectRoundTrip(zones)
    // One zone at a time, too, so no zone leans on another's features.
    for zone in zones { try expectRoundTrip([zone]) }
  }

  @Test func customDataAsDeepAsTheReaderTakesRoundTrips() throws {
    func nested(_ levels: Int) -> JSONValue {
      (0..<levels).reduce(JSONValue.string("bottom")) { inner, _ in .array([inner]) }
    }
    let circle = try Fence.circle(id: "c", center: c(1, 2), radius: 3)
    // customData itself is one level, and three enclose it in the file.
    let deepest = ZoneSetChecker.maximumCustomDataDepth - 1
    #expect(deepest == 508)
    try expectRoundTrip([Zone(id: "deep", customData: ["deep": nested(deepest)], fences: [circle])])
    let error = writeError([Zone(id: "deep", customData: ["deep": nested(deepest + 1)], fences: [circle])])
    let path = "customData[\"deep\"]" + String(repeating: "[0]", count: 508)
    #expect(
      error
        == ZoneWriteError(
          zone: "deep", property: "customData",
          message:
            "nested more than 509 levels deep, more than the JSON reader takes there (at \(path.prefix(80))…)"))
  }

  @Test func theEmptySetIsWrittenAndLoads() throws {
    #expect(try ZoneSetWriter.string([]) == "{\"type\":\"FeatureCollection\",\"zones\":{},\"features\":[]}\n")
    #expect(try ZoneLoader.loadZones(from: ZoneSetWriter.bytes([])) == [])
  }

  // MARK: Layout

  @Test func theLayoutIsExact() throws {
    let triangle = try Polygon(exterior: [c(40.5, -74), c(40.5, -73.99), c(40.51, -74), c(40.5, -74)])
    let zones = [
      Zone(id: "b", fences: [try .circle(id: "b1", center: c(40.5, -74), radius: 100)]),
      Zone(
        id: "a", name: "A", description: "first", customData: ["k": .string("v"), "n": .number(1.5)],
        fences: [
          Fence(id: "a1", name: "triangle", area: .polygon(MultiPolygon(triangle)))
        ],
        geolines: [
          Geoline(id: "a2", line: try Polyline([c(40.6, -74.1), c(40.65, -74.05)]), direction: .leftToRight)
        ],
        rules: ZoneRules(dwell: 60)),
    ]
    let expected = """
      {"type":"FeatureCollection","zones":{
      "a":{"zoneName":"A","description":"first","minimumRetriggerTime":0,"dwell":60,"checkOut":true,"initialTrigger":true,"exitHysteresis":0,"exitConfirmations":1,"customData":{"k":"v","n":1.5}},
      "b":{"minimumRetriggerTime":0,"dwell":null,"checkOut":true,"initialTrigger":true,"exitHysteresis":0,"exitConfirmations":1,"customData":{}}
      },"features":[
      {"type":"Feature","id":"a1","properties":{"zone":"a","name":"triangle","customData":{}},"geometry":{"type":"Polygon","coordinates":[[[-74,40.5],[-73.99,40.5],[-74,40.51],[-74,40.5]]]}},
      {"type":"Feature","id":"a2","properties":{"zone":"a","direction":"leftToRight","customData":{}},"geometry":{"type":"LineString","coordinates":[[-74.1,40.6],[-74.05,40.65]]}},
      {"type":"Feature","id":"b1","properties":{"zone":"b","radius":100,"customData":{}},"geometry":{"type":"Point","coordinates":[-74,40.5]}}
      ]}

      """
    #expect(try ZoneSetWriter.string(zones) == expected)
    #expect(try ZoneSetWriter.bytes(zones) == Array(expected.utf8))
    try expectRoundTrip(zones)
  }

  @Test func theBytesDoNotDependOnTheOrderOfTheZones() throws {
    let zones =
      try handMadeZones()
      + ZoneLoader.loadZones(contentsOf: fixturePath("zones/nyharbor-zones.geojson"))
    let bytes = try ZoneSetWriter.bytes(zones)
    #expect(try ZoneSetWriter.bytes(zones.reversed()) == bytes)
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<5 {
      #expect(try ZoneSetWriter.bytes(zones.shuffled(using: &generator)) == bytes)
    }
    #expect(try ZoneSetWriter.bytes(zones) == bytes)
  }

  // MARK: What cannot be written

  @Test func zonesTheFormatCannotHoldAreErrors() throws {
    let circle = try Fence.circle(id: "c", center: c(1, 2), radius: 3)
    let other = try Fence.circle(id: "d", center: c(1, 2), radius: 3)
    let line = try Polyline([c(1, 2), c(3, 4)])
    #expect(
      writeError([Zone(id: "empty")])
        == ZoneWriteError(
          zone: "empty",
          message: "the zone has no fence and no GEOLINE: GeoJSON carries a zone only on its features, so it would be lost"))
    #expect(
      writeError([Zone(id: "", fences: [circle])])
        == ZoneWriteError(zone: "", message: "a zone id must not be empty (the loader rejects an empty properties.zone)"))
    #expect(
      writeError([
        Zone(id: "a", fences: [circle]), Zone(id: "a", fences: [other]),
      ]) == ZoneWriteError(zone: "a", message: "two zones have this id; zone ids must be unique"))
    // Apart in the input, next to each other once sorted (where the check looks).
    let third = try Fence.circle(id: "e", center: c(1, 2), radius: 3)
    #expect(
      writeError([
        Zone(id: "b", fences: [circle]), Zone(id: "c", fences: [other]), Zone(id: "b", fences: [third]),
      ]) == ZoneWriteError(zone: "b", message: "two zones have this id; zone ids must be unique"))
    // Canonically equivalent ids are one id to Swift's strings and to the loader's grouping.
    #expect(
      writeError([
        Zone(id: "\u{E9}", fences: [circle]), Zone(id: "e\u{301}", fences: [other]),
      ])?.message == "two zones have this id; zone ids must be unique")
    #expect(
      writeError([Zone(id: "a", fences: [try .circle(id: "", center: c(1, 2), radius: 3)])])
        == ZoneWriteError(
          zone: "a", fence: "", property: "id",
          message: "a fence or GEOLINE id must not be empty (the loader rejects an empty feature id)"))
    #expect(
      writeError([Zone(id: "b", geolines: [Geoline(id: "c", line: line)]), Zone(id: "a", fences: [circle])])
        == ZoneWriteError(
          zone: "b", fence: "c", property: "id",
          message: "the id is used twice (also in zone \"a\"); fence and GEOLINE ids must be unique across all zones"))
    #expect(
      writeError([Zone(id: "a", fences: [circle], geolines: [Geoline(id: "c", line: line)])])
        == ZoneWriteError(
          zone: "a", fence: "c", property: "id",
          message: "the id is used twice (also in this zone); fence and GEOLINE ids must be unique across all zones"))
  }

  @Test func rulesTheLoaderWouldRejectAreErrors() throws {
    let circle = try Fence.circle(id: "c", center: c(1, 2), radius: 3)
    func error(_ rules: ZoneRules) -> ZoneWriteError? {
      writeError([Zone(id: "z", fences: [circle], rules: rules)])
    }
    #expect(
      error(ZoneRules(minimumRetriggerTime: -1))
        == ZoneWriteError(zone: "z", property: "minimumRetriggerTime", message: "expected a number of seconds >= 0, got -1.0"))
    #expect(
      error(ZoneRules(dwell: .infinity))
        == ZoneWriteError(zone: "z", property: "dwell", message: "expected a number of seconds >= 0, got inf"))
    #expect(
      error(ZoneRules(exitHysteresis: .nan))
        == ZoneWriteError(zone: "z", property: "exitHysteresis", message: "expected a number of metres >= 0, got nan"))
    for confirmations in [0, -1, 1_000_001] {
      #expect(
        error(ZoneRules(exitConfirmations: confirmations))
          == ZoneWriteError(
            zone: "z", property: "exitConfirmations",
            message: "expected a whole number from 1 to 1000000 (what the loader accepts), got \(confirmations)"))
    }
  }

  @Test func nonFiniteCustomDataIsAnError() throws {
    let circle = try Fence.circle(id: "c", center: c(1, 2), radius: 3)
    let data: JSONObject = ["a": .array([.number(1), .object(["b\"": .number(.nan)])])]
    #expect(
      writeError([Zone(id: "z", customData: data, fences: [circle])])
        == ZoneWriteError(
          zone: "z", property: "customData", message: #"customData["a"][1]["b\""] is nan, which JSON cannot hold"#))
    #expect(
      writeError([Zone(id: "z", customData: ["x": .number(-.infinity)], fences: [circle])])?.message
        == #"customData["x"] is -inf, which JSON cannot hold"#)
  }

  @Test func anInvalidPolygonIsAnError() throws {
    let bowtie = try Polygon(exterior: [c(0, 0), c(1, 1), c(0, 1), c(1, 0), c(0, 0)])
    let zone = Zone(id: "z", fences: [Fence(id: "bowtie", area: .polygon(MultiPolygon(bowtie)))])
    #expect(
      writeError([zone])
        == ZoneWriteError(
          zone: "z", fence: "bowtie", property: "geometry",
          message:
            "not a valid polygon, which the loader rejects unless repairing: self-intersection (Self-intersection[0.5 0.5])"))
    let square = try Polygon(exterior: box(south: 0, west: 0, north: 1, east: 1))
    let parts = Zone(
      id: "z", fences: [Fence(id: "parts", area: .polygon(try MultiPolygon([square, bowtie])))])
    #expect(
      writeError([parts])?.message
        == "not a valid polygon, which the loader rejects unless repairing: parts part 1: self-intersection (Self-intersection[0.5 0.5])")
  }

  @Test func errorsDescribeThemselves() {
    #expect(
      ZoneWriteError(zone: "z", fence: "f\"", property: "geometry", message: "bad").description
        == #"zone "z": fence "f\"": property "geometry": bad"#)
    #expect(ZoneWriteError(zone: "z", message: "bad").description == #"zone "z": bad"#)
  }
}
