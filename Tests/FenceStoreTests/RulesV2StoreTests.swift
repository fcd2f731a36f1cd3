import FenceEngine
import FenceFormats
import FenceGeometry
import FenceTesting
import Foundation
import Testing

@testable import FenceStore

/// Rules v2 in the store: zone sets and commands keep the new rules and device tags, and the
/// check-outs a zone change causes are logged with that change, the same after recovery.
@Suite struct RulesV2StoreTests {
  static func timedZone() throws -> Zone {
    var rules = ZoneRules(dwell: 60)
    rules.validFrom = at(0)
    rules.validUntil = at(3600)
    rules.exitOnRemove = true
    rules.conditions = ZoneConditions(
      minimumSpeed: 0.5, maximumSpeed: 15, course: .init(from: 300, to: 60),
      deviceTags: .init(any: ["ferry"], none: ["test"]))
    rules.schedule = ZoneSchedule(
      timeZone: "America/New_York",
      windows: [.init(days: [.mon, .tue], from: .init(parsing: "07:00")!, to: .init(parsing: "02:00")!)],
      exceptions: [.init(parsing: "2020-12-25")!])
    return try .circle("timed", center: base, radius: 150, rules: rules)
  }

  @Test func theBinaryZoneSetKeepsRulesV2() throws {
    let zones = [try Self.timedZone(), try Zone.circle("plain", center: base.moved(north: 900), radius: 50)]
    let decoded = try ZoneSetCoding.decode(ZoneSetCoding.encode(zones))
    #expect(decoded == zones)
  }

  @Test func zoneCommandsKeepRulesV2AndTagCommandsRoundTrip() throws {
    let add = StoreCommand.addZones([try Self.timedZone()])
    #expect(try StoreCommand(kindCode: add.kindCode, payload: add.encodedPayload(), commandSeq: 1) == add)
    let tags = StoreCommand.setDeviceTags(device: "367000140", tags: ["ferry", "passenger"])
    #expect(tags.kindCode == 6)
    #expect(try StoreCommand(kindCode: 6, payload: tags.encodedPayload(), commandSeq: 2) == tags)
    #expect(throws: StoreError.self) {
      try StoreCommand(kindCode: 6, payload: tags.encodedPayload() + [0], commandSeq: 3)
    }
  }

  @Test func aRemovalWithExitOnRemoveLogsItsCheckOutAndRecoveryKeepsTheTags() throws {
    try withTemporaryDirectory { directory in
      var rules = ZoneRules()
      rules.exitOnRemove = true
      rules.conditions = ZoneConditions(deviceTags: .init(any: ["ferry"]))
      let zone = try Zone.circle("pier", center: base, radius: 100, rules: rules)
      do {
        let store = try openStore(directory.path)
        _ = try store.execute(.replaceAllZones([zone]))
        _ = try store.execute(.setDeviceTags(device: "boat", tags: ["ferry"]))
        _ = try store.execute(.fixes([fix("boat", 10, base), fix("other", 10, base)]))
        let answer = try #require(try store.execute(.removeZone("pier")))
        #expect(answer.events == 1)
        #expect(answer.firstSeq == 2)
        #expect(answer.lastSeq == 2)
        let events = try allEvents(store)
        #expect(events.map(describe) == [
          "10 checkIn boat pier/pier",
          "10 checkOut boat pier/pier in=10 duration=0",
        ])
        #expect(events.last?.checkOutReason == .zoneRemoved)
        try store.close()
      }
      // Recovery replays the log: the tags are back, the same events are there.
      let reopened = try openStore(directory.path)
      #expect(reopened.deviceStatus(named: "boat")?.tags == ["ferry"])
      #expect(try allEvents(reopened).count == 2)
      try reopened.close()
    }
  }
}
