import CMemoryHints
import FenceGEOS

/// A first large load applied in the order of the array it came in, then put in spatial order
/// (Docs/Decisions/0012).
///
/// Zones are applied one by one, each moved out of the caller's array and its fence array
/// freed as it is applied. In spatial order those frees land all over the heap the parser
/// filled in file order, so almost no page comes free before the end: a million circles held
/// about 160 MB of freed fence arrays beside the growing tables at the load's peak. In the
/// array's own order (the order the parser allocated them in) the frees empty whole pages one
/// after another, and the allocator is asked every ``releaseInterval`` zones to give them back.
///
/// The tables are then permuted into the slots that applying in spatial order gives
/// (slot numbers near in space are near in memory: cold evaluation at a million circles was
/// about a tenth slower without), the addition sequence numbers set as that order gives them,
/// and the id tables filed in that order. So the evaluator's state is exactly the one applying
/// in spatial order gives.
extension ZoneEvaluator {
  /// Zones applied between two requests to give freed pages back.
  static let releaseInterval = 1 << 14

  /// The capacity a large load gives each zone and element table it fills with `count` rows:
  /// room for an eighth more, so that the first zones a daemon adds after a load or a restore
  /// do not copy every table to grow it (0.1 s at a million zones, while requests waited). The
  /// room is never written: a table large enough to get pages of its own from the allocator
  /// (about 32 MB and up) costs no memory for it until zones fill it.
  static func loadCapacity(for count: Int) -> Int { count + count / 8 }

  /// Whether `zones` may be applied in their own order: a load of many zones into an evaluator
  /// without zones or free slots (so every zone is new and slots are handed out in sequence),
  /// none with rules v2 (their tables are keyed by zone slot, which the permutation would have
  /// to follow).
  func canApplyInFileOrder(_ zones: [Zone]) -> Bool {
    guard zones.count >= Self.spatialOrderThreshold, zoneSlots.isEmpty, elementCores.isEmpty
    else { return false }
    return zones.withUnsafeBufferPointer { zones in
      zones.allSatisfy { zone in
        let rules = zone.rules
        return rules.conditions == nil && rules.schedule == nil && !rules.hasLifetime
          && rules.roam == nil
      }
    }
  }

  /// Applies `zones` from the last to the first, taking each out of the array and giving back
  /// the array's pages behind it as it goes, then moves each zone and element to the slot that
  /// applying them in `order` (their spatial order) gives, and files the elements in their id
  /// table in that order (reserving it only then); the zone id table is left to be built on
  /// first use (``ZoneIDTable``).
  ///
  /// From the end rather than the front: a taken zone leaves capacity behind the array's last
  /// element, whose pages go back to the system (``Array/releaseCapacityPages()``); taken from
  /// the front, the array held a placeholder in every place until it was freed whole (48 bytes
  /// a zone). The parser allocated the zones' parts in file order, so their frees still empty
  /// whole pages one after another.
  ///
  /// - Precondition: ``canApplyInFileOrder(_:)``.
  mutating func applyInFileOrder(
    _ zones: inout [Zone], slotOrder order: [Int], prepared: [[PreparedShape?]],
    batch: inout RemovalBatch
  ) {
    let count = zones.count
    let firstSequence = addSequence
    // Zone `index` goes to slot `count - 1 - index` (the last is applied first), its elements
    // from `firstElement[index]`, after those of the zones applied before it.
    var firstElement = [Int32](repeating: 0, count: count)
    var elementCount: Int32 = 0
    var applied = 0
    while let zone = zones.popLast() {
      let index = zones.count
      firstElement[index] = elementCount
      elementCount += Int32(zone.fences.count + zone.geolines.count)
      apply(zone, prepared: prepared.isEmpty ? [] : prepared[index], batch: &batch, filing: false)
      applied += 1
      if applied % Self.releaseInterval == 0 {
        zones.releaseCapacityPages()
        fencekit_release_free_memory()
      }
    }
    zones = []
    fencekit_release_free_memory()

    // In spatial order, zone `order[rank]` goes to slot `rank`, its elements after those of the
    // zones before it in that order: `zoneSource[rank]` is the slot it was applied to, and
    // `zoneRank` the new slot of each applied one.
    var zoneSource = [Int](repeating: 0, count: count)
    var zoneRank = [Int32](repeating: 0, count: count)
    var elementSource = [Int](repeating: 0, count: Int(elementCount))
    var next = 0
    for (rank, index) in order.enumerated() {
      zoneSource[rank] = count - 1 - index
      zoneRank[count - 1 - index] = Int32(rank)
      // The zone applied next (the one before it in the array) starts where its elements end.
      let end = index > 0 ? firstElement[index - 1] : elementCount
      for slot in firstElement[index]..<end {
        elementSource[next] = Int(slot)
        next += 1
      }
    }
    firstElement = []

    // Each permutation's old table is given back before the next one's new table is made: the
    // allocator kept a 32 MB table freed below its mmap threshold, and the next new table
    // landed beside it (a million circles: 2 MB higher at the load's peak).
    Self.permute(&zoneSlots, takingFrom: zoneSource, leaving: nil)
    fencekit_release_free_memory()
    zoneCores.permute(takingFrom: zoneSource)
    fencekit_release_free_memory()
    zoneSource = []
    if !elementIDs.isEmpty { Self.permute(&elementIDs, takingFrom: elementSource, leaving: "") }
    Self.permute(&elementCores, takingFrom: elementSource, leaving: ElementCore())
    if !elementRanks.isEmpty { Self.permute(&elementRanks, takingFrom: elementSource, leaving: 0) }
    if !polygonFences.isEmpty {
      Self.permute(&polygonFences, takingFrom: elementSource, leaving: nil)
    }
    if !geolineShapes.isEmpty {
      Self.permute(&geolineShapes, takingFrom: elementSource, leaving: nil)
    }
    if !fenceNames.isEmpty {
      var newSlot = [Int32](repeating: 0, count: elementSource.count)
      for (slot, source) in elementSource.enumerated() { newSlot[source] = Int32(slot) }
      fenceNames = Dictionary(
        uniqueKeysWithValues: fenceNames.map { (newSlot[Int($0.key)], $0.value) })
    }

    // References between the tables, and the sequence numbers, as the spatial order gives them;
    // then the id tables (and the placed elements) in that order.
    elementCores.withUnsafeMutableBufferPointer { cores in
      for slot in cores.indices where cores[slot].zone >= 0 {
        cores[slot].zone = zoneRank[Int(cores[slot].zone)]
      }
    }
    var ownIDCount = 0
    for slot in elementCores.indices where !elementCores[slot].idIsZoneID { ownIDCount += 1 }
    if ownIDCount > 0 { elementSlotByID.reserveCapacity(ownIDCount) }
    batch.placed.reserveCapacity(batch.placed.count + elementSource.count)
    var nextElement: Int32 = 0
    var placedZones = 0
    for zone in 0..<count {
      // In place: a copy of the entry would retain its strings and arrays.
      let slots = zoneSlots.withUnsafeMutableBufferPointer { table -> ElementSlots? in
        guard let old = table[zone]?.slots else { return nil }
        let slots = ElementSlots(first: nextElement, count: old.count, fences: old.fenceCount)
        table[zone]!.slots = slots
        return slots
      }
      guard let slots else { continue }
      placedZones += 1
      zoneCores[zone].addedSequence = firstSequence + UInt64(zone) + 1
      slots.forEach { slot in
        fileElement(id: elementID(at: slot), slot: slot)
        batch.placed.append(slot)
      }
      nextElement += Int32(slots.count)
    }
    // The zone id table is built when first used (``ZoneIDTable``): evaluating never needs it.
    zoneSlotByID.deferBuilding(count: placedZones)
    precondition(addSequence == firstSequence + UInt64(count), "one sequence number per zone")
  }

  /// Reorders `table` so that its value at `i` is the one that was at `source[i]` (`source` a
  /// permutation of its indices): each value is moved (not copied: nothing retained) into a new
  /// table read in order of `source`, `placeholder` left in its old place. The new table has
  /// ``loadCapacity(for:)``.
  ///
  /// A new table rather than swaps along the permutation's cycles: there each step waited for
  /// the one before (0.84 s for a million zones' tables against about 0.1 s here); the new
  /// table costs one table's size for a moment, below the load's peak.
  static func permute<Value>(
    _ table: inout [Value], takingFrom source: [Int], leaving placeholder: Value
  ) {
    precondition(table.count == source.count, "one source per value")
    let count = table.count
    guard count > 0 else { return }
    let permuted = table.withUnsafeMutableBufferPointer { old in
      [Value](unsafeUninitializedCapacity: loadCapacity(for: count)) { new, initialized in
        for slot in 0..<count {
          let from = old.baseAddress! + source[slot]
          (new.baseAddress! + slot).initialize(to: from.move())
          from.initialize(to: placeholder)
        }
        initialized = count
      }
    }
    table = permuted
  }
}
