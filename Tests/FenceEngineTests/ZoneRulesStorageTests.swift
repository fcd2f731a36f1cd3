import FenceEngine
import Testing

/// `ZoneRules` holds its rules v2 values behind one shared reference: rules still compare,
/// hash and change as plain values whichever way they were made.
@Suite struct ZoneRulesStorageTests {
  let conditions = ZoneConditions(minimumSpeed: 2, deviceTags: .init(any: ["bus"]))
  let from = Timestamp(microsecondsSinceEpoch: 1_000_000)
  let until = Timestamp(microsecondsSinceEpoch: 9_000_000)

  @Test func rulesV2SetOneByOneEqualTheSameRulesMadeAtOnce() {
    var stepwise = ZoneRules(dwell: 30)
    stepwise.conditions = conditions
    stepwise.validFrom = from
    stepwise.validUntil = until
    stepwise.exitOnRemove = true
    let atOnce = ZoneRules(
      dwell: 30, conditions: conditions, validFrom: from, validUntil: until, exitOnRemove: true)
    #expect(stepwise == atOnce)
    #expect(stepwise.hashValue == atOnce.hashValue)
    #expect(stepwise.conditions == conditions)
    #expect(stepwise.validFrom == from)
    #expect(stepwise.validUntil == until)
    #expect(stepwise.schedule == nil)
    #expect(stepwise.roam == nil)
  }

  @Test func aCopyChangesAloneAndClearedRulesEqualTheDefaults() {
    let original = ZoneRules(conditions: conditions, validUntil: until)
    var copy = original
    copy.validUntil = from
    #expect(original.validUntil == until)
    #expect(copy.validUntil == from)
    #expect(copy.conditions == conditions)
    #expect(copy != original)

    copy.conditions = nil
    copy.validUntil = nil
    #expect(copy == .default)
    #expect(copy.hashValue == ZoneRules.default.hashValue)
    #expect(!copy.hasLifetime)
    #expect(original.hasLifetime)
  }

  @Test func eachRulesV2ValueTakesPartInEquality() {
    let base = ZoneRules(conditions: conditions, validFrom: from)
    var other = base
    other.conditions = ZoneConditions(minimumSpeed: 3, deviceTags: .init(any: ["bus"]))
    #expect(other != base)
    other = base
    other.validFrom = until
    #expect(other != base)
    other = base
    other.schedule = ZoneSchedule(timeZone: "UTC", windows: [])
    #expect(other != base)
    other = base
    other.exitOnRemove = true
    #expect(other != base)
    other.exitOnRemove = false
    #expect(other == base)
  }
}
