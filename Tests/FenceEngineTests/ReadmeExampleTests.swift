import FenceEngine
import FenceFormats
import FenceTestSupport
import Testing

/// The embedding examples of README.md, run on the bundled fixtures so they keep compiling and
/// keep giving the same events as the plain evaluator.
@Suite struct ReadmeExampleTests {
  let zonesPath = fixturePath("zones/nyharbor-zones.geojson")
  let fixesPath = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")

  /// The single-threaded loop of the README: read, process, write.
  func evaluatorLoop(zonesPath: String, fixesPath: String) throws -> [ZoneEvent] {
    let zones = try ZoneLoader.loadZones(contentsOf: zonesPath)
    var engine = try ZoneEvaluator(zones: zones)
    var events: [ZoneEvent] = []
    var all: [ZoneEvent] = []
    let fixes = try TrackReader(path: fixesPath)
    while let fix = try fixes.next() {
      events.removeAll(keepingCapacity: true)
      engine.process(fix, into: &events)
      all += events
    }
    return all
  }

  /// The daemon example of the README: a FenceMonitor fed from one task, drained by another.
  func monitorLoop(zonesPath: String, fixesPath: String) async throws -> [ZoneEvent] {
    let zones = try ZoneLoader.loadZones(contentsOf: zonesPath)
    let monitor = try FenceMonitor(zones: zones)
    let forwarder = Task {
      var forwarded: [ZoneEvent] = []
      for await event in monitor.events { forwarded.append(event) }
      return forwarded
    }
    let fixes = try TrackReader(path: fixesPath)
    while let fix = try fixes.next() {
      monitor.submit(fix)
    }
    monitor.finish()
    return await forwarder.value
  }

  @Test func theDaemonExampleGivesTheEvaluatorsEvents() async throws {
    let expected = try evaluatorLoop(zonesPath: zonesPath, fixesPath: fixesPath)
    let forwarded = try await monitorLoop(zonesPath: zonesPath, fixesPath: fixesPath)
    #expect(forwarded == expected)
    #expect(expected.count(where: { $0.kind == .checkIn }) > 0)
  }
}
