import FenceGeometry
import Testing

@testable import FenceEngine

/// `Zone` keeps its name, description and GEOLINEs in a shared immutable box (nil when it has
/// none): the value must behave exactly as if they were stored properties.
@Suite struct ZoneValueTests {
  private func line(_ id: String) throws -> Geoline {
    Geoline(
      id: id,
      line: try Polyline([
        Coordinate(latitude: 40.70, longitude: -74.02), Coordinate(latitude: 40.71, longitude: -74.01),
      ]))
  }

  @Test func propertiesReadBackWhatWasSet() throws {
    var zone = Zone(id: "z", name: "Pier", description: "north side", geolines: [try line("g")])
    #expect(zone.name == "Pier")
    #expect(zone.description == "north side")
    #expect(zone.geolines.map(\.id) == ["g"])

    zone.name = nil
    #expect(zone.name == nil)
    #expect(zone.description == "north side")
    #expect(zone.geolines.map(\.id) == ["g"])

    zone.geolines.append(try line("h"))
    #expect(zone.geolines.map(\.id) == ["g", "h"])
    zone.description = nil
    zone.geolines = []
    #expect(zone == Zone(id: "z"))
  }

  /// A copy is a value: changing it leaves the original (which shares the box) as it was.
  @Test func copiesAreIndependent() throws {
    let original = Zone(id: "z", name: "Pier", geolines: [try line("g")])
    var copy = original
    copy.name = "Dock"
    copy.geolines[0] = try line("k")
    #expect(original.name == "Pier")
    #expect(original.geolines.map(\.id) == ["g"])
    #expect(copy.name == "Dock")
    #expect(copy.geolines.map(\.id) == ["k"])
  }

  /// Equality and hashing see the boxed properties, whichever way they were set.
  @Test func equalityAndHashingSeeEveryProperty() throws {
    let built = Zone(id: "z", name: "Pier", description: "d", geolines: [try line("g")])
    var assigned = Zone(id: "z")
    assigned.geolines = [try line("g")]
    assigned.description = "d"
    assigned.name = "Pier"
    #expect(built == assigned)
    #expect(built.hashValue == assigned.hashValue)
    #expect(Set([built, assigned]).count == 1)

    var renamed = built
    renamed.name = "Dock"
    #expect(renamed != built)
    var described = built
    described.description = nil
    #expect(described != built)
    var lined = built
    lined.geolines = []
    #expect(lined != built)
  }

  /// The size that makes the boxes worth it: 104 bytes with a single fence inline (its 56
  /// bytes in the ``FenceList``; 144 with the rules inline, 176 with the name, description and
  /// GEOLINEs too); a million zones loaded from a file are all held at the end of the parse.
  /// Before the fence moved inline a zone took 48 bytes and its one-fence array 96 more.
  @Test func aZoneTakesAHundredAndFourBytes() {
    #expect(MemoryLayout<Zone>.size == 104)
    #expect(MemoryLayout<FenceList>.size == 57)
    #expect(MemoryLayout<Fence>.size == 57)
    #expect(MemoryLayout<ZoneRules>.size == 8)
  }

  /// Rules share one box until one copy changes; the defaults share one box however they are
  /// made; equal rules are equal (and hash alike) whichever boxes hold them.
  @Test func rulesAreSharedUntilChangedAndEqualByValue() {
    var a = ZoneRules(dwell: 30, exitConfirmations: 2)
    let b = a
    a.minimumRetriggerTime = 60
    #expect(b.minimumRetriggerTime == 0 && a.minimumRetriggerTime == 60)
    #expect(a.dwell == 30 && b.dwell == 30 && a.exitConfirmations == 2)
    var c = ZoneRules()
    c.dwell = 30
    c.exitConfirmations = 2
    #expect(c == b && c.hashValue == b.hashValue)
    #expect(c != a)
    c.minimumRetriggerTime = 60
    #expect(c == a && c.hashValue == a.hashValue)
    var defaults = ZoneRules(minimumRetriggerTime: 5)
    defaults.minimumRetriggerTime = 0
    #expect(defaults == ZoneRules.default && ZoneRules() == .default)
    var v2 = ZoneRules()
    v2.validFrom = Timestamp(microsecondsSinceEpoch: 1_000_000)
    v2.exitOnRemove = true
    #expect(v2.validFrom == Timestamp(microsecondsSinceEpoch: 1_000_000) && v2.exitOnRemove)
    #expect(ZoneRules.default.validFrom == nil && !ZoneRules.default.exitOnRemove)
  }

  /// The description lists the values as the rules' stored properties did before the box (a
  /// daemon's zone files' digest includes it): the same text in every process and for every box.
  @Test func rulesDescribeTheirValuesNotTheirBox() {
    var changed = ZoneRules()
    changed.dwell = 30
    #expect(
      String(describing: changed)
        == "ZoneRules(minimumRetriggerTime: 0.0, dwell: Optional(30.0), checkOut: true, initialTrigger: true, exitOnRemove: false, exitHysteresis: 0.0, exitConfirmations: 1, extensions: nil)")
    #expect(String(describing: ZoneRules(dwell: 30)) == String(describing: changed))
    #expect(!String(reflecting: ZoneRules.default).contains("0x"))
  }

  /// A circle keeps its centre and radius only (24 bytes, 64 when it kept its ECEF centre,
  /// chord and local radius): a zone's one-fence array of a circle takes 32 bytes of header and
  /// one fence.
  @Test func aCircleFenceTakesSixtyFourBytes() {
    #expect(MemoryLayout<Fence>.stride == 64)
  }
}
