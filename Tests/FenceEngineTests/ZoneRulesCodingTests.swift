import FenceEngine
import FenceFormats
import FenceGeometry
import Foundation
import Testing

/// `ZoneRules`' `Codable` form (the rule members of a zone's GeoJSON settings) and that of
/// `Geoline.DirectionFilter` (a GEOLINE's `direction`).
@Suite struct ZoneRulesCodingTests {
  let ferryRules = ZoneRules(
    minimumRetriggerTime: 600, dwell: 300, checkOut: false, initialTrigger: false,
    exitHysteresis: 20.5, exitConfirmations: 3)

  @Test func encodesEveryRuleWithNullForNoDwell() throws {
    #expect(
      try CodingTestSupport.encodedText(ferryRules, formatting: .sortedKeys)
        == #"{"checkOut":false,"dwell":300,"exitConfirmations":3,"exitHysteresis":20.5,"initialTrigger":false,"minimumRetriggerTime":600}"#
    )
    #expect(
      try CodingTestSupport.encodedText(ZoneRules.default, formatting: .sortedKeys)
        == #"{"checkOut":true,"dwell":null,"exitConfirmations":1,"exitHysteresis":0,"initialTrigger":true,"minimumRetriggerTime":0}"#
    )
  }

  @Test func encodesTheRuleMembersZoneSetWriterWrites() throws {
    let depot = Coordinate(uncheckedLatitude: 51.9, longitude: 4.4)
    for rules in [ferryRules, .default] {
      let zone = Zone(
        id: "depot", name: "Depot", customData: ["site": .string("north")],
        fences: [try .circle(id: "depot-gate", center: depot, radius: 100)], rules: rules)
      guard case .object(let document) = try JSONReader.parse(try ZoneSetWriter.string([zone])),
        case .object(let zonesMember)? = document["zones"],
        case .object(var settings)? = zonesMember["depot"]
      else {
        Issue.record("ZoneSetWriter wrote no settings for the zone")
        continue
      }
      settings["zoneName"] = nil
      settings["customData"] = nil
      #expect(
        try CodingTestSupport.canonicalJSON(CodingTestSupport.encodedText(rules))
          == CodingTestSupport.sortingMembers(.object(settings)))
    }
  }

  @Test func decodesAZonesMemberEntryAsTheLoaderDoes() throws {
    let settings =
      #"{"zoneName":"Ferry","minimumRetriggerTime":600,"dwell":300,"checkOut":false,"initialTrigger":false,"exitHysteresis":20.5,"exitConfirmations":3.0,"customData":{"a":1}}"#
    let geojson =
      #"{"type":"FeatureCollection","zones":{"ferry":"# + settings
      + #"},"features":[{"type":"Feature","id":"slip","properties":{"zone":"ferry","radius":50},"geometry":{"type":"Point","coordinates":[-74.07,40.64]}}]}"#
    let loaded = try ZoneLoader.loadZones(from: Array(geojson.utf8))
    #expect(loaded.map(\.rules) == [ferryRules])
    #expect(try CodingTestSupport.decoded(ZoneRules.self, from: settings) == ferryRules)
  }

  @Test func missingRulesTakeTheSpecsDefaults() throws {
    #expect(try CodingTestSupport.decoded(ZoneRules.self, from: "{}") == .default)
    #expect(try CodingTestSupport.decoded(ZoneRules.self, from: #"{"dwell":null}"#) == .default)
    #expect(
      try CodingTestSupport.decoded(ZoneRules.self, from: #"{"dwell":0,"checkOut":false}"#)
        == ZoneRules(dwell: 0, checkOut: false))
  }

  @Test func aRoundTripGivesTheSameRules() throws {
    let encoder = JSONEncoder()
    for rules in [ferryRules, .default, ZoneRules(dwell: 0.5, exitConfirmations: 1_000_000)] {
      #expect(try JSONDecoder().decode(ZoneRules.self, from: try encoder.encode(rules)) == rules)
    }
  }

  /// A rules object the loader refuses, the rule named and the message.
  struct Refusal: Sendable, CustomStringConvertible {
    var json: String
    var key: String
    var message: String
    var description: String { json }
  }

  @Test(arguments: [
    Refusal(
      json: #"{"minimumRetriggerTime":-1}"#, key: "minimumRetriggerTime",
      message: "expected a number of seconds >= 0, got -1.0"),
    Refusal(
      json: #"{"dwell":-0.5}"#, key: "dwell",
      message: "expected a number of seconds >= 0, got -0.5"),
    Refusal(
      json: #"{"exitHysteresis":-2}"#, key: "exitHysteresis",
      message: "expected a number of metres >= 0, got -2.0"),
    Refusal(
      json: #"{"exitConfirmations":0}"#, key: "exitConfirmations",
      message: "expected a whole number from 1 to 1000000, got 0.0"),
    Refusal(
      json: #"{"exitConfirmations":2.5}"#, key: "exitConfirmations",
      message: "expected a whole number from 1 to 1000000, got 2.5"),
    Refusal(
      json: #"{"exitConfirmations":1000001}"#, key: "exitConfirmations",
      message: "expected a whole number from 1 to 1000000, got 1000001.0"),
  ])
  func refusesWhatTheLoaderRefuses(_ refusal: Refusal) {
    let error = #expect(throws: DecodingError.self) {
      try CodingTestSupport.decoded(ZoneRules.self, from: refusal.json)
    }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == [refusal.key])
    #expect(context.debugDescription == refusal.message)
  }

  @Test func aRuleOfTheWrongTypeIsATypeMismatch() {
    let error = #expect(throws: DecodingError.self) {
      try CodingTestSupport.decoded(ZoneRules.self, from: #"{"checkOut":"no"}"#)
    }
    guard case .typeMismatch(_, let context)? = error else {
      Issue.record("expected typeMismatch, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["checkOut"])
  }

  @Test func directionFiltersAreCodedAsTheirGeoJSONValues() throws {
    let filters: [Geoline.DirectionFilter] = [.both, .leftToRight, .rightToLeft]
    let text = try CodingTestSupport.encodedText(filters)
    #expect(text == #"["both","leftToRight","rightToLeft"]"#)
    #expect(try CodingTestSupport.decoded([Geoline.DirectionFilter].self, from: text) == filters)
    #expect(throws: DecodingError.self) {
      try CodingTestSupport.decoded(Geoline.DirectionFilter.self, from: #""sideways""#)
    }
  }
}
