import FenceEngine
import FenceGeometry
import Testing

@testable import FenceFormats

/// Rules v2 in the file formats: zone files read and write them, a bad value is a load error
/// naming the zone or feature and the setting, check-out reasons survive NDJSON, and device
/// tag files read as `fencebench --device-tags` needs.
@Suite struct RulesV2FormatTests {
  static let v2Settings = #"""
    "schedule": {"timeZone": "America/New_York",
                 "windows": [{"days": ["mon","tue","wed","thu","fri"], "from": "07:00", "to": "19:00"},
                             {"days": ["sat"], "from": "22:00", "to": "02:00"}],
                 "except": ["2020-12-25"]},
    "validFrom": "2020-12-01T00:00:00Z", "validUntil": "2021-01-01T00:00:00.5Z",
    "exitOnRemove": true,
    "conditions": {"minSpeed": 0.5, "maxSpeed": 15, "course": {"from": 300, "to": 60},
                   "deviceTags": {"any": ["ferry"], "none": ["test"]}}
    """#

  static func file(properties: String, zones: String = "") -> String {
    """
    {"type": "FeatureCollection", \(zones)
     "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-74.0, 40.6]},
                   "properties": {"id": "f", "zone": "z", "radius": 50\(properties)}}]}
    """
  }

  static func load(_ text: String) throws -> [Zone] {
    try ZoneLoader.loadZones(from: Array(text.utf8), file: "zones.geojson")
  }

  static let expectedRules: ZoneRules = {
    var rules = ZoneRules()
    rules.schedule = ZoneSchedule(
      timeZone: "America/New_York",
      windows: [
        .init(days: [.mon, .tue, .wed, .thu, .fri], from: .init(parsing: "07:00")!, to: .init(parsing: "19:00")!),
        .init(days: [.sat], from: .init(parsing: "22:00")!, to: .init(parsing: "02:00")!),
      ],
      exceptions: [.init(parsing: "2020-12-25")!])
    rules.validFrom = Timestamp(microsecondsSinceEpoch: 1_606_780_800_000_000)
    rules.validUntil = Timestamp(microsecondsSinceEpoch: 1_609_459_200_500_000)
    rules.exitOnRemove = true
    rules.conditions = ZoneConditions(
      minimumSpeed: 0.5, maximumSpeed: 15, course: .init(from: 300, to: 60),
      deviceTags: .init(any: ["ferry"], none: ["test"]))
    return rules
  }()

  @Test func featurePropertiesAndTheZonesMemberCarryRulesV2() throws {
    let fromProperties = try Self.load(Self.file(properties: ", " + Self.v2Settings))
    #expect(fromProperties.map(\.rules) == [Self.expectedRules])
    // Not custom data.
    #expect(fromProperties[0].customData.isEmpty)
    let fromZonesMember = try Self.load(
      Self.file(properties: "", zones: #""zones": {"z": {"# + Self.v2Settings + "}},"))
    #expect(fromZonesMember.map(\.rules) == [Self.expectedRules])
  }

  @Test func writtenZonesLoadBackWithTheirRules() throws {
    let zones = try Self.load(Self.file(properties: ", " + Self.v2Settings))
    let written = try ZoneSetWriter.bytes(zones)
    let text = String(decoding: written, as: UTF8.self)
    #expect(text.contains(#""validUntil":"2021-01-01T00:00:00.5Z""#))
    #expect(try ZoneLoader.loadZones(from: written) == zones)
    // Zones without v2 rules are written as before: none of their names appears.
    let plain = try Self.load(Self.file(properties: ""))
    let plainText = String(decoding: try ZoneSetWriter.bytes(plain), as: UTF8.self)
    for name in ZoneRules.v2SettingNames { #expect(!plainText.contains("\"\(name)\"")) }
  }

  @Test(arguments: [
    (#", "schedule": {"timeZone": "Mars/Olympus", "windows": [{"days": ["mon"], "from": "07:00", "to": "08:00"}]}"#,
     "schedule", #"timeZone: unknown time zone "Mars/Olympus""#),
    (#", "schedule": {"timeZone": "UTC", "windows": []}"#, "schedule", "windows: expected at least one window"),
    (#", "schedule": {"timeZone": "UTC", "windows": [{"days": ["monday"], "from": "07:00", "to": "08:00"}]}"#,
     "schedule", #"windows[0].days[0]: expected a day name (sun, mon, tue, wed, thu, fri, sat), got "monday""#),
    (#", "schedule": {"timeZone": "UTC", "windows": [{"days": ["mon"], "from": "7:00", "to": "08:00"}]}"#,
     "schedule", #"windows[0].from: expected a time HH:MM from 00:00 to 23:59, got "7:00""#),
    (#", "conditions": {"course": {"from": 400, "to": 60}}"#, "conditions", "course.from: expected degrees from 0 to 360, got 400.0"),
    (#", "conditions": {"minSpeed": 5, "maxSpeed": 1}"#, "conditions", "minSpeed: minSpeed 5 is above maxSpeed 1"),
    (#", "conditions": {"speed": 5}"#, "conditions", "speed: unknown condition: expected one of minSpeed, maxSpeed, course, deviceTags"),
    (#", "validFrom": "yesterday""#, "validFrom", #"expected an RFC 3339 time such as "2026-12-24T18:00:00Z", got a string"#),
    (#", "exitOnRemove": "yes""#, "exitOnRemove", "expected true or false, got a string"),
  ])
  func aBadSettingIsALoadErrorNamingItsPlace(properties: String, property: String, message: String) throws {
    do {
      _ = try Self.load(Self.file(properties: properties))
      Issue.record("loaded")
    } catch let error as ZoneLoadError {
      #expect(error.property == property)
      #expect(error.message == message)
      // The zone is named beside the feature (rules-v2.md: "a load error naming the zone").
      #expect(error.zone == "z")
      #expect(
        error.description == #"zones.geojson: feature 0 (id "f", zone "z"): property "# + quoted(property)
          + ": " + message)
    }
  }

  static let roamingFile = #"""
    {"type":"FeatureCollection","features":[
     {"type":"Feature","geometry":null,
      "properties":{"zone":"near-tug","roam":{"radius":500,"around":{"tags":["tug"]},"targets":{"tags":["barge"]}},
                    "dwell":60,"customData":{"kind":"escort"}}},
     {"type":"Feature","geometry":{"type":"Point","coordinates":[-74.0,40.6]},"properties":{"id":"p","radius":50}}]}
    """#

  @Test func aRoamingZoneLoadsFromAFeatureWithoutGeometryAndWritesBack() throws {
    let zones = try Self.load(Self.roamingFile)
    let roaming = try #require(zones.first { $0.id == "near-tug" })
    #expect(roaming.fences.isEmpty && roaming.geolines.isEmpty)
    #expect(
      roaming.rules.roam
        == RoamingFence(radius: 500, around: .init(tags: ["tug"]), targets: .init(tags: ["barge"])))
    #expect(roaming.rules.dwell == 60)
    #expect(roaming.customData == ["kind": .string("escort")])
    let written = try ZoneSetWriter.bytes(zones)
    #expect(try ZoneLoader.loadZones(from: written).sorted { $0.id < $1.id } == zones.sorted { $0.id < $1.id })
  }

  @Test(arguments: [
    (#"{"radius":0,"around":{"tags":["tug"]}}"#, "radius: expected metres above 0 and at most 10000000, got 0"),
    (#"{"radius":5}"#, "around: missing"),
    (#"{"radius":5,"around":{"tags":[]}}"#, "around.tags: expected a non-empty array of tags"),
    (#"{"radius":5,"around":{"tags":["tug"]},"near":1}"#, "near: unknown member: expected radius, around or targets"),
  ])
  func aBadRoamIsALoadError(roam: String, message: String) throws {
    let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{"zone":"z","roam":"# + roam + "}}]}"
    do {
      _ = try Self.load(text)
      Issue.record("loaded")
    } catch let error as ZoneLoadError {
      #expect(error.property == "roam")
      #expect(error.message == message)
    }
  }

  @Test func roamingEventsKeepTheirDeviceAndDistanceInNDJSON() throws {
    var event = ZoneEvent(kind: .checkIn, time: Timestamp(microsecondsSinceEpoch: 5_000_000), device: "barge")
    event.zone = "near-tug"
    event.roamingDevice = "tug-1"
    event.distance = 312.25
    event.assignDeterministicID()
    let line = event.ndjsonLine
    #expect(line.contains(#""roamingDevice":"tug-1","distance":312.25"#))
    #expect(try ZoneEvent(ndjsonLine: line) == event)
    var other = event
    other.roamingDevice = "tug-2"
    other.assignDeterministicID()
    #expect(other.id != event.id)
  }

  @Test func checkOutReasonsSurviveNDJSON() throws {
    var event = ZoneEvent(kind: .checkOut, time: Timestamp(microsecondsSinceEpoch: 1_000_000), device: "d")
    event.zone = "z"
    event.fence = "f"
    event.checkOutReason = .scheduleClosed
    event.assignDeterministicID()
    let line = event.ndjsonLine
    #expect(line.hasSuffix(#","reason":"scheduleClosed"}"#))
    #expect(try ZoneEvent(ndjsonLine: line) == event)
    var rejected = ZoneEvent(kind: .rejected, time: Timestamp(microsecondsSinceEpoch: 0), device: "d")
    rejected.reason = .duplicate
    #expect(try ZoneEvent(ndjsonLine: rejected.ndjsonLine).reason == .duplicate)
    #expect(throws: EventReadError.self) {
      try ZoneEvent(ndjsonLine: #"{"kind":"checkOut","time":"2020-01-01T00:00:00Z","device":"d","reason":"duplicate"}"#)
    }
  }

  @Test func deviceTagFilesReadWithAHeaderQuotesAndRepeats() throws {
    let text = "device,tag\n367000140,ferry\r\n\n\"a,b\", tug \n367000140,passenger\n367000140,ferry\n"
    let tags = try DeviceTagReader.read(Array(text.utf8), file: "tags.csv")
    #expect(tags == ["367000140": ["ferry", "passenger"], "a,b": ["tug"]])
  }

  @Test(arguments: [
    ("a,b,c\n", "tags.csv:1: expected two fields, device and tag, got 3"),
    ("a\n", "tags.csv:1: expected two fields, device and tag, got 1"),
    ("a,x\n,b\n", "tags.csv:2: the device is empty"),
    ("a,\n", "tags.csv:1: the tag is empty"),
    ("\"a,b\n", "tags.csv:1: a quoted field is not closed"),
  ])
  func aBadDeviceTagRowIsNamed(text: String, message: String) {
    #expect(throws: DeviceTagError.self) { try DeviceTagReader.read(Array(text.utf8), file: "tags.csv") }
    do {
      _ = try DeviceTagReader.read(Array(text.utf8), file: "tags.csv")
    } catch {
      #expect(error.description == message)
    }
  }
}
