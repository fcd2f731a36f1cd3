import Synchronization

/// The evaluator's zone slots by zone id: an ``IDSlotTable`` filed as zones come and go, or,
/// after a first large load (``ZoneEvaluator/applyInFileOrder(_:slotOrder:prepared:batch:)``),
/// built only when something first looks a zone up by id.
///
/// Evaluating fixes never looks a zone up by id (events take the id from the zone table), so
/// a load that is then only evaluated never needs the table: at a million zones it is 12 MB
/// (with the room a load leaves, ``ZoneEvaluator/loadCapacity(for:)``), about a twentieth of
/// the evaluator, held through the whole evaluation at its peak. The first zone change,
/// explanation or snapshot restore builds it, once (at a million zones the first removal of
/// one zone took 0.16-0.21 s, the next 0.1 ms); a durable store hands the build to a thread
/// of its own right after a load or restore (``build(of:)``), so a daemon's requests do not
/// wait for it.
///
/// Deferred, the table lives in a ``Deferred`` box shared by copies of the evaluator: a lookup
/// (non-mutating) builds it there under a lock, so that copies read on several threads build it
/// once. Every change first takes the table out of the box into the evaluator's own value
/// (``materialize(zones:)``), so a box only ever describes the zone table it was made for.
struct ZoneIDTable: Sendable {
  /// The table, while not deferred.
  private var table = IDSlotTable()
  /// Set while the table is deferred.
  private var deferred: Deferred?

  /// The table of a deferred load, built by the first lookup.
  final class Deferred: Sendable {
    /// The number of zones (every slot of the zone table holds one when deferred).
    let count: Int
    let built = Mutex<IDSlotTable?>(nil)
    /// Whether ``ZoneIDTable/build(of:)`` handed out the build already.
    let buildHandedOut = Atomic<Bool>(false)

    init(count: Int) { self.count = count }
  }

  init() {}

  /// The number of zones filed.
  var count: Int { deferred?.count ?? table.count }

  /// Whether the table waits for its first use (for tests).
  var isDeferred: Bool { deferred != nil }

  /// Whether the table is deferred and built in its box already (for tests).
  var isBuiltInBox: Bool { deferred?.built.withLock { $0 != nil } ?? false }

  /// Leaves the table to be built on first use, for the `count` zones in slots `0..<count`.
  ///
  /// - Precondition: no zone is filed.
  mutating func deferBuilding(count: Int) {
    precondition(table.count == 0 && deferred == nil, "the zone id table is empty when deferred")
    deferred = Deferred(count: count)
  }

  /// The slot of zone `id`, if filed; builds a deferred table first.
  @inline(__always)
  func slot(of id: String, zones: UnsafeBufferPointer<CompiledZone?>) -> Int32? {
    if let deferred {
      return deferred.built.withLock { built in
        if built == nil { built = Self.build(count: deferred.count, zones: zones) }
        return built!.slot(of: id) { ZoneEvaluator.zoneID($0, in: zones) }
      }
    }
    return table.slot(of: id) { ZoneEvaluator.zoneID($0, in: zones) }
  }

  /// The build of a deferred table, to run on another thread, or nil when the table is not
  /// deferred or its build was handed out before.
  ///
  /// The build fills the box copies of the evaluator share, under its lock, as a first lookup
  /// would: a lookup or change meanwhile waits for it, then finds the table built. It holds
  /// `zones` (the zone table the box was made for, shared, not copied) until it returns.
  func build(of zones: [CompiledZone?]) -> (@Sendable () -> Void)? {
    guard let deferred,
      deferred.buildHandedOut.compareExchange(expected: false, desired: true, ordering: .relaxed)
        .exchanged
    else { return nil }
    return {
      zones.withUnsafeBufferPointer { zones in
        deferred.built.withLock { built in
          if built == nil { built = Self.build(count: deferred.count, zones: zones) }
        }
      }
    }
  }

  /// Files zone `id` under `slot` (whose zone must already be in `zones`), or moves it there.
  mutating func set(_ id: String, slot: Int32, zones: UnsafeBufferPointer<CompiledZone?>) {
    materialize(zones: zones)
    table.set(id, slot: slot) { ZoneEvaluator.zoneID($0, in: zones) }
  }

  /// Takes zone `id` out of the table (before its slot is emptied in `zones`).
  mutating func remove(_ id: String, zones: UnsafeBufferPointer<CompiledZone?>) {
    materialize(zones: zones)
    table.remove(id) { ZoneEvaluator.zoneID($0, in: zones) }
  }

  /// Room for `total` zones without growing.
  mutating func reserveCapacity(_ total: Int, zones: UnsafeBufferPointer<CompiledZone?>) {
    materialize(zones: zones)
    table.reserveCapacity(total)
  }

  /// Makes the table this value's own: a deferred one built or taken from the box (which this
  /// value then no longer shares), and its buckets copied if another value shares them (see
  /// ``ZoneEvaluator/SnapshotSource/ownZoneTables()``).
  mutating func ownStorage(zones: UnsafeBufferPointer<CompiledZone?>) {
    materialize(zones: zones)
    table.ownBuckets()
  }

  /// Calls `body` with every slot filed, in no particular order.
  ///
  /// - Precondition: not deferred (``materialize(zones:)`` first).
  func forEachSlot(_ body: (Int32) -> Void) {
    precondition(deferred == nil, "a deferred zone id table is materialized before it is walked")
    table.forEachSlot(body)
  }

  /// The table itself, built if deferred (for tests of the filing order).
  func builtTable(zones: UnsafeBufferPointer<CompiledZone?>) -> IDSlotTable {
    var copy = self
    copy.materialize(zones: zones)
    return copy.table
  }

  /// Makes a deferred table the evaluator's own: the box's, if a lookup built it (moved out
  /// when no copy of the evaluator shares the box), else built now.
  mutating func materialize(zones: UnsafeBufferPointer<CompiledZone?>) {
    guard deferred != nil else { return }
    let shared = !isKnownUniquelyReferenced(&deferred!)
    let box = deferred!
    deferred = nil
    let built = box.built.withLock { built -> IDSlotTable? in
      defer { if !shared { built = nil } }
      return built
    }
    table = built ?? Self.build(count: box.count, zones: zones)
  }

  /// The table of the zones in `zones`, filed in slot order (the order a load in file order
  /// filed them in before it was deferred).
  ///
  /// Every zone in `zones` is filed: a change that put a zone in its slot before filing it
  /// finds it filed already (``set(_:slot:zones:)`` then leaves it), so `count` only sizes it.
  private static func build(count: Int, zones: UnsafeBufferPointer<CompiledZone?>) -> IDSlotTable {
    var table = IDSlotTable()
    // With the tables' room to grow: the first zones added must not rehash a million ids.
    table.reserveCapacity(ZoneEvaluator.loadCapacity(for: count))
    for slot in zones.indices {
      if let id = zones[slot]?.id { table.insert(id, slot: Int32(slot)) }
    }
    return table
  }
}
