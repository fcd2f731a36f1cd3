import FenceEngine
import FenceFormats
import FenceGeometry
import FenceTestSupport
import FenceTesting
import Foundation
import Testing

@testable import FenceStore

/// The snapshots' binary zone set: the same zones back, damaged bytes refused, and snapshots
/// written before it (GeoJSON) still restore.
@Suite struct ZoneSetCodingTests {
  /// Zones with every kind of member: names and descriptions or none, custom data, all rules,
  /// circles and points, a polygon with a hole, a multipolygon, GEOLINEs in each direction.
  static func varied() throws -> [Zone] {
    let square = { (center: Coordinate, half: Double) in
      [
        center.moved(north: -half, east: -half), center.moved(north: -half, east: half),
        center.moved(north: half, east: half), center.moved(north: half, east: -half),
        center.moved(north: -half, east: -half),
      ]
    }
    let holed = try Polygon(exterior: square(base, 500), holes: [square(base, 100)])
    let twoParts = try MultiPolygon([
      try Polygon(exterior: square(base.moved(north: 3000), 200)),
      try Polygon(exterior: square(base.moved(north: 4000), 200)),
    ])
    return [
      Zone(
        id: "all", name: "All kinds", description: "a \"quoted\"\nline",
        customData: ["n": .number(1.5), "list": .array([.bool(true), .null]), "é": .string("ü")],
        fences: [
          Fence(id: "holed", name: "with a hole", area: .polygon(MultiPolygon(holed))),
          Fence(id: "two", area: .polygon(twoParts)),
          try .point(id: "pt", at: base.moved(east: 900)),
          try .circle(id: "c", center: base.moved(east: -900), radius: 42.25),
        ],
        geolines: [
          Geoline(id: "g1", name: "gate", line: try Polyline([base, base.moved(north: 10)])),
          Geoline(
            id: "g2", line: try Polyline([base, base.moved(east: 10), base.moved(east: 20)]),
            direction: .leftToRight),
          Geoline(id: "g3", line: try Polyline([base, base.moved(north: -10)]), direction: .rightToLeft),
        ],
        rules: ZoneRules(
          minimumRetriggerTime: 30, dwell: 60.5, checkOut: false, initialTrigger: false,
          exitHysteresis: 12, exitConfirmations: 3)),
      Story.depot, Story.yard, Story.gate, Story.pier, Story.dock,
    ]
  }

  @Test func givesBackTheSameZones() throws {
    let zones = try Self.varied()
    let bytes = ZoneSetCoding.encode(zones)
    #expect(Array(bytes.prefix(4)) == Array("FKZ1".utf8))
    let decoded = try ZoneSetCoding.decode(bytes)
    #expect(decoded == zones)
    #expect(decoded.map(\.description) == zones.map(\.description))
    #expect(ZoneSetCoding.encode(decoded) == bytes)
    #expect(try ZoneSetCoding.decode(ZoneSetCoding.encode([])) == [])
  }

  @Test func givesBackTheFixtureZones() throws {
    var zones: [Zone] = []
    var options = ZoneLoadOptions()
    options.repair = true  // a borough's ring touches itself
    for file in ["zones/nyharbor-zones.geojson", "zones/nyc-boroughs.geojson", "zones/world-ports-us-east.geojson"] {
      zones += try ZoneLoader.loadZones(contentsOf: fixturePath(file), options: options)
    }
    #expect(zones.count > 100)
    let decoded = try ZoneSetCoding.decode(ZoneSetCoding.encode(zones))
    #expect(decoded == zones)
    // The decoded polygons answer as the loaded ones (their indexes were rebuilt).
    let probes = (0..<400).map { i in
      Coordinate(uncheckedLatitude: 40.45 + Double(i % 20) * 0.025, longitude: -74.3 + Double(i / 20) * 0.03)
    }
    for (original, copy) in zip(zones, decoded) {
      for (a, b) in zip(original.fences, copy.fences) {
        for probe in probes {
          let p = Position(probe)
          #expect(a.area.contains(p) == b.area.contains(p))
        }
      }
    }
  }

  @Test func refusesEveryTruncationAndDamagedValues() throws {
    let bytes = ZoneSetCoding.encode([Story.depot, Story.yard, Story.gate])
    for length in 0..<bytes.count {
      #expect(throws: PayloadError.self) { try ZoneSetCoding.decode(Array(bytes.prefix(length))) }
    }
    #expect(throws: PayloadError.self) { try ZoneSetCoding.decode(bytes + [0]) }
    // A latitude of 1000 where the yard's first vertex was.
    let yard = ZoneSetCoding.encode([Story.yard])
    var damaged = yard
    let latitude = Story.yard.fences[0].areaPolygonFirstLatitude
    let pattern = withUnsafeBytes(of: latitude.bitPattern.littleEndian, Array.init)
    let at = try #require(yard.firstRange(of: pattern)).lowerBound
    withUnsafeBytes(of: Double(1000).bitPattern.littleEndian) { damaged.replaceSubrange(at..<at + 8, with: $0) }
    #expect(throws: PayloadError.self) { try ZoneSetCoding.decode(damaged) }
  }

  /// A polygon fence that does not build (a ring of three points, the first repeated) is
  /// refused with its zone's and its own id, whichever zone of the set holds it, and no zone
  /// comes back.
  @Test func refusesAPolygonThatDoesNotBuildNamingItsZoneAndFence() throws {
    func zoneRecord(_ id: String, ring: [Coordinate], to writer: inout ByteWriter) {
      writer.string(id)
      writer.u8(0)  // no name, description, dwell or rules v2
      writer.string("{}")
      writer.f64(0)
      writer.u8(1)
      writer.u8(1)
      writer.f64(0)
      writer.i64(1)
      writer.varint(1)  // one fence
      writer.string("\(id)-fence")
      writer.u8(0)  // no name
      writer.u8(1)  // a polygon
      writer.varint(1)  // of one part
      writer.varint(1)  // of one ring
      writer.varint(UInt64(ring.count))
      for vertex in ring {
        writer.f64(vertex.latitude)
        writer.f64(vertex.longitude)
      }
      writer.varint(0)  // no GEOLINE
    }
    let square = [
      base, base.moved(east: 100), base.moved(north: 100, east: 100), base.moved(north: 100), base,
    ]
    let flat = [base, base.moved(east: 100), base]
    for broken in 0..<3 {
      var writer = ByteWriter()
      writer.bytes = ZoneSetCoding.magic
      writer.varint(3)
      for k in 0..<3 { zoneRecord("z\(k)", ring: k == broken ? flat : square, to: &writer) }
      #expect {
        _ = try ZoneSetCoding.decode(writer.bytes)
      } throws: { error in
        "\(error)".hasPrefix("zone z\(broken) fence z\(broken)-fence: ")
      }
    }
    var writer = ByteWriter()
    writer.bytes = ZoneSetCoding.magic
    writer.varint(3)
    for k in 0..<3 { zoneRecord("z\(k)", ring: square, to: &writer) }
    let zones = try ZoneSetCoding.decode(writer.bytes)
    #expect(zones.map(\.id) == ["z0", "z1", "z2"])
    #expect(zones.map(\.customData) == [[:], [:], [:]])
    #expect(zones.map { $0.fences[0].area.contains(Position(base.moved(north: 50, east: 50))) } == [true, true, true])
  }

  /// A store whose snapshot holds the GeoJSON zone set of earlier versions still opens, and its
  /// next snapshot is written in the binary form.
  @Test func aGeoJSONSnapshotStillRestores() throws {
    try withTemporaryDirectory { directory in
      let zones = try Self.varied()
      let path = directory.sub("store")
      do {
        let store = try FenceStore(directory: path)
        _ = try store.execute(.replaceAllZones(zones))
        _ = try store.execute(.fixes([fix("a", 10, base)]))
        try store.close()
      }
      // Put the zone set back as an earlier version wrote it.
      let database = (path as NSString).appendingPathComponent("fence.sqlite")
      let storage = try SQLiteStorage(path: database)
      var snapshot = try #require(try storage.latestSnapshot())
      #expect(ZoneSetCoding.isBinary(snapshot.zoneSet))
      snapshot.zoneSet = try ZoneSetWriter.bytes(zones)
      snapshot.zoneSetHash = nil
      try storage.writeSnapshot(snapshot)  // replaces the snapshot of the same command
      try storage.close()

      let store = try FenceStore(directory: path)
      #expect(store.zones == zones.sorted { $0.id < $1.id })
      #expect(store.recovery.snapshotCommandSeq == 2)
      _ = try store.execute(.fixes([fix("a", 20, base)]))
      try store.snapshot()
      try store.close()
      let reopened = try SQLiteStorage(path: database)
      #expect(ZoneSetCoding.isBinary(try #require(try reopened.latestSnapshot()).zoneSet))
      try reopened.close()
    }
  }
}

extension Fence {
  /// The latitude of the first vertex of a polygon fence.
  fileprivate var areaPolygonFirstLatitude: Double {
    guard case .polygon(let multipolygon) = area else { return .nan }
    return multipolygon.polygons[0].rings[0][0].latitude
  }
}

/// A snapshot whose evaluator bytes are damaged (decoded beside the zones' build, on another
/// thread) is refused as damage naming the snapshot, whether its zone set loads or not.
@Suite struct DamagedEvaluatorSnapshotTests {
  @Test(arguments: [false, true])
  func aDamagedEvaluatorSnapshotIsReportedAsDamage(zoneSetToo: Bool) throws {
    try withTemporaryDirectory { directory in
      let path = directory.sub("store")
      do {
        let store = try FenceStore(directory: path)
        _ = try store.execute(.replaceAllZones(try ZoneSetCodingTests.varied()))
        _ = try store.execute(.fixes([fix("a", 10, base)]))
        try store.close()
      }
      let database = (path as NSString).appendingPathComponent("fence.sqlite")
      let storage = try SQLiteStorage(path: database)
      var snapshot = try #require(try storage.latestSnapshot())
      snapshot.evaluator = Array(snapshot.evaluator.prefix(snapshot.evaluator.count / 2))
      if zoneSetToo {
        snapshot.zoneSet = Array(snapshot.zoneSet.prefix(9))
        snapshot.zoneSetHash = nil
      }
      try storage.writeSnapshot(snapshot)
      try storage.close()
      #expect {
        _ = try FenceStore(directory: path)
      } throws: { error in
        guard case .damaged(let message) = error as? StoreError else { return false }
        return message.hasPrefix(
          zoneSetToo ? "the zone set of snapshot 2 does not load" : "snapshot 2 does not restore")
      }
    }
  }
}
