import FenceEngine
import FenceGeometry
import Testing

/// A load that must fail, with the error it must give.
struct BadLoadCase: CustomTestStringConvertible, Sendable {
  let name: String
  let zones: [Zone]
  let error: ZoneError
  /// Whether ``ZoneEvaluator/replaceAll(with:)`` rejects the load too (it frees every loaded id).
  var failsAsReplacement = true
  var testDescription: String { name }
}

@Suite struct ZoneValidationTests {
  static func circle(_ id: String, north: Double = 0) -> Fence {
    // A positive radius cannot throw.
    Fence(id: id, area: .circle(try! Circle(center: at(north: north), radius: 50)))
  }

  static let cases: [BadLoadCase] = [
    BadLoadCase(
      name: "duplicate zone id within one load",
      zones: [Zone(id: "z", fences: [circle("f1")]), Zone(id: "z", fences: [circle("f2")])],
      error: ZoneError(zone: "z", fault: .duplicateZoneID)),
    BadLoadCase(
      name: "empty zone id", zones: [Zone(id: "", fences: [circle("f1")])],
      error: ZoneError(zone: "", fault: .emptyZoneID)),
    BadLoadCase(
      name: "no fences or GEOLINEs", zones: [Zone(id: "empty")],
      error: ZoneError(zone: "empty", fault: .noFencesOrGeolines)),
    BadLoadCase(
      name: "duplicate fence id within one load",
      zones: [Zone(id: "a", fences: [circle("f")]), Zone(id: "b", fences: [circle("f")])],
      error: ZoneError(zone: "b", fence: "f", fault: .duplicateFenceID(otherZone: "a"))),
    // Ids that are their zone's are held apart from the others while a load is checked.
    BadLoadCase(
      name: "a zone's own id as the fence id of a later zone",
      zones: [Zone(id: "a", fences: [circle("a")]), Zone(id: "b", fences: [circle("a")])],
      error: ZoneError(zone: "b", fence: "a", fault: .duplicateFenceID(otherZone: "a"))),
    BadLoadCase(
      name: "a fence id as a later zone's own",
      zones: [Zone(id: "b", fences: [circle("a")]), Zone(id: "a", fences: [circle("a")])],
      error: ZoneError(zone: "a", fence: "a", fault: .duplicateFenceID(otherZone: "b"))),
    BadLoadCase(
      name: "a zone's own id twice in it",
      zones: [Zone(id: "x", fences: [circle("x"), circle("x", north: 200)])],
      error: ZoneError(zone: "x", fence: "x", fault: .duplicateFenceID(otherZone: "x"))),
    BadLoadCase(
      name: "fence id already used by a loaded zone",
      zones: [Zone(id: "new", fences: [circle("loaded-fence")])],
      error: ZoneError(zone: "new", fence: "loaded-fence", fault: .duplicateFenceID(otherZone: "loaded")),
      failsAsReplacement: false),
    BadLoadCase(
      name: "empty fence id", zones: [Zone(id: "z", fences: [circle("")])],
      error: ZoneError(zone: "z", fence: "", fault: .emptyFenceID)),
    BadLoadCase(
      name: "negative MRT",
      zones: [Zone(id: "z", fences: [circle("f")], rules: ZoneRules(minimumRetriggerTime: -1))],
      error: ZoneError(zone: "z", fault: .invalidMinimumRetriggerTime(-1))),
    BadLoadCase(
      name: "negative dwell",
      zones: [Zone(id: "z", fences: [circle("f")], rules: ZoneRules(dwell: -5))],
      error: ZoneError(zone: "z", fault: .invalidDwell(-5))),
    BadLoadCase(
      name: "negative exit hysteresis",
      zones: [Zone(id: "z", fences: [circle("f")], rules: ZoneRules(exitHysteresis: -0.5))],
      error: ZoneError(zone: "z", fault: .invalidExitHysteresis(-0.5))),
    BadLoadCase(
      name: "zero exit confirmations",
      zones: [Zone(id: "z", fences: [circle("f")], rules: ZoneRules(exitConfirmations: 0))],
      error: ZoneError(zone: "z", fault: .invalidExitConfirmations(0))),
  ]

  @Test(arguments: cases)
  func aBadLoadThrowsANamedErrorAndChangesNothing(_ c: BadLoadCase) throws {
    var evaluator = try ZoneEvaluator(zones: [Zone(id: "loaded", fences: [Self.circle("loaded-fence")])])
    let before = evaluator.zones
    // A valid zone in the same load must not be applied either.
    let load = [Zone(id: "valid", fences: [Self.circle("valid-fence")])] + c.zones
    #expect(throws: c.error) { try evaluator.add(load) }
    if c.failsAsReplacement {
      #expect(throws: c.error) { try evaluator.replaceAll(with: load) }
    }
    #expect(evaluator.zones == before)
    #expect(evaluator.elementCount == 1)
    #expect(run(&evaluator, [fix(0)]) == ["0 checkIn a loaded/loaded-fence"])
  }

  @Test func aFenceIDOfAZoneReplacedInTheSameLoadIsFree() throws {
    var evaluator = try ZoneEvaluator(zones: [Zone(id: "old", fences: [Self.circle("f")])])
    // "f" moves from zone "old" to zone "new" while "old" is replaced by a zone without it.
    try evaluator.add([
      Zone(id: "old", fences: [Self.circle("g", north: 3000)]), Zone(id: "new", fences: [Self.circle("f")]),
    ])
    #expect(run(&evaluator, [fix(0)]) == ["0 checkIn a new/f"])
    try evaluator.replaceAll(with: [Zone(id: "other", fences: [Self.circle("f"), Self.circle("g")])])
    #expect(evaluator.zones.map(\.id) == ["other"])
  }

  @Test func errorsNameTheZoneTheFenceAndTheFault() {
    let error = ZoneError(zone: "z", fence: "f", fault: .duplicateFenceID(otherZone: "y"))
    #expect(error.description
      == "zone \"z\", fence \"f\": the id is already used by a fence or GEOLINE of zone \"y\"; fence and GEOLINE ids must be unique across the engine")
  }

  @Test func fenceAndGeolineIDsShareOneNamespace() throws {
    let zone = Zone(id: "z", fences: [Self.circle("x")], geolines: [try geoline("x", [(0, 0), (0, 10)])])
    var evaluator = ZoneEvaluator()
    #expect(throws: ZoneError(zone: "z", fence: "x", fault: .duplicateFenceID(otherZone: "z"))) {
      try evaluator.add(zone)
    }
  }
}
