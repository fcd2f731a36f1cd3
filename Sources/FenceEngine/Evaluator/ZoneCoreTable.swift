/// The evaluator's ``ZoneCore`` of every zone slot, with the rules shared: a slot keeps its add
/// sequence, its gate and the number of its rule set (16 bytes), and each distinct rule set is
/// kept once (32 bytes). A million zones loaded with one set of rules took 40 bytes each; 16
/// now.
///
/// Reading a slot (``subscript(_:)``) puts its ``ZoneCore`` together from the two, which costs
/// two loads more than reading a stored core; the rule sets are few, so they stay in cache.
/// Writing a slot finds its rule set among those kept (the slot's own first, then the one
/// written last, then a table by value) and counts the slots using each, so that a set no slot
/// uses any more is forgotten and its number used again: a long-running daemon whose zones come
/// and go with rules of their own holds no more sets than it has zones.
struct ZoneCoreTable: RandomAccessCollection {
  /// One zone slot: 16 bytes.
  private struct Row {
    var addedSequence: UInt64
    var ruleSet: Int32
    var gate: ZoneGate
    /// The rule set's ``ZoneRuleSet/isPlain``, kept in the row's padding so that the per-fix
    /// step reads it with one load (``hasPlainRules(slot:)``): derived from the rule set at
    /// each read, it cost the constant-density cold tracks 23 instructions a fix (0.7 %,
    /// `count-instructions`). Written with the row, from the rules the row is given.
    var isPlain: Bool

    init(addedSequence: UInt64, ruleSet: Int32, gate: ZoneGate, rules: ZoneRuleSet) {
      self.addedSequence = addedSequence
      self.ruleSet = ruleSet
      self.gate = gate
      isPlain = rules.isPlain
    }
  }

  private var rows: [Row] = []
  /// The rule sets by number; a forgotten one holds blank rules until it is used again.
  private var ruleSets: [ZoneRuleSet] = []
  /// Per rule set, the slots using it.
  private var useCounts: [Int] = []
  /// The number of each rule set in use.
  private var numbers: [ZoneRuleSet: Int32] = [:]
  /// Numbers of forgotten rule sets, to use again.
  private var freeNumbers: [Int32] = []
  /// The rule set written last (most loads give many zones the same rules).
  private var lastNumber: Int32 = -1
  /// How many slots have rules with an exit hysteresis (above 0), counted as rule sets are
  /// used and released: while none has, marking skips its pass over the device's records that
  /// keeps a stay within its hysteresis (``hasExitHysteresis``).
  private var hysteresisSlots = 0

  init() {}

  var startIndex: Int { 0 }
  var endIndex: Int { rows.count }

  /// The number of distinct rule sets in use (for tests of the storage).
  var ruleSetCount: Int { numbers.count }

  /// The slots the table holds without growing (for tests of the storage).
  var capacity: Int { rows.capacity }

  /// Bytes a slot takes (for tests of the storage).
  static var rowBytes: Int { MemoryLayout<Row>.stride }

  /// The core of slot `slot`.
  subscript(_ slot: Int) -> ZoneCore {
    @inline(__always) get {
      let row = rows[slot]
      return ZoneCore(ruleSets[Int(row.ruleSet)], addedSequence: row.addedSequence, gate: row.gate)
    }
    set {
      let old = rows[slot].ruleSet
      var number = old
      if !ruleSets[Int(old)].isIdentical(to: newValue.ruleSet) {
        number = use(newValue.ruleSet)
        release(old)
      }
      rows[slot] = Row(
        addedSequence: newValue.addedSequence, ruleSet: number, gate: newValue.gate,
        rules: newValue.ruleSet)
    }
  }

  /// Slot `slot`'s MRT, in seconds (read by the per-fix pruning of records without building the
  /// whole core).
  @inline(__always)
  func minimumRetriggerTime(ofSlot slot: Int) -> Double {
    ruleSets[Int(rows[slot].ruleSet)].minimumRetriggerTime
  }

  /// Whether some slot's rules have an exit hysteresis above 0: slots of removed zones count
  /// until their slots are written again.
  @inline(__always)
  var hasExitHysteresis: Bool { hysteresisSlots > 0 }

  /// Whether slot `slot`'s rules are plain (``ZoneRuleSet/isPlain``), read from its row alone.
  @inline(__always)
  func hasPlainRules(slot: Int) -> Bool {
    rows[slot].isPlain
  }

  /// Appends a slot holding `core`.
  mutating func append(_ core: ZoneCore) {
    let number = use(core.ruleSet)
    rows.append(
      Row(addedSequence: core.addedSequence, ruleSet: number, gate: core.gate, rules: core.ruleSet))
  }

  /// Room for `count` slots, grown as ``Array/reserveCapacity(growingTo:)`` grows an array.
  mutating func reserveCapacity(growingTo count: Int) {
    rows.reserveCapacity(growingTo: count)
  }

  /// Asks the processor for slot `slot`'s row and its rule set (see `prefetchLines`).
  @inline(__always)
  func prefetch(slot: Int) {
    rows.withUnsafeBufferPointer { prefetchLines(of: $0.baseAddress! + slot) }
  }

  /// Puts the slots in the order `source` gives (slot `s` takes the row that was at
  /// `source[s]`), as ``ZoneEvaluator/permute(_:takingFrom:leaving:)`` does for the other
  /// tables (with the same room to grow, ``ZoneEvaluator/loadCapacity(for:)``); the rule sets
  /// and their counts stay as they are.
  mutating func permute(takingFrom source: [Int]) {
    precondition(rows.count == source.count, "one source per slot")
    let old = rows
    rows = [Row](unsafeUninitializedCapacity: ZoneEvaluator.loadCapacity(for: source.count)) {
      new, initialized in
      old.withUnsafeBufferPointer { old in
        for (slot, from) in source.enumerated() { (new.baseAddress! + slot).initialize(to: old[from]) }
      }
      initialized = source.count
    }
  }

  /// Makes the rows this table's own, keeping their capacity (see
  /// ``ZoneEvaluator/ownZoneTables()``).
  mutating func ownRows() {
    rows.reserveCapacity(rows.capacity)
  }

  /// The number of `rules`, counting one more slot using it (kept, or made).
  private mutating func use(_ rules: ZoneRuleSet) -> Int32 {
    let number: Int32
    if lastNumber >= 0, ruleSets[Int(lastNumber)].isIdentical(to: rules), useCounts[Int(lastNumber)] > 0 {
      number = lastNumber
    } else if let known = numbers[rules] {
      number = known
    } else if let free = freeNumbers.popLast() {
      number = free
      ruleSets[Int(free)] = rules
      numbers[rules] = free
    } else {
      number = Int32(ruleSets.count)
      ruleSets.append(rules)
      useCounts.append(0)
      numbers[rules] = number
    }
    useCounts[Int(number)] += 1
    if rules.exitHysteresis > 0 { hysteresisSlots += 1 }
    lastNumber = number
    return number
  }

  /// Counts one slot fewer using rule set `number`, forgetting the set when none does.
  private mutating func release(_ number: Int32) {
    useCounts[Int(number)] -= 1
    if ruleSets[Int(number)].exitHysteresis > 0 { hysteresisSlots -= 1 }
    guard useCounts[Int(number)] == 0 else { return }
    numbers[ruleSets[Int(number)]] = nil
    ruleSets[Int(number)] = ZoneRuleSet()
    freeNumbers.append(number)
    if lastNumber == number { lastNumber = -1 }
  }
}

/// The rules of a zone that the per-fix step reads, shared in ``ZoneCoreTable`` by the zones
/// that have the same. Equal (and hashed) by the numbers' bits, so that -0.0 and 0.0 stay apart
/// and every zone reads back exactly its own rules.
struct ZoneRuleSet: Hashable {
  var exitHysteresis = 0.0
  var minimumRetriggerTime = 0.0
  var dwell = 0.0
  var exitConfirmations: Int32 = 1
  var checkOut = true
  var initialTrigger = true
  var hasDwell = false

  init() {}

  /// Whether a stay under these rules is as simple as stays get: it ends at the first fix found
  /// outside (at most one exit confirmation), opens no retrigger window, and has no dwell. The
  /// per-fix step takes a shorter way for records of such zones
  /// (``ZoneEvaluator/checkOutAndInPlainly(fix:isFirst:device:records:into:)``). The blank
  /// rules of a free slot are plain. Exit hysteresis does not matter: marking applies it,
  /// before either way.
  var isPlain: Bool {
    exitConfirmations <= 1 && !(minimumRetriggerTime > 0) && !hasDwell
  }

  /// Whether both hold the same rules, numbers compared by their bits.
  @inline(__always)
  func isIdentical(to other: ZoneRuleSet) -> Bool {
    exitHysteresis.bitPattern == other.exitHysteresis.bitPattern
      && minimumRetriggerTime.bitPattern == other.minimumRetriggerTime.bitPattern
      && dwell.bitPattern == other.dwell.bitPattern
      && exitConfirmations == other.exitConfirmations && checkOut == other.checkOut
      && initialTrigger == other.initialTrigger && hasDwell == other.hasDwell
  }

  static func == (a: ZoneRuleSet, b: ZoneRuleSet) -> Bool { a.isIdentical(to: b) }

  func hash(into hasher: inout Hasher) {
    hasher.combine(exitHysteresis.bitPattern)
    hasher.combine(minimumRetriggerTime.bitPattern)
    hasher.combine(dwell.bitPattern)
    hasher.combine(exitConfirmations)
    hasher.combine(checkOut)
    hasher.combine(initialTrigger)
    hasher.combine(hasDwell)
  }
}
