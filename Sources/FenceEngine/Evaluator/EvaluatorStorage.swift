import FenceGEOS
import FenceGeometry

/// A zone as the evaluator keeps it in its zone table: what no other table holds, and the
/// slots of its fences and GEOLINEs.
///
/// Its fences are in the element tables (``ZoneEvaluator/fence(at:)``) and its rules but
/// `exitOnRemove` and the rules v2 box in its ``ZoneCore``: the public value is made again from
/// them (``ZoneEvaluator/fullZone(_:slot:)``, ``ZoneEvaluator/rules(of:slot:)``). 32 bytes
/// with the optional: the id, one reference that is the custom data or the rare parts, and the
/// slots (40 when the custom data and the rare parts took 8 bytes each, 48 when `exitOnRemove`
/// was a field of its own, 64 when the name box and the rules v2 box took 8 bytes each, and 104
/// for a whole `Zone` and the slots).
struct CompiledZone {
  var id: String
  /// The custom data, or (for a zone with a name, description, GEOLINEs, rules v2 values or
  /// `exitOnRemove`: few zones) the rare parts that hold it beside those.
  private var payload: Payload
  var slots: ElementSlots

  /// One reference either way (8 bytes: the enum's tag lives in the reference's spare bits).
  private enum Payload {
    case customData(JSONObject)
    case rare(RareParts)
  }

  /// A zone's values that most zones do not have, each shared with the zone as added, and its
  /// custom data.
  final class RareParts: Sendable {
    let customData: JSONObject
    let extras: Zone.Extras?
    let rulesV2: ZoneRules.Extensions?
    let exitOnRemove: Bool

    init(
      customData: JSONObject, extras: Zone.Extras?, rulesV2: ZoneRules.Extensions?,
      exitOnRemove: Bool
    ) {
      self.customData = customData
      self.extras = extras
      self.rulesV2 = rulesV2
      self.exitOnRemove = exitOnRemove
    }
  }

  init(_ zone: Zone, slots: ElementSlots) {
    id = zone.id
    if zone.extras != nil || zone.rules.extensions != nil || zone.rules.exitOnRemove {
      payload = .rare(
        RareParts(
          customData: zone.customData, extras: zone.extras, rulesV2: zone.rules.extensions,
          exitOnRemove: zone.rules.exitOnRemove))
    } else {
      payload = .customData(zone.customData)
    }
    self.slots = slots
  }

  /// The zone's custom data, as added.
  var customData: JSONObject {
    switch payload {
    case .customData(let data): data
    case .rare(let rare): rare.customData
    }
  }

  /// The rare parts, or `nil` for a zone without any.
  private var rare: RareParts? {
    if case .rare(let rare) = payload { return rare }
    return nil
  }

  /// The rules v2 `exitOnRemove` (kept in the rare parts: a field of its own took the zone
  /// table 8 bytes a zone, its stride 48 instead of 40).
  var exitOnRemove: Bool { rare?.exitOnRemove ?? false }

  /// The name, description and GEOLINEs (`nil` for none), shared with the zone as added.
  var extras: Zone.Extras? { rare?.extras }
  /// The rules v2 values (`nil` for none), shared with the rules as added.
  var rulesV2: ZoneRules.Extensions? { rare?.rulesV2 }

  /// The zone's GEOLINEs as added.
  var geolines: [Geoline] { extras?.geolines ?? [] }

  /// The bytes of an entry that an event reads from the table: the id and the payload (an
  /// optional's payload comes first), for the batch loop's prefetch.
  static var eventBytes: Int { MemoryLayout<CompiledZone>.offset(of: \.payload)! + MemoryLayout<Payload>.size }
}

/// A zone's element slots, its fences' (in the zone's order) then its GEOLINEs', held without
/// a heap allocation when the zone has one element (most zones: a million circle zones would
/// otherwise hold a million one-slot arrays, 56 bytes each). 8 bytes: a zone of several
/// elements keeps its fence count at the head of its slot array.
struct ElementSlots {
  private enum Storage {
    case fence(Int32)
    case geoline(Int32)
    /// The number of fences, then the slots.
    case many([Int32])
  }

  private var storage: Storage

  /// `slots` holds `fences` fence slots, then GEOLINE slots.
  init(_ slots: [Int32], fences: Int) {
    if slots.count == 1 {
      storage = fences == 1 ? .fence(slots[0]) : .geoline(slots[0])
    } else {
      storage = .many([Int32(fences)] + slots)
    }
  }

  /// `count` consecutive slots from `first`, of which the first `fences` are fence slots (no
  /// array made for a zone of one element).
  init(first: Int32, count: Int, fences: Int) {
    if count == 1 {
      storage = fences == 1 ? .fence(first) : .geoline(first)
    } else {
      storage = .many([Int32(fences)] + (0..<Int32(count)).map { first + $0 })
    }
  }

  /// The slot of a zone of one element; nil for a zone of several.
  var onlySlot: Int32? {
    switch storage {
    case .fence(let slot), .geoline(let slot): slot
    case .many: nil
    }
  }

  /// How many slots: fences and GEOLINEs.
  var count: Int {
    switch storage {
    case .fence, .geoline: 1
    case .many(let slots): slots.count - 1
    }
  }

  /// Calls `body` with each slot, fences first.
  @inline(__always)
  func forEach(_ body: (Int32) throws -> Void) rethrows {
    switch storage {
    case .fence(let slot), .geoline(let slot): try body(slot)
    case .many(let slots): for slot in slots.dropFirst() { try body(slot) }
    }
  }

  /// How many fences the zone has.
  var fenceCount: Int {
    switch storage {
    case .fence: 1
    case .geoline: 0
    case .many(let slots): Int(slots[0])
    }
  }

  /// Calls `body` with each fence slot, in the zone's order (no allocation: the per-fix
  /// hysteresis step reads it).
  @inline(__always)
  func forEachFence(_ body: (Int32) throws -> Void) rethrows {
    switch storage {
    case .fence(let slot): try body(slot)
    case .geoline: break
    case .many(let slots): for slot in slots[1..<(1 + Int(slots[0]))] { try body(slot) }
    }
  }
}

/// A polygon fence's shape as the per-fix tests read it, in a table by element slot (`nil` for
/// other slots). A class, so that the table holds one reference per slot: circles, which need
/// none of it, pay 8 bytes rather than the struct's 56.
final class PolygonFence {
  let shape: MultiPolygon
  /// With the ``ZoneEvaluator/PredicateBackend/geosPrepared`` backend.
  let prepared: PreparedShape?

  init(shape: MultiPolygon, prepared: PreparedShape?) {
    self.shape = shape
    self.prepared = prepared
  }
}

/// A GEOLINE's line and direction filter, in a table by element slot (`nil` for fences).
final class GeolineShape {
  let line: Polyline
  let direction: Geoline.DirectionFilter

  init(_ geoline: Geoline) {
    line = geoline.line
    direction = geoline.direction
  }
}

/// What the per-fix tests read about one element slot, in a flat table beside `elementIDs`: a
/// trivial value, so that reading it costs no reference counting. 48 bytes (144 when it held a
/// circle's exact test too, 64 when it held its fence's rank and a degree test of 44 bytes). A
/// circle's exact test and distances, which the tests read only now and then, are made from its
/// centre and radius (``circle``): a table of them took 48 bytes a circle. A fence's rank among
/// its zone's fences is in ``ZoneEvaluator/elementRanks``, which only zones of several fences
/// fill.
struct ElementCore {
  enum Kind: UInt8 {
    /// A free slot.
    case vacant
    case circle
    case polygon
    case geoline
  }

  /// Circles: the centre, and the containment test in degrees, tried before the exact one
  /// (first: its 32 bytes leave room for the small fields after it).
  var degreeTest = CircleDegreeTest()
  var kind = Kind.vacant
  /// The zone's ``ZoneGate`` (in the padding after `kind`): non-empty when the per-fix step must
  /// ask the zone before this element counts (rules v2).
  var gate = ZoneGate()
  /// Whether the element's id is its zone's id (a feature that is its own zone): the evaluator
  /// then keeps no copy of it (``ZoneEvaluator/elementID(at:)``). In the padding after `gate`.
  var idIsZoneID = false
  var zone: Int32 = -1
  /// The last 8 bytes, by kind: a circle's radius in metres (its bit pattern); a natively
  /// tested polygon's containment test (``UnretainedContainmentTest/address``; 0 for none).
  private var payload: UInt64 = 0

  init() {}

  /// Polygons tested natively: the containment test without reference counting. Its index is
  /// kept alive by the same slot of `polygonFences` (and the zone's value), which is always
  /// replaced together with this core. `nil` for other kinds.
  @inline(__always)
  var polygonTest: UnretainedContainmentTest? {
    guard kind == .polygon, payload != 0 else { return nil }
    return UnretainedContainmentTest(address: UInt(payload))
  }

  /// The bytes before ``payload``: all that a fix reads of a circle's core unless its test in
  /// degrees leaves it undecided.
  static var bytesBeforePayload: Int { MemoryLayout<ElementCore>.offset(of: \.payload)! }

  /// Circles: the radius in metres (0 for other kinds).
  @inline(__always)
  var radius: Double { kind == .circle ? Double(bitPattern: payload) : 0 }

  /// Circles: the circle, made again from its centre and radius (bit for bit the one added:
  /// trigonometry, so only for what the test in degrees leaves undecided, filing cells and
  /// distances).
  @inline(__always)
  var circle: Circle { Circle(validatedCenter: degreeTest.center, radius: radius) }

  /// The core of a fence: `nativePolygonTest` says whether a polygon is tested natively (no
  /// prepared GEOS geometry).
  init(fence area: Area, zone: Int32, nativePolygonTest: Bool) {
    self.zone = zone
    switch area {
    case .circle(let circle):
      kind = .circle
      degreeTest = CircleDegreeTest(
        center: circle.center, chordSquaredLimit: circle.chordSquaredLimit)
      payload = circle.radius.bitPattern
    case .polygon(let shape):
      kind = .polygon
      if nativePolygonTest, let test = shape.unretainedContainmentTest {
        payload = UInt64(test.address)
      }
    }
  }

  /// The core of a GEOLINE of zone slot `zone`.
  init(geolineOf zone: Int32) {
    kind = .geoline
    self.zone = zone
  }
}

/// The rules of one zone slot as the per-fix step reads them, put together by
/// ``ZoneCoreTable`` from the slot's row and its shared ``ZoneRuleSet`` (a trivial value: no
/// reference counting).
struct ZoneCore {
  /// The rules, kept once per distinct set by the table.
  var ruleSet = ZoneRuleSet()
  /// The evaluator's add sequence when this zone id was added (a replace keeps it): a device
  /// whose last accepted fix came before it sees the zone for the first time.
  var addedSequence: UInt64 = 0
  /// Rules v2 that decide per fix whether the zone counts (kept in step with its elements').
  var gate = ZoneGate()

  init() {}

  init(_ ruleSet: ZoneRuleSet, addedSequence: UInt64, gate: ZoneGate) {
    self.ruleSet = ruleSet
    self.addedSequence = addedSequence
    self.gate = gate
  }

  // The rules, read through the core as before the rule sets were shared (nothing sets them
  // through it: a new core is made from `ZoneRules`).
  var exitHysteresis: Double { ruleSet.exitHysteresis }
  var minimumRetriggerTime: Double { ruleSet.minimumRetriggerTime }
  var dwell: Double { ruleSet.dwell }
  var exitConfirmations: Int32 { ruleSet.exitConfirmations }
  var checkOut: Bool { ruleSet.checkOut }
  var initialTrigger: Bool { ruleSet.initialTrigger }
  var hasDwell: Bool { ruleSet.hasDwell }

  /// The zone's `dwell` rule as given (`nil` for no dwell events).
  var dwellRule: Double? { hasDwell ? dwell : nil }

  init(_ rules: ZoneRules, addedSequence: UInt64) {
    self.addedSequence = addedSequence
    ruleSet.exitConfirmations = Int32(clamping: rules.exitConfirmations)
    ruleSet.exitHysteresis = rules.exitHysteresis
    ruleSet.minimumRetriggerTime = rules.minimumRetriggerTime
    ruleSet.checkOut = rules.checkOut
    ruleSet.initialTrigger = rules.initialTrigger
    ruleSet.hasDwell = rules.dwell != nil
    ruleSet.dwell = rules.dwell ?? 0
    if rules.conditions != nil { gate.insert(.conditioned) }
  }
}

/// Why a zone may not count for a fix (rules v2), in one byte that both the zone's core and its
/// elements' cores carry, so that the per-fix test of a candidate fence reads it for free.
struct ZoneGate: OptionSet {
  let rawValue: UInt8
  init(rawValue: UInt8) { self.rawValue = rawValue }
  init() { rawValue = 0 }

  /// The zone is outside its lifetime or its schedule's windows: it counts for no fix.
  static let dormant = ZoneGate(rawValue: 1)
  /// The zone has conditions: a fix counts only when it passes them.
  static let conditioned = ZoneGate(rawValue: 2)
}

/// Where a device stands with one zone.
enum Presence: Equatable {
  /// Not inside (or never seen inside).
  case outside
  /// Inside without a check-in (initial trigger off, or the entry was suppressed by MRT): no
  /// dwell and no check-out for this stay.
  case insideSilently
  /// Checked in through a fence.
  case checkedIn
}

/// The dwell of one stay.
enum DwellStatus: Equatable {
  case none
  /// In the evaluator's queue, due at the record's `dwellDeadline`.
  case scheduled
  /// Due while an exit was pending: emitted when the device is inside again, dropped when the
  /// exit is confirmed.
  case waiting
  case fired
}

/// One device's state with one zone: presence, the current stay, whether an exit is pending and
/// the MRT window. Kept sorted by zone slot, in the device's `records` or a block of the
/// evaluator's ``ZoneRecordStore``.
///
/// 56 bytes (120 before), and a plain value: the first fix of a pending exit lives in the
/// evaluator's ``PendingExitTable``, the end of a stay at the current fix in its per-fix
/// scratch, and the check-in fence as its element slot. A device holding one record kept it
/// in an array whose allocation was 96 bytes instead of 160; in a large fleet it is now a
/// 56-byte block of the ``ZoneRecordStore``.
struct ZoneRecord {
  // Eight-byte fields first, then the small ones, so that padding is not repeated for every
  // record of every device.
  /// A token unique to the current stay, so stale dwell queue entries can be recognised.
  var stay: UInt64 = 0
  var checkInTime = Timestamp(microsecondsSinceEpoch: 0)
  var dwellDeadline = Timestamp(microsecondsSinceEpoch: 0)
  // The MRT window's start as a plain value with a bit in `optionals` (an optional `Timestamp`
  // takes 16 bytes).
  private var windowStartValue: Int64 = 0
  var zone: Int32
  /// The element slot of the fence the current (or last) stay checked in through, read back as
  /// its id with ``ZoneEvaluator/checkInFence(of:device:)``: ``noFence`` before any stay,
  /// ``detachedFence`` once a zone change removed that fence (its id is then in the
  /// evaluator's ``DetachedCheckInFences``). A slot rather than the id's `String`, so that the
  /// record is a plain value: copied, moved and dropped without reference counting.
  var checkInFenceSlot: Int32 = ZoneRecord.noFence
  /// Consecutive accepted fixes outside during this stay (0 when none is pending); the first
  /// of them is in the evaluator's ``PendingExitTable`` from the fix after it on.
  var exitCount: Int32 = 0
  /// Per-fix scratch: the containing fence with the lowest rank.
  var fenceNow: Int32 = -1
  var presence: Presence = .outside
  var willCheckOut = false
  var dwell: DwellStatus = .none
  /// Per-fix scratch: whether the current fix counts as inside (containment or hysteresis).
  var isInsideNow = false
  /// Per-fix scratch: the current fix failed the zone's conditions, so the zone does not see
  /// it (no entry, no exit, no confirmation counted).
  var isHiddenNow = false
  /// Whether `windowStartValue` is set.
  private var hasWindowStart = false

  init(zone: Int32) { self.zone = zone }

  /// ``checkInFenceSlot`` before the record's first stay: no fence (its id reads "").
  static let noFence: Int32 = -1
  /// ``checkInFenceSlot`` once the fence was removed: its id is kept aside.
  static let detachedFence: Int32 = -2

  /// Start of the MRT window, if one was ever opened.
  var windowStart: Timestamp? {
    @inline(__always) get {
      hasWindowStart ? Timestamp(microsecondsSinceEpoch: windowStartValue) : nil
    }
    @inline(__always) set {
      windowStartValue = newValue?.microsecondsSinceEpoch ?? 0
      hasWindowStart = newValue != nil
    }
  }

  /// Clears the per-fix scratch (inside, best fence, hidden) before a fix is evaluated; the
  /// hidden mark is then set by the fix's conditions, when some zone has any.
  @inline(__always)
  mutating func resetMarks() {
    isInsideNow = false
    isHiddenNow = false
    fenceNow = -1
  }
}

/// Everything the evaluator remembers about one device but its name, in 80 bytes (a million
/// devices hold a million of these; 120 bytes before the choices below):
/// - whether its last fix had a speed and a course are two bits of one byte beside `hasFix`
///   (two optional `Double`s took 16 bytes each);
/// - the cell memo keeps only what a fix reads of its entry (20 bytes instead of 32);
/// - the monitored set lives in ``ZoneEvaluator/monitoredSets``, which only proximity
///   monitoring fills;
/// - the name lives in ``ZoneEvaluator/deviceNames``, so that a caller holding every name can
///   hand its array over whole (``ZoneEvaluator/registerDevices(named:)``).
struct DeviceState {
  var lastTime = Timestamp(microsecondsSinceEpoch: 0)
  var lastCoordinate = Coordinate(uncheckedLatitude: 0, longitude: 0)
  /// The last speed and course as given when ``motion`` says there are (else 0).
  private var speedValue = 0.0
  private var courseValue = 0.0
  /// The evaluator's add sequence at this device's last accepted fix.
  var lastSequence: UInt64 = 0
  /// Sorted by zone slot; empty when they are in a block of the evaluator's
  /// ``ZoneRecordStore`` (a large fleet's device holding one to four).
  var records: [ZoneRecord] = []
  // Skipping's safe disc is in the evaluator's `safeDiscs` (only when skipping is on).
  /// The cell cache's answer for the cell of the device's last full evaluation (derived state:
  /// not in snapshots).
  var cellMemo = CellMemo()
  /// Last, in the 4 bytes after the memo's 20.
  var hasFix = false
  /// Bit 0: the last fix had a speed; bit 1: a course.
  private var motion: UInt8 = 0
  /// Whether the device's last full evaluation left it settled in the cell of its `cellMemo`
  /// (no GEOLINE near, nothing pending in its records), and how that fix answered the cell's
  /// fences to test (derived state: not in snapshots; see
  /// ``ZoneEvaluator/settledState(_:cell:testAnswers:records:)``).
  var settledInCell = SettledInCell()

  init() {}

  /// The speed of the device's last accepted fix, as given.
  var lastSpeed: Double? { motion & 1 != 0 ? speedValue : nil }

  /// The course of the device's last accepted fix, as given.
  var lastCourse: Double? { motion & 2 != 0 ? courseValue : nil }

  /// Sets the last fix's speed and course, as given.
  @inline(__always)
  mutating func setLastMotion(speed: Double?, course: Double?) {
    speedValue = speed ?? 0
    courseValue = course ?? 0
    motion = (speed == nil ? 0 : 1) | (course == nil ? 0 : 2)
  }

}

extension Array where Element == ZoneRecord {
  /// The index of the record for `zone` in records sorted by zone slot, or where it would be
  /// inserted: binary search down to a few records, then a scan (a device is in few zones, so
  /// this is usually the scan of a handful of records, inlined into the per-fix loops).
  @inline(__always)
  func recordIndex(of zone: Int32) -> (index: Int, found: Bool) {
    withUnsafeBufferPointer { $0.recordIndex(of: zone) }
  }

  /// The index of the record for `zone`, inserting an `outside` record when there is none.
  @inline(__always)
  mutating func ensureRecord(for zone: Int32) -> Int {
    let (index, found) = recordIndex(of: zone)
    if !found { insertRecord(for: zone, at: index) }
    return index
  }

  /// Keeps the records `isKept` answers true for, in their order, and drops the others: the
  /// pruning of finished records (``ZoneEvaluator/pruneRecords(_:at:zoneCores:)`` and the
  /// shorter step for plain zones).
  ///
  /// In place: the generic `removeAll(where:)` and `contains(where:)` copy each record. The
  /// tail goes one record at a time (usually one): `removeLast(_:)` is a generic range
  /// replacement.
  @inline(__always)
  mutating func keepRecords(where isKept: (borrowing ZoneRecord) -> Bool) {
    let kept = withUnsafeMutableBufferPointer { records in
      var kept = 0
      for r in records.indices where isKept(records[r]) {
        if kept != r { records.swapAt(kept, r) }
        kept += 1
      }
      return kept
    }
    while count > kept { removeLast() }
  }

  /// Inserts an `outside` record for `zone` at `index` (kept out of line: rare per fix).
  ///
  /// Appends, then moves the records after `index` up by one in one block and the new record
  /// into the gap: a device holds a handful of records, and the generic `insert(_:at:)` (a
  /// range replacement) cost several hundred instructions per check-in; swapping the new
  /// record down copied three records (152 bytes each) per place.
  @inline(never)
  mutating func insertRecord(for zone: Int32, at index: Int) {
    append(ZoneRecord(zone: zone))
    let last = count - 1
    guard index < last else { return }
    withUnsafeMutableBufferPointer { records in
      let base = records.baseAddress!
      let new = (base + last).move()
      (base + index + 1).moveInitialize(from: base + index, count: last - index)
      (base + index).initialize(to: new)
    }
  }
}

/// A dwell deadline in the evaluator's min-heap.
struct DwellEntry {
  var deadline: Timestamp
  var device: Int32
  var zone: Int32
  var stay: UInt64
}

/// The evaluator's dwell timers: a min-heap of dwell deadlines (ties in any order: due entries
/// are sorted before they are emitted).
typealias DwellQueue = DeadlineHeap<DwellEntry>

extension DwellEntry: Deadlined {}

/// A per-slot table of references that is empty while no slot holds one (`polygonFences`,
/// `geolineShapes`): a million circles would otherwise hold 8 MB of `nil` in each.
extension Array {
  /// The value of `slot`: `nil` while the table is empty.
  @inline(__always)
  func sparseSlot<Value>(_ slot: Int32) -> Value? where Element == Value? {
    isEmpty ? nil : self[Int(slot)]
  }

  /// Sets the value of `slot` of a table over `slotCount` slots: the first value brings the
  /// table (`nil` in the other slots); `nil` into an empty table changes nothing.
  @inline(__always)
  mutating func setSparseSlot<Value>(_ slot: Int32, to value: Value?, slotCount: Int)
  where Element == Value? {
    if isEmpty {
      guard value != nil else { return }
      append(contentsOf: repeatElement(nil, count: slotCount))
    }
    self[Int(slot)] = value
  }
}

/// The same for a table of plain values whose blank is a value of their own (`elementIDs`,
/// blank "" for an element named as its zone).
extension Array where Element: Equatable {
  /// The value of `slot`: `blank` while the table is empty.
  @inline(__always)
  func sparseSlot(_ slot: Int32, blank: Element) -> Element {
    isEmpty ? blank : self[Int(slot)]
  }

  /// Sets the value of `slot` of a table over `slotCount` slots: the first value other than
  /// `blank` brings the table (`blank` in the other slots); `blank` into an empty table changes
  /// nothing.
  @inline(__always)
  mutating func setSparseSlot(_ slot: Int32, to value: Element, blank: Element, slotCount: Int) {
    if isEmpty {
      guard value != blank else { return }
      append(contentsOf: repeatElement(blank, count: slotCount))
    }
    self[Int(slot)] = value
  }
}

extension UnsafeBufferPointer where Element == ZoneRecord {
  /// Whether a record's dwell waits for its device to be found inside again (read in place: a
  /// `for record in records` loop copies each record).
  @inline(__always)
  var hasWaitingDwell: Bool {
    for r in indices where self[r].dwell == .waiting { return true }
    return false
  }

  /// The index of the record for `zone` in records sorted by zone slot, or where it would be
  /// inserted (see `Array.recordIndex(of:)`).
  @inline(__always)
  func recordIndex(of zone: Int32) -> (index: Int, found: Bool) {
    var low = 0
    var high = count
    while high - low > 4 {
      let mid = (low &+ high) >> 1
      if self[mid].zone < zone { low = mid &+ 1 } else { high = mid }
    }
    while low < high, self[low].zone < zone { low &+= 1 }
    return (low, low < count && self[low].zone == zone)
  }
}
