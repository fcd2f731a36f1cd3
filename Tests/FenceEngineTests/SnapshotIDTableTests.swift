import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

@testable import FenceEngine

/// A snapshot numbers its zones' ids by a binary search (the zones are in id order) and hashes
/// only the other ids: the bytes must be those of numbering every id through one dictionary.
@Suite struct SnapshotIDTableTests {
  @Test(arguments: SnapshotTests.configurations.indices)
  func searchingZoneIDsGivesTheSameBytes(configuration index: Int) throws {
    var evaluator = try ZoneEvaluator(
      configuration: SnapshotTests.configurations[index], zones: try SkippingTests.syntheticZones())
    var events: [ZoneEvent] = []
    var compared = 0
    var withRecords = 0
    var withMonitored = 0
    for (k, fix) in SnapshotTests.walks(seed: 41, count: 1_200).enumerated() {
      evaluator.process(fix, into: &events)
      guard k % 100 == 99 else { continue }
      let snapshot = evaluator.snapshot()
      let searched = snapshot.encoded()
      #expect(searched == snapshot.encoded(searchingZoneIDs: false), "after fix \(k)")
      #expect(try EvaluatorSnapshot(decoding: searched) == snapshot)
      compared += 1
      if snapshot.devices.contains(where: { !$0.records.isEmpty }) { withRecords += 1 }
      if snapshot.devices.contains(where: { !$0.monitored.isEmpty }) { withMonitored += 1 }
    }
    #expect(compared == 12)
    // Of the 12 snapshots, how many held zone records (zone and fence ids to number) and
    // monitored elements (proximity monitoring only): exact for the seed.
    #expect(withRecords == [11, 11, 9][index])
    #expect(withMonitored == [0, 0, 12][index])
  }

  /// Zones out of id order (a snapshot made by hand) are numbered through the dictionary: the
  /// same bytes as before the search.
  @Test func zonesOutOfOrderAreHashed() throws {
    var evaluator = try ZoneEvaluator(zones: try SkippingTests.syntheticZones())
    var events: [ZoneEvent] = []
    for fix in SnapshotTests.walks(seed: 42, count: 300) { evaluator.process(fix, into: &events) }
    let snapshot = evaluator.snapshot()
    let reversed = EvaluatorSnapshot(
      zoneFingerprint: snapshot.zoneFingerprint, time: snapshot.time,
      acceptedFixCount: snapshot.acceptedFixCount, skippedFixCount: snapshot.skippedFixCount,
      rejections: snapshot.rejections, stayCounter: snapshot.stayCounter,
      addSequence: snapshot.addSequence, zoneSequences: snapshot.zoneSequences.reversed(),
      devices: snapshot.devices, pendingEvents: snapshot.pendingEvents)
    #expect(reversed.encoded() == reversed.encoded(searchingZoneIDs: false))
    #expect(reversed.encoded() != snapshot.encoded())
    #expect(try EvaluatorSnapshot(decoding: reversed.encoded()) == reversed)
  }
}
