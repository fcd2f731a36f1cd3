import FenceEngine
import FenceFormats
import FenceTestSupport
import Foundation
import Testing

/// Runs on the real New York Harbor zones and AIS tracks of `shared/data`, when present.
@Suite struct HarborTests {
  static let zonesPath = sharedDataPath("fences/nyharbor-zones.geojson")
  static let firstHourPath = sharedDataPath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")
  static let weekPath = sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv")
  static let hasFirstHour =
    FileManager.default.fileExists(atPath: zonesPath)
    && FileManager.default.fileExists(atPath: firstHourPath)
  static let hasWeek =
    FileManager.default.fileExists(atPath: zonesPath)
    && FileManager.default.fileExists(atPath: weekPath)

  /// All fixes of a track file in time order (stable across devices), as a daemon sees them.
  static func fixes(_ path: String) throws -> [LocationFix] {
    let fixes = try TrackReader(path: path).readAll()
    return fixes.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }.map(\.element)
  }

  static func replay(
    _ fixes: [LocationFix], configuration: ZoneEvaluator.Configuration = .default
  ) throws -> [ZoneEvent] {
    var evaluator = try ZoneEvaluator(
      configuration: configuration, zones: ZoneLoader.loadZones(contentsOf: zonesPath))
    var events: [ZoneEvent] = []
    for fix in fixes { evaluator.process(fix, into: &events) }
    if let last = fixes.last { evaluator.advance(to: last.time, into: &events) }
    return events
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
