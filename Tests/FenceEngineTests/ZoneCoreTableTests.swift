import Testing

@testable import FenceEngine

/// The zone cores keep each distinct rule set once: every slot reads back exactly the core
/// written (signed zeros included), and a set no slot uses any more is forgotten.
@Suite struct ZoneCoreTableTests {
  static func rules(_ k: Int) -> ZoneRuleSet {
    var rules = ZoneRuleSet()
    rules.exitHysteresis = [0.0, -0.0, 25, 25][k % 4]
    rules.minimumRetriggerTime = k % 3 == 0 ? 60 : 0
    rules.dwell = k % 5 == 0 ? -0.0 : 0
    rules.hasDwell = k % 7 == 0
    rules.exitConfirmations = Int32(1 + k % 2)
    rules.checkOut = k % 11 != 0
    rules.initialTrigger = k % 13 != 0
    return rules
  }

  static func bits(_ core: ZoneCore) -> [UInt64] {
    let r = core.ruleSet
    return [
      r.exitHysteresis.bitPattern, r.minimumRetriggerTime.bitPattern, r.dwell.bitPattern,
      UInt64(r.exitConfirmations), r.checkOut ? 1 : 0, r.initialTrigger ? 1 : 0,
      r.hasDwell ? 1 : 0, core.addedSequence, UInt64(core.gate.rawValue),
    ]
  }

  @Test func manyZonesWithTheSameRulesShareOneSet() {
    #expect(ZoneCoreTable.rowBytes == 16)
    var table = ZoneCoreTable()
    for k in 0..<1_000 {
      table.append(ZoneCore(Self.rules(1), addedSequence: UInt64(k), gate: ZoneGate()))
    }
    #expect(table.ruleSetCount == 1)
    #expect(table.map(\.addedSequence) == (0..<1_000).map(UInt64.init))
    // -0.0 is another set than 0.0 (the rules otherwise the same).
    var positive = Self.rules(1)
    positive.exitHysteresis = 0
    table[7] = ZoneCore(positive, addedSequence: 7, gate: ZoneGate())
    #expect(table.ruleSetCount == 2)
    #expect(table[7].exitHysteresis.sign == .plus)
    #expect(table[8].exitHysteresis.sign == .minus)
    // The gate and the sequence change without touching the sets.
    table[8].gate.insert(.dormant)
    table[8].addedSequence = 99
    #expect(table.ruleSetCount == 2)
    #expect(table[8].gate == .dormant && table[8].addedSequence == 99)
    // The last slot of a set takes another: the set is forgotten.
    table[7] = ZoneCore(Self.rules(1), addedSequence: 7, gate: ZoneGate())
    #expect(table.ruleSetCount == 1)
  }

  /// Random writes against a plain array of cores: every slot equal bit for bit, and as many
  /// sets kept as distinct sets in use.
  @Test func randomWritesReadBackAsAPlainArray() {
    var state: UInt64 = 3
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    var table = ZoneCoreTable()
    var plain: [ZoneCore] = []
    for step in 0..<5_000 {
      switch next(6) {
      case 0, 1:
        let core = ZoneCore(Self.rules(next(40)), addedSequence: UInt64(step), gate: ZoneGate())
        table.append(core)
        plain.append(core)
      case 2 where !plain.isEmpty:
        let slot = next(plain.count)
        let core = ZoneCore(Self.rules(next(40)), addedSequence: UInt64(step), gate: ZoneGate())
        table[slot] = core
        plain[slot] = core
      case 3 where !plain.isEmpty:
        let slot = next(plain.count)
        table[slot].gate.formSymmetricDifference(.conditioned)
        plain[slot].gate.formSymmetricDifference(.conditioned)
      case 4 where !plain.isEmpty:
        let slot = next(plain.count)
        table[slot] = ZoneCore()
        plain[slot] = ZoneCore()
      case 5 where plain.count > 1:
        var order = Array(plain.indices)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, next(i + 1)) }
        table.permute(takingFrom: order)
        plain = order.map { plain[$0] }
      default: break
      }
      if step % 50 == 0 {
        #expect(table.hasExitHysteresis == plain.contains { $0.exitHysteresis > 0 })
      }
    }
    #expect(table.hasExitHysteresis == plain.contains { $0.exitHysteresis > 0 })
    #expect(table.count == plain.count)
    #expect(table.map(Self.bits) == plain.map(Self.bits))
    #expect(table.indices.allSatisfy { table.minimumRetriggerTime(ofSlot: $0) == plain[$0].minimumRetriggerTime })
    #expect(table.indices.allSatisfy { table.hasPlainRules(slot: $0) == plain[$0].ruleSet.isPlain })
    #expect(table.indices.contains { table.hasPlainRules(slot: $0) })
    #expect(table.indices.contains { !table.hasPlainRules(slot: $0) })
    #expect(table.ruleSetCount == Set(plain.map { Self.bits(ZoneCore($0.ruleSet, addedSequence: 0, gate: ZoneGate())) }).count)
  }

  /// Whether any slot has an exit hysteresis follows the slots' writes: the per-fix step
  /// skips the hysteresis pass while none has.
  @Test func exitHysteresisIsCountedAsSlotsAreWritten() {
    var none = Self.rules(0)
    none.exitHysteresis = 0
    var some = none
    some.exitHysteresis = 25
    var negativeZero = none
    negativeZero.exitHysteresis = -0.0
    var table = ZoneCoreTable()
    for k in 0..<3 { table.append(ZoneCore(none, addedSequence: UInt64(k), gate: ZoneGate())) }
    table.append(ZoneCore(negativeZero, addedSequence: 3, gate: ZoneGate()))
    #expect(!table.hasExitHysteresis)
    table[1] = ZoneCore(some, addedSequence: 1, gate: ZoneGate())
    #expect(table.hasExitHysteresis)
    table[2] = ZoneCore(some, addedSequence: 2, gate: ZoneGate())
    // The gate and the sequence change without touching the rules.
    table[1].gate.insert(.dormant)
    table[1].addedSequence = 9
    #expect(table.hasExitHysteresis)
    table[1] = ZoneCore(none, addedSequence: 1, gate: ZoneGate())
    #expect(table.hasExitHysteresis)
    table.permute(takingFrom: [3, 2, 1, 0])
    #expect(table.hasExitHysteresis)
    table[1] = ZoneCore()
    #expect(!table.hasExitHysteresis)
    table.append(ZoneCore(some, addedSequence: 4, gate: ZoneGate()))
    #expect(table.hasExitHysteresis)
  }

  /// Plain rules: one exit confirmation, no retrigger window, no dwell; hysteresis, check-out
  /// and initial trigger do not matter. Blank rules (a free slot's) are plain.
  @Test func plainRulesAreThoseOfStaysThatEndAtOnce() {
    #expect(ZoneRuleSet().isPlain)
    var rules = ZoneRuleSet()
    rules.exitHysteresis = 50
    rules.checkOut = false
    rules.initialTrigger = false
    #expect(rules.isPlain)
    var confirmed = ZoneRuleSet()
    confirmed.exitConfirmations = 2
    var windowed = ZoneRuleSet()
    windowed.minimumRetriggerTime = 0.5
    var dwelling = ZoneRuleSet()
    dwelling.hasDwell = true
    #expect(!confirmed.isPlain && !windowed.isPlain && !dwelling.isPlain)
    // A dwell of 0 s is still a dwell (an event at the check-in's time).
    dwelling.dwell = 0
    #expect(!dwelling.isPlain)
  }
}
