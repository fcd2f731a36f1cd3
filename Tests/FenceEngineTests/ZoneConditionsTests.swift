import FenceGeometry
import Foundation
import Testing

@testable import FenceEngine

/// The `conditions` value (rules v2): reading and checking it, its bands and tag lists, the
/// bearing a derived course uses, and the rules' other codings.
@Suite struct ZoneConditionsTests {
  static let spec: JSONValue = .object([
    "minSpeed": .number(0.5), "maxSpeed": .number(15),
    "course": .object(["from": .number(300), "to": .number(60)]),
    "deviceTags": .object(["any": .array([.string("ferry")]), "none": .array([.string("test")])]),
  ])

  @Test func theSpecsExampleReadsAndWritesBack() throws {
    let conditions = try ZoneConditions(json: Self.spec)
    #expect(
      conditions
        == ZoneConditions(
          minimumSpeed: 0.5, maximumSpeed: 15, course: .init(from: 300, to: 60),
          deviceTags: .init(any: ["ferry"], none: ["test"])))
    #expect(conditions.json == Self.spec)
  }

  @Test(arguments: [
    (JSONValue.array([]), "conditions: expected an object, got an array"),
    (.object(["minSpeed": .string("fast")]), "conditions.minSpeed: expected metres per second, got a string"),
    (.object(["maxSpeed": .number(-1)]), "conditions.maxSpeed: expected metres per second from 0 to 299792458, got -1.0"),
    (.object(["course": .object(["from": .number(10)])]), "conditions.course.to: missing"),
    (.object(["course": .object(["from": .number(10), "to": .number(20), "by": .number(1)])]), "conditions.course.by: unknown member: expected from or to"),
    (.object(["deviceTags": .object([:])]), "conditions.deviceTags: expected any or none tags"),
    (.object(["deviceTags": .object(["any": .array([.string("a"), .number(1)])])]), "conditions.deviceTags.any[1]: expected a tag string, got a number"),
    (.object(["deviceTags": .object(["none": .array([.string("")])])]), "conditions.deviceTags.none[0]: expected a non-empty tag"),
  ])
  func aBadValueIsNamed(json: JSONValue, message: String) {
    do {
      _ = try ZoneConditions(json: json)
      Issue.record("accepted")
    } catch {
      #expect(error.description == message)
    }
  }

  @Test func aZoneWithBadConditionsIsRefusedByTheEvaluator() throws {
    var rules = ZoneRules()
    rules.conditions = ZoneConditions(minimumSpeed: 3, maximumSpeed: 2)
    let zone = Zone(
      id: "z", fences: [try .circle(id: "f", center: Coordinate(uncheckedLatitude: 1, longitude: 1), radius: 10)],
      rules: rules)
    var evaluator = ZoneEvaluator()
    #expect(throws: ZoneError(zone: "z", fault: .invalidConditions(.init(path: "minSpeed", message: "minSpeed 3 is above maxSpeed 2")))) {
      try evaluator.add(zone)
    }
  }

  @Test func bandsAndTagLists() {
    let all = ZoneConditions.CourseBand(from: 0, to: 360)
    #expect([0.0, 90, 359.9, 360].allSatisfy(all.contains))
    let north = ZoneConditions.CourseBand(from: 350, to: 360)
    #expect(north.contains(0) && north.contains(355) && !north.contains(10))
    #expect(!north.contains(.nan))
    let tags = ZoneConditions.TagCondition(any: ["a", "c"], none: ["x"])
    #expect(tags.admits(["a"]) && tags.admits(["b", "c"]))
    #expect(!tags.admits(["b"]) && !tags.admits(["a", "x"]) && !tags.admits([]))
    #expect(ZoneConditions.TagCondition(none: ["x"]).admits([]))
  }

  @Test func theBearingOfAMovementIsExactAlongTheAxes() {
    let origin = Coordinate(uncheckedLatitude: 51.9, longitude: 4.4)
    func to(_ latitude: Double, _ longitude: Double) -> Double? {
      WGS84.initialBearing(from: origin, to: Coordinate(uncheckedLatitude: latitude, longitude: longitude))
    }
    #expect(to(52, 4.4) == 0)
    #expect(to(51.9, 4.5) == 90)
    #expect(to(51.8, 4.4) == 180)
    #expect(to(51.9, 4.3) == 270)
    #expect(to(51.9, 4.4) == nil)
    // North-east at this latitude: tan(course) = east metres / north metres.
    let course = to(51.9001, 4.4001)!
    let north = 0.0001 * WGS84.meridionalRadius(latitude: 51.90005) * .pi / 180
    let east = 0.0001 * WGS84.primeVerticalRadius(latitude: 51.90005) * cos(51.90005 * .pi / 180) * .pi / 180
    #expect(abs(course - atan2(east, north) * 180 / .pi) < 1e-9)
    // Across the antimeridian, the short way: due east.
    let west = Coordinate(uncheckedLatitude: 0, longitude: 179.9)
    #expect(WGS84.initialBearing(from: west, to: Coordinate(uncheckedLatitude: 0, longitude: -179.9)) == 90)
  }

  @Test(arguments: [(0.0, 0.0001), (40.7, 0.01), (51.9, 0.1), (70.0, 0.2), (-33.9, 0.05)])
  func aStepInTheLocalPlaneIsTheEllipsoidalDistance(latitude: Double, degrees: Double) {
    let a = Coordinate(uncheckedLatitude: latitude, longitude: 4.4)
    let b = Coordinate(uncheckedLatitude: latitude + degrees, longitude: 4.4 + degrees)
    let (north, east) = WGS84.localDisplacement(from: a, to: b)
    let local = (north * north + east * east).squareRoot()
    let reference = WGS84.distance(a, b)
    // Within 0.1 % up to steps of about 20 km (0.2 degrees at 70 N).
    #expect(abs(local - reference) / reference < 1e-3)
  }

  @Test func rulesV2AreCodedOnlyWhenSet() throws {
    var rules = ZoneRules(dwell: 30)
    let plain = String(decoding: try JSONEncoder().encode(rules), as: UTF8.self)
    for name in ZoneRules.v2SettingNames { #expect(!plain.contains(name)) }
    rules.conditions = try ZoneConditions(json: Self.spec)
    rules.validFrom = Timestamp(microsecondsSinceEpoch: 1_600_000_000_000_000)
    rules.exitOnRemove = true
    rules.schedule = ZoneSchedule(
      timeZone: "Europe/Amsterdam",
      windows: [.init(days: [.sun], from: .init(parsing: "06:00")!, to: .init(parsing: "06:00")!)])
    let data = try JSONEncoder().encode(rules)
    #expect(try JSONDecoder().decode(ZoneRules.self, from: data) == rules)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(ZoneRules.self, from: Data(#"{"conditions":{"minSpeed":-1}}"#.utf8))
    }
  }

  @Test func snapshotsKeepDeviceTagsAndFingerprintsKeepRulesV2() throws {
    let center = Coordinate(uncheckedLatitude: 51.9, longitude: 4.4)
    var rules = ZoneRules()
    rules.conditions = ZoneConditions(deviceTags: .init(any: ["ferry"]))
    let zones = [Zone(id: "z", fences: [try .circle(id: "f", center: center, radius: 100)], rules: rules)]
    var evaluator = try ZoneEvaluator(zones: zones)
    evaluator.setTags(["ferry", "ferry", "", "night"], forDevice: "boat")
    #expect(evaluator.tags(ofDevice: "boat") == ["ferry", "night"])
    let bytes = evaluator.snapshot().encoded()
    var restored = try ZoneEvaluator(zones: zones)
    try restored.restore(try EvaluatorSnapshot(decoding: bytes))
    #expect(restored.tags(ofDevice: "boat") == ["ferry", "night"])
    var events: [ZoneEvent] = []
    restored.process(
      LocationFix(device: "boat", time: Timestamp(microsecondsSinceEpoch: 0), latitude: 51.9, longitude: 4.4),
      into: &events)
    #expect(events.map(\.kind) == [.checkIn])
    // The fingerprint sees the conditions (and is unchanged for zones without v2 rules).
    let plain = try ZoneEvaluator(zones: [Zone(id: "z", fences: zones[0].fences)])
    #expect(plain.zoneFingerprint != evaluator.zoneFingerprint)
  }
}
