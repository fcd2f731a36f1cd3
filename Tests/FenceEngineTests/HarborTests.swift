import FenceEngine
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// Runs on the real New York Harbor zones and AIS tracks of `shared/data`, when present.
@Suite struct HarborTests {
  static let firstHourPath = sharedDataPath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")
  static let weekPath = sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv")
  static let hasFirstHour = FileManager.default.fileExists(atPath: firstHourPath)
  static let hasWeek = FileManager.default.fileExists(atPath: weekPath)

  /// The six zones of `fences/nyharbor-zones.geojson`, built by hand from its values so that
  /// these engine tests do not depend on the GeoJSON loader.
  static func harborZones() throws -> [Zone] {
    func c(_ lon: Double, _ lat: Double) throws -> Coordinate {
      try Coordinate(latitude: lat, longitude: lon)
    }
    func polygon(_ id: String, _ ring: [(Double, Double)]) throws -> Fence {
      Fence(id: id, area: .polygon(MultiPolygon(try Polygon(exterior: ring.map { try c($0.0, $0.1) }))))
    }
    return [
      Zone(
        id: "st-george", name: "St. George Ferry Terminal",
        customData: ["terminal": .string("St. George"), "borough": .string("Staten Island")],
        fences: [try .circle(id: "st-george-slips", center: c(-74.0716, 40.644), radius: 300)],
        rules: ZoneRules(minimumRetriggerTime: 300, dwell: 120)),
      Zone(
        id: "whitehall", name: "Whitehall Ferry Terminal",
        customData: ["terminal": .string("Whitehall"), "borough": .string("Manhattan")],
        fences: [try .circle(id: "whitehall-slips", center: c(-74.0131, 40.7008), radius: 250)],
        rules: ZoneRules(minimumRetriggerTime: 300, dwell: 120)),
      Zone(
        id: "narrows", name: "The Narrows", customData: ["waterway": .string("The Narrows")],
        geolines: [Geoline(id: "narrows-line", line: try Polyline([
          c(-74.06, 40.601), c(-74.044, 40.605), c(-74.028, 40.61),
        ]))],
        rules: ZoneRules(minimumRetriggerTime: 600)),
      Zone(
        id: "kill-van-kull", name: "Kill Van Kull", customData: ["waterway": .string("Kill Van Kull")],
        geolines: [Geoline(id: "kvk-line", line: try Polyline([c(-74.1, 40.65), c(-74.1, 40.642)]))],
        rules: ZoneRules(minimumRetriggerTime: 600)),
      Zone(
        id: "governors-island", name: "Governors Island", customData: ["kind": .string("island")],
        fences: [try polygon("governors-island-shore", [
          (-74.024, 40.693), (-74.023, 40.686), (-74.016, 40.685), (-74.011, 40.69),
          (-74.015, 40.695), (-74.024, 40.693),
        ])],
        rules: ZoneRules(exitHysteresis: 25)),
      Zone(
        id: "upper-bay-anchorage", name: "Upper Bay anchorage",
        customData: ["kind": .string("anchorage")],
        fences: [try polygon("upper-bay-anchorage-area", [
          (-74.045, 40.645), (-74.04, 40.63), (-74.025, 40.635), (-74.03, 40.65), (-74.045, 40.645),
        ])],
        rules: ZoneRules(minimumRetriggerTime: 1800, dwell: 900)),
    ]
  }

  /// All fixes of a track file in time order (stable across devices), as a daemon sees them.
  ///
  /// A plain reader of the two harbor CSV layouts (MarineCadastre's `BaseDateTime,LON,LAT,MMSI,
  /// SOG,COG,…` and `device,time,lat,lon`), so that these engine tests do not depend on the
  /// track readers of FenceFormats.
  static func fixes(_ path: String) throws -> [LocationFix] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var lines = text.split(whereSeparator: \.isNewline).makeIterator()
    guard let header = lines.next() else { return [] }
    let names = header.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces).lowercased()
    }
    func column(_ candidates: String...) -> Int? {
      candidates.lazy.compactMap { names.firstIndex(of: $0) }.first
    }
    guard let deviceColumn = column("mmsi", "device"), let timeColumn = column("basedatetime", "time"),
      let latitudeColumn = column("lat"), let longitudeColumn = column("lon")
    else { return [] }
    let speedColumn = column("sog")
    let courseColumn = column("cog")
    var fixes: [LocationFix] = []
    while let line = lines.next() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      guard fields.count > max(deviceColumn, timeColumn, latitudeColumn, longitudeColumn),
        let time = parseTime(fields[timeColumn]), let latitude = Double(fields[latitudeColumn]),
        let longitude = Double(fields[longitudeColumn])
      else { continue }
      let knots = speedColumn.flatMap { fields.count > $0 ? Double(fields[$0]) : nil }
      let course = courseColumn.flatMap { fields.count > $0 ? Double(fields[$0]) : nil }
      fixes.append(LocationFix(
        device: String(fields[deviceColumn]), time: time, latitude: latitude, longitude: longitude,
        speed: knots.map { $0 * 1852 / 3600 }, course: course))
    }
    return fixes.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }.map(\.element)
  }

  /// `YYYY-MM-DDTHH:MM:SS` with an optional `Z`, in UTC.
  static func parseTime(_ text: Substring) -> Timestamp? {
    let digits = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int64($0) }
    guard digits.count == 6 else { return nil }
    let days = RFC3339.daysSinceEpoch(year: digits[0], month: digits[1], day: digits[2])
    let seconds = days * 86_400 + digits[3] * 3600 + digits[4] * 60 + digits[5]
    return Timestamp(microsecondsSinceEpoch: seconds * 1_000_000)
  }

  static func replay(
    _ fixes: [LocationFix], configuration: ZoneEvaluator.Configuration = .default
  ) throws -> [ZoneEvent] {
    var evaluator = try ZoneEvaluator(
      configuration: configuration, zones: harborZones())
    return replayEvents(fixes, through: &evaluator)
  }

  @Test(.enabled(if: hasFirstHour))
  func nativeAndGEOSPredicatesGiveIdenticalEvents() throws {
    let fixes = try Self.fixes(Self.firstHourPath)
    let native = try Self.replay(fixes)
    let geos = try Self.replay(fixes, configuration: .init(predicateBackend: .geosPrepared))
    #expect(native == geos)
    #expect(native.filter { $0.zone == "governors-island" || $0.zone == "upper-bay-anchorage" }
      .count > 0)
    #expect(native.count > 20)
  }

  @Test(.enabled(if: hasFirstHour))
  func monitoringOnlyTheNearestRegionsAgreesWithFullTriggeringWhenNIsLarge() throws {
    let fixes = try Self.fixes(Self.firstHourPath)
    let plain = try Self.replay(fixes)
    let monitored = try Self.replay(
      fixes,
      configuration: .init(proximity: .init(count: 20, radius: 100_000, triggersOnlyMonitored: true)))
    // Six zones, one fence or GEOLINE each, all within 100 km: every region is monitored, so
    // the zone events are the same and only monitoredSetChanged events are added.
    #expect(monitored.filter { $0.kind != .monitoredSetChanged } == plain)
  }

  @Test(.enabled(if: hasWeek))
  func theStatenIslandFerryChecksInDwellsAndChecksOutAtBothTerminalsAndCrossesNoGeoline() throws {
    let fixes = try Self.fixes(Self.weekPath).filter { $0.device == "367000150" }
    let events = try Self.replay(fixes)
    for terminal in ["st-george", "whitehall"] {
      for kind in [ZoneEvent.Kind.checkIn, .dwell, .checkOut] {
        #expect(events.contains { $0.zone == terminal && $0.kind == kind }, "\(terminal) \(kind)")
      }
    }
    #expect(!events.contains { $0.trigger == .geoline })
    // A check-out always follows a check-in of the same zone, and dwells fall inside stays.
    var inside: [String: Timestamp] = [:]
    for event in events {
      guard let zone = event.zone else { continue }
      switch event.kind {
      case .checkIn: inside[zone] = event.time
      case .dwell: #expect(event.checkInTime == inside[zone])
      case .checkOut:
        #expect(event.checkInTime == inside[zone])
        inside[zone] = nil
      default: break
      }
    }
  }

  @Test(.enabled(if: hasFirstHour))
  func shipsEnteringTheHarborCrossTheNarrowsRightToLeft() throws {
    let events = try Self.replay(try Self.fixes(Self.firstHourPath))
    let narrows = events.filter { $0.zone == "narrows" }
    #expect(narrows.contains { $0.direction == .rightToLeft })
    #expect(narrows.allSatisfy { $0.trigger == .geoline && $0.kind == .checkIn })
  }
}
