import CMemoryHints
import FenceGEOS
import FenceGeometry
import FenceIndex

extension ZoneEvaluator {
  // MARK: - Reading zones

  /// Every zone, sorted by id.
  ///
  /// - Complexity: O(*n* log *n*) for *n* zones (a sort of slot numbers, not of zone values).
  public var zones: [Zone] {
    let order = zoneSlotsInIDOrder()
    var zones: [Zone] = []
    zones.reserveCapacity(order.count)
    for slot in order {
      if let compiled = zoneSlots[Int(slot)] { zones.append(fullZone(compiled, slot: slot)) }
    }
    return zones
  }

  /// A zone as it was added: the stored zone with its fences rebuilt from the element tables.
  func fullZone(_ compiled: CompiledZone, slot: Int32) -> Zone {
    var fences = FenceList()
    fences.reserveCapacity(compiled.slots.fenceCount)
    compiled.slots.forEachFence { fences.append(fence(at: $0)) }
    return Zone(
      id: compiled.id, customData: compiled.customData, fences: fences,
      rules: rules(of: compiled, slot: slot), extras: compiled.extras)
  }

  /// The rules of `compiled`, the zone in `slot`, as added: from its core and its zone table
  /// entry.
  func rules(of compiled: CompiledZone, slot: Int32) -> ZoneRules {
    let core = zoneCores[Int(slot)]
    return ZoneRules(
      minimumRetriggerTime: core.minimumRetriggerTime, dwell: core.dwellRule,
      checkOut: core.checkOut, initialTrigger: core.initialTrigger,
      exitHysteresis: core.exitHysteresis, exitConfirmations: Int(core.exitConfirmations),
      exitOnRemove: compiled.exitOnRemove, extensions: compiled.rulesV2)
  }

  /// The fence in element slot `slot` as it was added (a circle is made again from its centre
  /// and radius: the same value, its derived numbers computed by the same functions).
  func fence(at slot: Int32) -> Fence {
    Fence(id: elementID(at: slot), name: fenceNames[slot], area: fenceArea(at: slot))
  }

  /// The shape of the fence in element slot `slot`.
  func fenceArea(at slot: Int32) -> Area {
    if let polygon = polygonFences.sparseSlot(slot) { return .polygon(polygon.shape) }
    let core = elementCores[Int(slot)]
    guard core.kind == .circle else {
      preconditionFailure("Element slot \(slot) holds no fence (\(core.kind))")
    }
    return .circle(core.circle)
  }

  /// The slots of every loaded zone, sorted by zone id: the order of ``zones``, of snapshots
  /// and of the zone fingerprint.
  ///
  /// Sorts (id, slot) pairs gathered in one pass over the zone table, so that comparisons read
  /// neighbouring memory: sorting slot numbers by looking each zone up in the zone table missed the
  /// processor's caches at every comparison (a million zones: over a second per sort, two
  /// sorts per snapshot of a daemon), and sorting the zone values themselves copied and
  /// retained every zone at each step.
  func zoneSlotsInIDOrder() -> [Int32] {
    var pairs: [(id: String, slot: Int32)] = []
    pairs.reserveCapacity(zoneSlotByID.count)
    zoneSlots.withUnsafeBufferPointer { slots in
      for slot in slots.indices {
        if let id = slots[slot]?.id { pairs.append((id, Int32(slot))) }
      }
    }
    pairs.sort { $0.id < $1.id }
    return pairs.map(\.slot)
  }

  /// The zone with this id, if loaded.
  public func zone(id: String) -> Zone? {
    guard let slot = zoneSlot(id: id), let compiled = zoneSlots[Int(slot)] else { return nil }
    return fullZone(compiled, slot: slot)
  }

  /// The slot of the zone with this id, if loaded.
  @inline(__always)  // out of line, its callers copied the whole evaluator to call it
  func zoneSlot(id: String) -> Int32? {
    zoneSlots.withUnsafeBufferPointer { zoneSlotByID.slot(of: id, zones: $0) }
  }

  /// The slot of the fence or GEOLINE with this id, if loaded.
  func elementSlot(id: String) -> Int32? {
    if let slot = elementSlotByID.slot(of: id, keyOf: { elementID(at: $0) }) { return slot }
    // An id that is its zone's: that zone's element so named (ids are unique, so at most one).
    guard zoneNamedElementCount > 0, let zone = zoneSlot(id: id) else { return nil }
    return zoneSlots.withUnsafeBufferPointer { zones -> Int32? in
      var named: Int32?
      zones[Int(zone)]?.slots.forEach { slot in
        if named == nil, elementCores[Int(slot)].idIsZoneID { named = slot }
      }
      return named
    }
  }

  // The id tables read ids back from the zone and element tables. While a table is changed,
  // they read a second reference to those tables (no copy: nothing writes them meanwhile),
  // since a closure reading the evaluator would overlap the change's access to it.

  /// Files zone `id` under `slot` (whose zone must already be in place), or moves it there.
  mutating func fileZone(id: String, slot: Int32) {
    let slots = zoneSlots
    slots.withUnsafeBufferPointer { zoneSlotByID.set(id, slot: slot, zones: $0) }
  }

  /// The build of the zone id table a large first load or a restore left for its first use
  /// (``ZoneIDTable``), to run on another thread while this evaluator goes on; nil when there
  /// is none to build, or it was handed out before.
  ///
  /// For a daemon: its first zone change or lookup by id would otherwise build the table while
  /// requests wait (0.15-0.25 s at a million zones). A lookup or change while the build runs
  /// waits for it and then uses the table it built.
  package func deferredZoneIDTableBuild() -> (@Sendable () -> Void)? {
    zoneSlotByID.build(of: zoneSlots)
  }

  /// Builds a deferred zone id table now (``ZoneIDTable``), before a change that walks it.
  mutating func materializeZoneIDTable() {
    let slots = zoneSlots
    slots.withUnsafeBufferPointer { zoneSlotByID.materialize(zones: $0) }
  }

  /// Takes zone `id` out of the id table (before its slot is emptied).
  private mutating func unfileZone(id: String) {
    let slots = zoneSlots
    slots.withUnsafeBufferPointer { zoneSlotByID.remove(id, zones: $0) }
  }

  /// Files element `id` under `slot` (whose id must already be in `elementIDs`, or its core
  /// mark it as its zone's).
  mutating func fileElement(id: String, slot: Int32) {
    guard !elementCores[Int(slot)].idIsZoneID else { return }
    let (ids, cores, zones) = (elementIDs, elementCores, zoneSlots)
    elementSlotByID.set(id, slot: slot) { Self.elementID($0, ids: ids, cores: cores, zones: zones) }
  }

  /// Takes element `id` out of the id table when it is filed under `slot` (a replacing zone
  /// may have filed the same id under another slot already).
  private mutating func unfileElement(id: String, slot: Int32) {
    guard !elementCores[Int(slot)].idIsZoneID else { return }
    let (ids, cores, zones) = (elementIDs, elementCores, zoneSlots)
    elementSlotByID.remove(id, ifSlot: slot) {
      Self.elementID($0, ids: ids, cores: cores, zones: zones)
    }
  }

  /// The number of loaded zones.
  public var zoneCount: Int { zoneSlotByID.count }

  /// The number of loaded fences and GEOLINEs.
  public var elementCount: Int { elementSlotByID.count + zoneNamedElementCount }

  /// The number of loaded fences (circles and polygons), without going through the zones.
  public var fenceCount: Int { fenceIndex.count }

  /// The number of loaded GEOLINEs, without going through the zones.
  public var geolineCount: Int { geolineIndex.count }

  // MARK: - Changing zones

  /// Adds one zone, or replaces the zone with the same id (see ``add(_:)-([Zone])``).
  public mutating func add(_ zone: Zone) throws {
    try add([zone])
  }

  /// Adds zones, replacing loaded zones that have the same ids, all or nothing.
  ///
  /// A replaced zone keeps every device's state with it (presence, check-in, MRT window,
  /// pending exit); a not-yet-fired dwell is rescheduled to the new rules' dwell time (or
  /// cancelled when the new rules have none). A zone added under a new id gives each device's
  /// next accepted fix that finds it inside an initial trigger.
  ///
  /// - Throws: ``ZoneError`` naming the first invalid zone (and fence): a duplicate zone id in
  ///   `zones`, a fence or GEOLINE id already used by another zone, a zone with no fences or
  ///   GEOLINEs, an invalid rule, or a shape GEOS cannot prepare. Nothing changes then.
  /// - Complexity: O(*k* log *k*) for *k* new fences and GEOLINEs, plus a bulk rebuild of the
  ///   spatial index, O(*n*) for *n* in all, when *k* is more than an eighth of *n* (about 2 s
  ///   for a million circle zones in a release build).
  /// - Note: The evaluator keeps its own copy of each zone (its fences in its element tables).
  ///   A caller done with its array can hand it over, `try evaluator.add(consume zones)`: each
  ///   zone is then moved out of it rather than copied, its fence array freed as it is applied,
  ///   and the array goes before the index is packed.
  public mutating func add(_ zones: consuming [Zone]) throws {
    try add(zones, fileOrderAllowed: true)
  }

  /// ``add(_:)-([Zone])``, choosing whether a first large load may be applied in file order
  /// (tests compare both ways).
  mutating func add(_ zones: consuming [Zone], fileOrderAllowed: Bool) throws {
    var order: [Int]?
    try add(zones, fileOrderAllowed: fileOrderAllowed, appliedOrder: &order)
  }

  /// ``add(_:fileOrderAllowed:)``; unless `appliedOrder` is nil, leaves there the order the
  /// zones were applied in (indices into `zones`): into an evaluator without zones or free
  /// slots, zone `appliedOrder[k]` lands in slot `k`. (Nil by default: at a million zones the
  /// order is 8 MB, which a load must not keep past the apply, where its peak is.)
  mutating func add(
    _ zones: consuming [Zone], fileOrderAllowed: Bool, appliedOrder: inout [Int]?
  ) throws {
    let prepared = try validate(zones, replacingEverything: false)
    ownZoneTables()
    // Validation's id tables and the curve's keys are freed, and given back, before the tables
    // are reserved: at a million circles the load's peak sits in the apply that follows, with
    // every zone still alive (decision 0012, "Trimmed between the steps").
    releaseFreeMemory(forLoadOf: zones.count)
    let order = Self.spatialOrder(of: zones)
    if appliedOrder != nil { appliedOrder = order }
    releaseFreeMemory(forLoadOf: zones.count)
    let inFileOrder = fileOrderAllowed && canApplyInFileOrder(zones)
    reserveCapacity(adding: zones, idTables: !inFileOrder)
    var batch = RemovalBatch()
    if inFileOrder {
      applyInFileOrder(&zones, slotOrder: order, prepared: prepared, batch: &batch)
    } else {
      applyMoving(&zones, in: order, prepared: prepared, batch: &batch)
    }
    // The zones were moved out (empty zones in their places); the array goes before the index
    // is packed, when a caller handed it over (`add(consume zones)`).
    _ = consume zones
    finish(batch)
    startZoneGeneration()
  }

  /// Replaces every loaded zone by `zones`, all or nothing: zones whose id is not in `zones` are
  /// removed (their device state dropped without events), zones with the same id are replaced
  /// (keeping device state), new ids are added.
  ///
  /// - Throws: ``ZoneError`` as ``add(_:)-([Zone])``; nothing changes then.
  public mutating func replaceAll(with zones: consuming [Zone]) throws {
    let prepared = try validate(zones, replacingEverything: true)
    ownZoneTables()
    releaseFreeMemory(forLoadOf: zones.count)
    var batch = RemovalBatch()
    do {
      // The new ids go (with the stale slots) before the spatial order is made.
      var keep = Set<String>()
      for index in zones.indices { keep.insert(zones[index].id) }
      var stale: [Int32] = []
      materializeZoneIDTable()
      zoneSlotByID.forEachSlot { slot in
        if !keep.contains(zoneID(at: slot)) { stale.append(slot) }
      }
      for slot in stale { removeZone(slot: slot, batch: &batch) }
    }
    let order = Self.spatialOrder(of: zones)
    releaseFreeMemory(forLoadOf: zones.count)
    let inFileOrder = canApplyInFileOrder(zones)
    reserveCapacity(adding: zones, idTables: !inFileOrder)
    // Into an evaluator that never had zones (a store's first zone set), as `add`.
    if inFileOrder {
      applyInFileOrder(&zones, slotOrder: order, prepared: prepared, batch: &batch)
    } else {
      applyMoving(&zones, in: order, prepared: prepared, batch: &batch)
    }
    _ = consume zones
    finish(batch)
    startZoneGeneration()
  }

  /// Asks the allocator to give freed pages back to the system, for a load large enough to
  /// have a spatial order (a trim walks the allocator's free lists: not worth it for a few
  /// zones).
  private func releaseFreeMemory(forLoadOf count: Int) {
    if count >= Self.spatialOrderThreshold { fencekit_release_free_memory() }
  }

  /// Makes each zone and element table this evaluator's own before a zone change, keeping its
  /// capacity (a table already its own is left as it is).
  ///
  /// After a snapshot was taken (a store's copy shares every table), the change's first write
  /// to a table would copy it at exactly its count, losing the room a load leaves
  /// (``loadCapacity(for:)``), and the next zone added would copy it again to grow it.
  mutating func ownZoneTables() {
    zoneSlots.reserveCapacity(zoneSlots.capacity)
    zoneCores.ownRows()
    elementIDs.reserveCapacity(elementIDs.capacity)
    elementCores.reserveCapacity(elementCores.capacity)
    elementRanks.reserveCapacity(elementRanks.capacity)
    polygonFences.reserveCapacity(polygonFences.capacity)
    geolineShapes.reserveCapacity(geolineShapes.capacity)
  }

  /// Grows the tables once for a large load, rather than by doubling during it, and never
  /// below geometric growth (a change of a few thousand zones to a million must not copy the
  /// tables). Without `idTables`, the id tables are left to the caller (a load applied in file
  /// order files the ids after its zones are gone, and reserves them then).
  private mutating func reserveCapacity(adding zones: [Zone], idTables: Bool) {
    guard zones.count >= Self.spatialOrderThreshold else { return }
    // One pass, reading the zones in place: the elements, and which kinds they bring (the
    // kind tables are kept only when they hold or will hold an element of their kind: see
    // `polygonFences`, `geolineShapes`).
    var elementCount = 0
    var addsPolygons = false
    // Elements whose id is not their zone's (GEOLINEs counted as such): they bring the element
    // id table, and only they go into the id table.
    var ownIDCount = 0
    var addsGeolines = false
    zones.withUnsafeBufferPointer { zones in
      for index in zones.indices {
        elementCount += zones[index].fences.count + zones[index].geolines.count
        for fence in zones[index].fences {
          if !fence.area.isCircle { addsPolygons = true }
          if fence.id != zones[index].id { ownIDCount += 1 }
        }
        ownIDCount += zones[index].geolines.count
        if !zones[index].geolines.isEmpty { addsGeolines = true }
      }
    }
    // A first load into empty tables leaves the room a load in file order leaves
    // (``loadCapacity(for:)``): the same buckets for the zone id table either way, and room for
    // the first zones added after. A later large change reserves only what it adds: asking for
    // an eighth more of the whole set each time would copy every table to grow it once the
    // room left was under an eighth (the first `POST` after a load of a million zones took
    // 0.1 s again).
    func room(holding count: Int, adding added: Int) -> Int {
      count == 0 ? Self.loadCapacity(for: added) : count + added
    }
    let zoneRoom = room(holding: zoneSlots.count, adding: zones.count)
    let elementRoom = room(holding: elementCores.count, adding: elementCount)
    if idTables {
      let slots = zoneSlots
      let idRoom = room(holding: zoneSlotByID.count, adding: zones.count)
      slots.withUnsafeBufferPointer {
        zoneSlotByID.reserveCapacity(idRoom, zones: $0)
      }
      if ownIDCount > 0 { elementSlotByID.reserveCapacity(elementSlotByID.count + ownIDCount) }
    }
    zoneSlots.reserveCapacity(growingTo: zoneRoom)
    zoneCores.reserveCapacity(growingTo: zoneRoom)
    if ownIDCount > 0 || !elementIDs.isEmpty {
      elementIDs.reserveCapacity(growingTo: elementRoom)
    }
    elementCores.reserveCapacity(growingTo: elementRoom)
    if !elementRanks.isEmpty { elementRanks.reserveCapacity(growingTo: elementRoom) }
    if addsPolygons || !polygonFences.isEmpty {
      polygonFences.reserveCapacity(growingTo: elementRoom)
    }
    if addsGeolines || !geolineShapes.isEmpty {
      geolineShapes.reserveCapacity(growingTo: elementRoom)
    }
  }

  /// Removes the zone with this id, dropping every device's state with it without an event.
  ///
  /// - Returns: whether a zone had this id.
  @discardableResult
  public mutating func remove(zoneID: String) -> Bool {
    guard let slot = zoneSlot(id: zoneID) else { return false }
    ownZoneTables()
    var batch = RemovalBatch()
    removeZone(slot: slot, batch: &batch)
    finish(batch)
    startZoneGeneration()
    return true
  }

  /// Removes every zone whose id is in `zoneIDs`, in one change: each device's state in them is
  /// dropped without an event, as by ``remove(zoneID:)``. Ids of no loaded zone (and repeats)
  /// are ignored.
  ///
  /// - Returns: how many zones were removed.
  /// - Complexity: one pass over the devices for the whole batch; removing *k* zones one by
  ///   one with ``remove(zoneID:)`` makes *k* passes.
  @discardableResult
  public mutating func remove<IDs: Sequence<String>>(zoneIDs: IDs) -> Int {
    var batch = RemovalBatch()
    for id in zoneIDs {
      if let slot = zoneSlot(id: id) { removeZone(slot: slot, batch: &batch) }
    }
    guard !batch.zones.isEmpty else { return 0 }
    finish(batch)
    startZoneGeneration()
    return batch.zones.count
  }

  // MARK: - Validation

  /// Checks every zone of a load against the spec's rules and the loaded zones.
  ///
  /// - Returns: with the GEOS backend, each zone's prepared polygons by fence index (`nil` for
  ///   circles); with the native backend, nothing (an empty array: no copy of the zones and no
  ///   allocation per zone, which a million-zone load would hold at its peak).
  ///
  /// The load's zone ids go into an ``IDSlotTable`` by index in `zones` (16 MB at a million, a
  /// `Set<String>` took 32), and only its element ids that are not their zone's into the owner
  /// table: one that is is taken when an earlier zone holds it, and that zone's own element so
  /// named is found through the zone ids (a million one-fence zones' owner table took 48 MB,
  /// the load's peak).
  func validate(_ zones: [Zone], replacingEverything: Bool) throws -> [[PreparedShape?]] {
    var zoneIDs = IDSlotTable()
    zoneIDs.reserveCapacity(zones.count)
    // The index in `zones` of the zone that holds each fence or GEOLINE id of the load that is
    // not its zone's id.
    var elementOwner: [String: Int] = [:]
    // A first load into an empty evaluator has no loaded ids to compare with.
    let hasLoadedElements = elementCount > 0
    let preparing = configuration.predicateBackend == .geosPrepared
    var result: [[PreparedShape?]] = []
    if preparing { result.reserveCapacity(zones.count) }
    var context = geosContext
    // Zones are read in place: a loop over the values copies (and retains) every zone, two
    // passes over a million zones.
    try zones.withUnsafeBufferPointer { zones in
      let loadedID: (Int32) -> String = { zones[Int($0)].id }
      for index in zones.indices {
        let id = zones[index].id
        guard !id.isEmpty else { throw ZoneError(zone: id, fault: .emptyZoneID) }
        guard zoneIDs.slot(interning: id, next: Int32(index), keyOf: loadedID) == Int32(index) else {
          throw ZoneError(zone: id, fault: .duplicateZoneID)
        }
      }
      // The zone ids, filed; read-only from here (a `let`, so that the local function below
      // reads it without an exclusivity check per access).
      let zoneIDs = zoneIDs
      // Whether the zone at `index` has an element whose id is its zone's.
      func holdsItsOwnID(_ index: Int) -> Bool {
        let id = zones[index].id
        return zones[index].fences.contains { $0.id == id } || zones[index].geolines.contains { $0.id == id }
      }
      for zoneIndex in zones.indices {
        let checkedZone = zones[zoneIndex].id
        try Self.validateRules(zones[zoneIndex].rules, zone: checkedZone)
        if zones[zoneIndex].rules.roam != nil {
          // A roaming zone's one fence is the circle that moves with its devices.
          guard zones[zoneIndex].fences.isEmpty && zones[zoneIndex].geolines.isEmpty else {
            throw ZoneError(zone: checkedZone, fault: .roamingZoneWithFences)
          }
        } else {
          guard !zones[zoneIndex].fences.isEmpty || !zones[zoneIndex].geolines.isEmpty else {
            throw ZoneError(zone: checkedZone, fault: .noFencesOrGeolines)
          }
        }
        // Whether this zone has claimed its own id (for an element).
        var claimedOwnID = false
        // What it changes comes in as `inout`: a local function's captured `var`s are checked
        // for exclusive access at run time, on every access (about 1 % of a million-circle
        // restart).
        func claim(
          _ id: String, claimedOwnID: inout Bool, elementOwner: inout [String: Int]
        ) throws {
          guard !id.isEmpty else { throw ZoneError(zone: checkedZone, fence: id, fault: .emptyFenceID) }
          // An earlier zone of the load holding it: in the owner table, or the zone of that id
          // holding an element so named (this zone's own id has no earlier holder of that kind).
          var other = elementOwner.valueUnlessEmpty(forKey: id)
          if other == nil, id != checkedZone, let named = zoneIDs.slot(of: id, keyOf: loadedID),
            Int(named) < zoneIndex, holdsItsOwnID(Int(named))
          {
            other = Int(named)
          }
          if other == nil, id == checkedZone, claimedOwnID { other = zoneIndex }
          if let other {
            throw ZoneError(
              zone: checkedZone, fence: id, fault: .duplicateFenceID(otherZone: zones[other].id))
          }
          if id == checkedZone { claimedOwnID = true } else { elementOwner[id] = zoneIndex }
          if hasLoadedElements, let slot = elementSlot(id: id),
            elementCores[Int(slot)].kind != .vacant
          {
            let owner = zoneID(at: elementCores[Int(slot)].zone)
            // Ids of zones this load replaces are free again.
            if !replacingEverything, zoneIDs.slot(of: owner, keyOf: loadedID) == nil {
              throw ZoneError(zone: checkedZone, fence: id, fault: .duplicateFenceID(otherZone: owner))
            }
          }
        }
        for k in zones[zoneIndex].fences.indices {
          try claim(
            zones[zoneIndex].fences[k].id, claimedOwnID: &claimedOwnID, elementOwner: &elementOwner)
        }
        for k in zones[zoneIndex].geolines.indices {
          try claim(
            zones[zoneIndex].geolines[k].id, claimedOwnID: &claimedOwnID,
            elementOwner: &elementOwner)
        }
        if preparing {
          let zone = zones[zoneIndex]
          var prepared: [PreparedShape?] = Array(repeating: nil, count: zone.fences.count)
          for (index, fence) in zone.fences.enumerated() {
            guard case .polygon(let shape) = fence.area else { continue }
            do {
              if context == nil { context = try GEOSContext() }
              if let context { prepared[index] = try PreparedShape(shape, context: context) }
            } catch {
              throw ZoneError(zone: zone.id, fence: fence.id, fault: .unpreparableShape("\(error)"))
            }
          }
          result.append(prepared)
        }
      }
    }
    return result
  }

  /// Checks the rules of the zone `zoneID`.
  static func validateRules(_ rules: ZoneRules, zone zoneID: String) throws {
    // `contains` is false for NaN, and the ranges are finite.
    guard ValidRange.duration.contains(rules.minimumRetriggerTime) else {
      throw ZoneError(zone: zoneID, fault: .invalidMinimumRetriggerTime(rules.minimumRetriggerTime))
    }
    if let dwell = rules.dwell, !ValidRange.duration.contains(dwell) {
      throw ZoneError(zone: zoneID, fault: .invalidDwell(dwell))
    }
    guard ValidRange.distance.contains(rules.exitHysteresis) else {
      throw ZoneError(zone: zoneID, fault: .invalidExitHysteresis(rules.exitHysteresis))
    }
    guard ValidRange.exitConfirmations.contains(rules.exitConfirmations) else {
      throw ZoneError(zone: zoneID, fault: .invalidExitConfirmations(rules.exitConfirmations))
    }
    if let conditions = rules.conditions {
      do throws(ConditionsError) {
        try conditions.validate()
      } catch {
        throw ZoneError(zone: zoneID, fault: .invalidConditions(error))
      }
    }
    if let schedule = rules.schedule {
      do throws(ScheduleError) {
        try schedule.validate()
        _ = try ScheduleClock(schedule)
      } catch {
        throw ZoneError(zone: zoneID, fault: .invalidSchedule(error))
      }
    }
    if let roam = rules.roam {
      guard roam.radius > 0, ValidRange.distance.contains(roam.radius) else {
        throw ZoneError(zone: zoneID, fault: .invalidRoaming("radius must be metres above 0 and at most \(ValidRange.plain(ValidRange.distance.upperBound)), got \(roam.radius)"))
      }
      let selectors = [roam.around] + (roam.targets.map { [$0] } ?? [])
      guard selectors.allSatisfy({ !$0.tags.isEmpty && !$0.tags.contains("") }) else {
        throw ZoneError(zone: zoneID, fault: .invalidRoaming("around and targets need non-empty tags"))
      }
    }
    if let from = rules.validFrom, let until = rules.validUntil, !(from < until) {
      throw ZoneError(zone: zoneID, fault: .invalidLifetime(validFrom: from, validUntil: until))
    }
  }

  // MARK: - Applying (after validation: nothing here can fail)

  /// Slots freed during one change; they are purged from device state, then reused, only when
  /// the change is complete. Also the index inserts and dwell reschedules of the change, done
  /// together at its end.
  struct RemovalBatch {
    var zones: [Int32] = []
    var elements: [Int32] = []
    /// The id of each of `elements`, in the same order (their slots no longer have them).
    var elementIDs: [String] = []
    /// Element slots placed by the change, not yet in their index.
    var placed: [Int32] = []
    /// Polygon fences placed by the change that get their tables before any fix asks
    /// (``Configuration/tablesAheadEdgeCount``), with their edge counts.
    var tablesAhead: [(shape: MultiPolygon, edges: Int)] = []
    /// Replaced zones whose dwell rule may have changed.
    var rescheduled: [Int32] = []
    /// Removed zones whose rules say `exitOnRemove`, with what their check-outs carry.
    var exiting: [Int32: (id: String, customData: JSONObject)] = [:]
    /// Replaced zones whose previous rules said `exitOnRemove`: devices checked in that no new
    /// fence holds check out.
    var replacedExiting: [Int32] = []
    /// Check-outs of the roaming pairs of roaming zones removed (or replaced by a zone that no
    /// longer roams) under `exitOnRemove`, made before their pairs were dropped.
    var roamingClosed: [ZoneEvent] = []
  }

  /// Applies `zones` in `order`, moving each out of the array (an empty zone takes its place)
  /// rather than copying it: a copy retains and later releases every string and array of a
  /// million zones, each a cache miss.
  private mutating func applyMoving(
    _ zones: inout [Zone], in order: [Int], prepared: [[PreparedShape?]],
    batch: inout RemovalBatch
  ) {
    let placeholder = Zone(id: "")
    zones.withUnsafeMutableBufferPointer { zones in
      guard let base = zones.baseAddress else { return }
      for index in order {
        let zone = (base + index).move()
        (base + index).initialize(to: placeholder)
        apply(zone, prepared: prepared.isEmpty ? [] : prepared[index], batch: &batch)
      }
    }
  }

  /// Puts a validated zone in place; `prepared` holds its prepared polygons by fence index
  /// (GEOS backend) or is empty.
  ///
  /// Without `filing` (``applyInFileOrder(_:slotOrder:prepared:batch:)``), the zone is new
  /// (its id is not looked up) and neither it nor its elements go into the id tables or the
  /// batch's placed elements: the caller does that.
  mutating func apply(
    _ zone: consuming Zone, prepared: [PreparedShape?], batch: inout RemovalBatch,
    filing: Bool = true
  ) {
    if geosContext == nil, let context = prepared.lazy.compactMap({ $0?.context }).first {
      geosContext = context
    }
    let zoneSlot: Int32
    var addedSequence: UInt64
    // Element slots of the replaced zone by id (empty for a new zone).
    var reusable: [String: Int32] = [:]
    // The zone's slot: the loaded zone's with this id, or a new one (filed in the id table
    // once the zone is in place, since the table reads ids from the zone table).
    let mapped = filing ? self.zoneSlot(id: zone.id) : nil
    if let existing = mapped, let old = zoneSlots[Int(existing)] {
      zoneSlot = existing
      addedSequence = zoneCores[Int(existing)].addedSequence
      old.slots.forEach { slot in
        if elementCores[Int(slot)].kind != .vacant { reusable[elementID(at: slot)] = slot }
      }
    } else {
      zoneSlot = freeZoneSlots.popLast() ?? Int32(zoneSlots.count)
      if Int(zoneSlot) == zoneSlots.count {
        zoneSlots.append(nil)
        zoneCores.append(ZoneCore())
      }
      addSequence += 1
      addedSequence = addSequence
    }
    // Fence ranks: the position of each fence among the zone's fences sorted by id (a zone of
    // one fence, the common case, needs no sort).
    var rank: [Int32] = []
    if zone.fences.count > 1 {
      let order = zone.fences.indices.sorted { zone.fences[$0].id < zone.fences[$1].id }
      rank = Array(repeating: Int32(0), count: zone.fences.count)
      for (position, index) in order.enumerated() { rank[index] = Int32(position) }
    }

    var slots: [Int32] = []
    slots.reserveCapacity(zone.fences.count + zone.geolines.count)
    let nativePolygonTest = prepared.isEmpty
    for (index, fence) in zone.fences.enumerated() {
      let core = ElementCore(
        fence: fence.area, zone: zoneSlot, nativePolygonTest: nativePolygonTest)
      var polygon: PolygonFence?
      if case .polygon(let shape) = fence.area {
        polygon = PolygonFence(shape: shape, prepared: prepared.isEmpty ? nil : prepared[index])
        noteTablesAhead(shape, batch: &batch)
      }
      slots.append(
        place(
          id: fence.id, of: zone.id, core: core, rank: rank.isEmpty ? 0 : rank[index],
          polygon: polygon, geoline: nil, name: fence.name,
          reusing: reusable.removeValueUnlessEmpty(forKey: fence.id), filing: filing,
          batch: &batch))
    }
    for geoline in zone.geolines {
      slots.append(
        place(
          id: geoline.id, of: zone.id, core: ElementCore(geolineOf: zoneSlot),
          polygon: nil,
          geoline: GeolineShape(geoline), name: nil,
          reusing: reusable.removeValueUnlessEmpty(forKey: geoline.id), filing: filing,
          batch: &batch))
    }
    for (_, slot) in reusable { removeElement(slot: slot, batch: &batch) }
    // What is needed of the replaced zone, read in place (a copy of it retained its arrays).
    let (replaces, previousExitOnRemove) = zoneSlots.withUnsafeBufferPointer {
      ($0[Int(zoneSlot)] != nil, $0[Int(zoneSlot)]?.exitOnRemove ?? false)
    }
    let previousCore = zoneCores[Int(zoneSlot)]
    let previousDwell = replaces ? previousCore.dwellRule : nil
    // The zone is stored last of its uses: it moves into the table, without its fences (the
    // element tables hold them; a handed-over array's fences are freed here, zone by zone).
    let rules = zone.rules
    let id = zone.id
    let fenceCount = zone.fences.count
    zone.fences = []
    zoneSlots[Int(zoneSlot)] = CompiledZone(zone, slots: ElementSlots(slots, fences: fenceCount))
    if replaces, previousExitOnRemove, rules.roam == nil, roaming.zones[zoneSlot] != nil,
      let now = time
    {
      // A roaming zone replaced by one that no longer roams: its pairs go (`followRoaming`).
      batch.roamingClosed += closeRoamingStays(
        in: [zoneSlot: .some(.zoneRemoved)], expiring: [zoneSlot], at: now)
    }
    let wasConditioned = zoneCores[Int(zoneSlot)].gate.contains(.conditioned) && replaces
    zoneCores[Int(zoneSlot)] = ZoneCore(rules, addedSequence: addedSequence)
    if filing, mapped != zoneSlot { fileZone(id: id, slot: zoneSlot) }
    applyRulesV2(
      rules, zone: zoneSlot, replaces: replaces, wasConditioned: wasConditioned)
    if replaces, previousExitOnRemove { batch.replacedExiting.append(zoneSlot) }
    // Only a replaced zone can have device state (a new slot's old state was purged).
    if replaces, previousDwell != nil || rules.dwell != nil {
      batch.rescheduled.append(zoneSlot)
    }
  }

  /// Puts an element into a slot (the slot of the same id when the zone is replaced); it enters
  /// its index when the change finishes. Without `filing`, it is neither filed in the id table
  /// nor noted as placed.
  private mutating func place(
    id: String, of zoneID: String, core: ElementCore, rank: Int32 = 0, polygon: PolygonFence?,
    geoline: GeolineShape?, name: String?, reusing slot: Int32?, filing: Bool,
    batch: inout RemovalBatch
  ) -> Int32 {
    let target: Int32
    if let slot {
      target = slot
      removeFromIndex(slot: slot)
    } else {
      target = freeElementSlots.popLast() ?? Int32(elementCores.count)
      if Int(target) == elementCores.count {
        if !elementIDs.isEmpty { elementIDs.append("") }
        if !elementRanks.isEmpty { elementRanks.append(0) }
        elementCores.append(ElementCore())
        if !polygonFences.isEmpty { polygonFences.append(nil) }
        if !geolineShapes.isEmpty { geolineShapes.append(nil) }
      }
    }
    var core = core
    core.idIsZoneID = id == zoneID
    // The first id of its own brings the table (into the room a large load reserved).
    elementIDs.setSparseSlot(
      target, to: core.idIsZoneID ? "" : id, blank: "", slotCount: elementCores.count)
    if core.idIsZoneID != elementCores[Int(target)].idIsZoneID {
      zoneNamedElementCount += core.idIsZoneID ? 1 : -1
    }
    elementCores[Int(target)] = core
    elementRanks.setSparseSlot(target, to: rank, blank: 0, slotCount: elementCores.count)
    polygonFences.setSparseSlot(target, to: polygon, slotCount: elementCores.count)
    geolineShapes.setSparseSlot(target, to: geoline, slotCount: elementCores.count)
    if name != nil || !fenceNames.isEmpty { fenceNames[target] = name }
    if filing {
      fileElement(id: id, slot: target)
      batch.placed.append(target)
    }
    return target
  }

  /// The bounding box of the live element in `slot`: a GEOLINE's from its public value in its
  /// zone (at its position among the zone's slots), a fence's from its shape; read when the
  /// element is indexed, never per fix.
  func elementBox(_ slot: Int32) -> BoundingBox {
    let (kind, zone) = elementCores.withUnsafeBufferPointer {
      ($0[Int(slot)].kind, Int($0[Int(slot)].zone))
    }
    // Read in place: binding the zone copied the whole value (and retained its arrays) once
    // per element, a sixth of a million-circle load's indexing.
    let box = zoneSlots.withUnsafeBufferPointer { slots -> BoundingBox? in
      switch kind {
      case .vacant: return nil
      case .geoline:
        // Its position among the zone's GEOLINEs, which follow its fences in its slots.
        guard let compiled = slots[zone] else { return nil }
        var position = 0
        var member = -1
        compiled.slots.forEach { other in
          if other == slot { member = position - compiled.slots.fenceCount }
          position += 1
        }
        return member >= 0 ? compiled.geolines[member].line.boundingBox : nil
      case .polygon: return slots[zone] == nil ? nil : polygonFences.sparseSlot(slot)?.shape.boundingBox
      case .circle:
        return slots[zone] == nil
          ? nil
          : Circle.boundingBox(
            center: elementCores[Int(slot)].degreeTest.center,
            radius: elementCores[Int(slot)].radius)
      }
    }
    guard let box else { preconditionFailure("No live element in slot \(slot)") }
    return box
  }

  /// Puts the elements placed by a change into their indexes: one by one for a few added to a
  /// loaded index, else (and always into an empty one) by packing each index again from every
  /// live element (O(*n*), no per-item insert).
  private mutating func index(placed: [Int32]) {
    guard !placed.isEmpty else { return }
    var fences = 0
    for slot in placed where elementCores[Int(slot)].kind != .geoline { fences += 1 }
    let geolines = placed.count - fences
    if fences > 0 {
      if fences > Self.bulkThreshold(fenceIndex.count) {
        fenceIndex = packedIndex(of: { $0 != .geoline && $0 != .vacant })
        // The packing's scratch tables (items, keys, sorted copies) are freed; those under
        // glibc's mmap threshold (up to 32 MB) would otherwise stay resident.
        fencekit_release_free_memory()
      } else {
        for slot in placed {
          let kind = elementCores[Int(slot)].kind
          guard kind == .circle || kind == .polygon else { continue }
          fenceIndex.insert(id: slot, box: elementBox(slot))
        }
        if fences >= Self.tailPackingThreshold { fenceIndex.packTail() }
      }
    }
    if geolines > 0 {
      if geolines > Self.bulkThreshold(geolineIndex.count) {
        geolineIndex = packedIndex(of: { $0 == .geoline })
      } else {
        for slot in placed where elementCores[Int(slot)].kind == .geoline {
          geolineIndex.insert(id: slot, box: elementBox(slot))
        }
        if geolines >= Self.tailPackingThreshold { geolineIndex.packTail() }
      }
    }
  }

  /// From this many items inserted by one change, the index's unsorted tail is packed at once
  /// rather than scanned by every search until later inserts fill it: the packing costs O(*d*)
  /// for a delta of *d* items, once per change of at least a quarter of the tail's capacity,
  /// which is no more than the inserts filling the tail would cost.
  static let tailPackingThreshold = 32

  /// Above this many new items, an index of `count` items is packed again rather than grown.
  /// An empty index is always packed: a first load of a few hundred fences would otherwise
  /// sit in the unsorted tail, scanned box by box on every search.
  private static func bulkThreshold(_ count: Int) -> Int { count == 0 ? 0 : max(256, count / 8) }

  /// An index packed from every live element of the kinds `isIncluded` accepts, by slot, their
  /// boxes made as the packing asks for them (an array of the items first took 40 bytes an
  /// element: a million circles' 40 MB at the index build's peak).
  private func packedIndex(of isIncluded: (ElementCore.Kind) -> Bool) -> RTree {
    var expected = 0
    for core in elementCores where isIncluded(core.kind) { expected += 1 }
    return RTree(count: elementCores.count, expected: expected) { slot in
      isIncluded(elementCores[slot].kind) ? (Int32(slot), elementBox(Int32(slot))) : nil
    }
  }


  private mutating func removeFromIndex(slot: Int32) {
    switch elementCores[Int(slot)].kind {
    case .circle, .polygon: fenceIndex.remove(id: slot)
    case .geoline: geolineIndex.remove(id: slot)
    case .vacant: break
    }
  }

  private mutating func removeElement(slot: Int32, batch: inout RemovalBatch) {
    guard elementCores[Int(slot)].kind != .vacant else { return }
    removeFromIndex(slot: slot)
    let id = elementID(at: slot)
    unfileElement(id: id, slot: slot)
    if elementCores[Int(slot)].idIsZoneID { zoneNamedElementCount -= 1 }
    elementIDs.setSparseSlot(slot, to: "", blank: "", slotCount: elementCores.count)
    elementCores[Int(slot)] = ElementCore()
    elementRanks.setSparseSlot(slot, to: 0, blank: 0, slotCount: elementCores.count)
    polygonFences.setSparseSlot(slot, to: nil, slotCount: elementCores.count)
    geolineShapes.setSparseSlot(slot, to: nil, slotCount: elementCores.count)
    if !fenceNames.isEmpty { fenceNames[slot] = nil }
    batch.elements.append(slot)
    batch.elementIDs.append(id)
  }

  mutating func removeZone(slot: Int32, batch: inout RemovalBatch) {
    guard let zone = zoneSlots[Int(slot)] else { return }
    if zone.exitOnRemove {
      batch.exiting[slot] = (zone.id, zone.customData)
      if roaming.zones[slot] != nil, let now = time {
        // Its pairs are dropped with its rules: checked out first.
        batch.roamingClosed += closeRoamingStays(
          in: [slot: .some(.zoneRemoved)], expiring: [slot], at: now)
      }
    }
    forgetRulesV2(zone: slot)
    zone.slots.forEach { removeElement(slot: $0, batch: &batch) }
    unfileZone(id: zone.id)
    zoneSlots[Int(slot)] = nil
    batch.zones.append(slot)
  }

  /// Indexes the placed elements, reschedules dwells of replaced zones, drops the device state
  /// of removed zones and elements, then frees their slots.
  mutating func finish(_ batch: RemovalBatch) {
    index(placed: batch.placed)
    buildTablesAhead(batch.tablesAhead)
    // Removed element slots, marked once for the check-in fences and the monitored sets.
    let removedElement = SlotMarks(batch.elements, slotCount: elementCores.count)
    if !batch.elements.isEmpty {
      detachCheckInFences(removedBy: batch, removedElement: removedElement)
    }
    if !batch.rescheduled.isEmpty { rescheduleDwells(zones: batch.rescheduled) }
    if !batch.exiting.isEmpty || !batch.replacedExiting.isEmpty || !batch.roamingClosed.isEmpty {
      checkOutOnRemoval(batch)
    }
    defer { forgetStaleCheckInFences() }
    guard !batch.zones.isEmpty || !batch.elements.isEmpty else { return }
    let removedZone = SlotMarks(batch.zones, slotCount: zoneSlots.count)
    if !batch.zones.isEmpty {
      modifyEveryDevicesRecords { _, _, records in records.removeAll { removedZone.contains($0.zone) } }
      pendingExits.removeAll { _, zone in removedZone.contains(zone) }
    }
    if !batch.elements.isEmpty {
      for device in monitoredSets.indices {
        monitoredSets[device].removeAll { removedElement.contains($0) }
      }
    }
    freeZoneSlots.append(contentsOf: batch.zones)
    freeElementSlots.append(contentsOf: batch.elements)
  }

  /// Keeps aside the ids of the removed fences that records name as their check-in fence (see
  /// ``ZoneRecord/checkInFenceSlot``), before anything reads them (check-outs on removal);
  /// `removedElement` marks the batch's element slots.
  private mutating func detachCheckInFences(
    removedBy batch: RemovalBatch, removedElement: SlotMarks
  ) {
    let removedID = Dictionary(zip(batch.elements, batch.elementIDs)) { _, last in last }
    modifyEveryDevicesRecords { evaluator, d, records in
      for r in records.indices {
        let slot = records[r].checkInFenceSlot
        guard slot >= 0, removedElement.contains(slot), let id = removedID[slot] else { continue }
        evaluator.detachedCheckInFences[device: d, zone: records[r].zone] = id
        records[r].checkInFenceSlot = ZoneRecord.detachedFence
      }
    }
  }

  /// Drops the kept check-in fence ids whose record is gone or was checked in again since.
  private mutating func forgetStaleCheckInFences() {
    guard !detachedCheckInFences.isEmpty else { return }
    // The table is moved out while it is filtered, so that the filter may read the evaluator.
    var detached = DetachedCheckInFences()
    swap(&detached, &detachedCheckInFences)
    detached.removeAll { d, zone in
      guard d < devices.count else { return true }
      return withRecords(ofDevice: d) { records in
        let (r, found) = records.recordIndex(of: zone)
        return !found || records[r].checkInFenceSlot != ZoneRecord.detachedFence
      }
    }
    swap(&detached, &detachedCheckInFences)
  }

  /// Applies replaced zones' dwell times to stays whose dwell has not fired yet, in one pass over
  /// the devices.
  private mutating func rescheduleDwells(zones: [Int32]) {
    var isRescheduled = Array(repeating: false, count: zoneSlots.count)
    for zone in zones { isRescheduled[Int(zone)] = true }
    modifyEveryDevicesRecords { evaluator, device, records in
      for index in records.indices where isRescheduled[Int(records[index].zone)] {
        evaluator.rescheduleDwell(device: device, record: &records[index])
      }
    }
  }

  /// Applies the zone's dwell time to one record's stay, if its dwell has not fired yet.
  private mutating func rescheduleDwell(device: Int, record: inout ZoneRecord) {
    guard record.presence == .checkedIn, record.dwell != .fired else { return }
    let core = zoneCores[Int(record.zone)]
    guard zoneSlots[Int(record.zone)] != nil, core.hasDwell else {
      record.dwell = .none
      return
    }
    let deadline = record.checkInTime.adding(seconds: core.dwell)
    if record.dwell == .scheduled, deadline == record.dwellDeadline { return }
    record.dwell = .scheduled
    record.dwellDeadline = deadline
    dwellQueue.push(
      DwellEntry(deadline: deadline, device: Int32(device), zone: record.zone, stay: record.stay))
  }

  // MARK: - Lookups

  func zoneID(at slot: Int32) -> String {
    zoneSlots.withUnsafeBufferPointer { Self.zoneID(slot, in: $0) }
  }

  /// The id of the zone in `slot` of a zone table read in place ("" for a free slot).
  @inline(__always)
  static func zoneID(_ slot: Int32, in slots: UnsafeBufferPointer<CompiledZone?>) -> String {
    slots[Int(slot)]?.id ?? ""
  }

  /// Whether `zoneID(a, in: slots) < zoneID(b, in: slots)` ("" for a free slot), with the ids
  /// compared where they lie in the table: the sorts of a fix's gathered zones call it.
  ///
  /// ``zoneID(_:in:)`` copies each id out of the table (a retain and a release each), and the
  /// sort of the constant-density cold tracks' check-outs and check-ins spent about half its
  /// instructions on those (2.4 % of the evaluation; `count-instructions`). Unwrapping a
  /// slot in place after testing it for `nil` borrows its id instead.
  @inline(__always)
  static func zoneIDPrecedes(
    _ a: Int32, _ b: Int32, in slots: UnsafeBufferPointer<CompiledZone?>
  ) -> Bool {
    let (a, b) = (Int(a), Int(b))
    if slots[b] == nil { return false }
    if slots[a] == nil { return !slots[b]!.id.isEmpty }
    return slots[a]!.id < slots[b]!.id
  }

  /// The id of the fence or GEOLINE in `slot` ("" for a free slot).
  ///
  /// Always inlined: called out of line from the mutating per-fix steps (each check-in and
  /// check-out), it made the compiler copy the whole evaluator (2,385 bytes) onto the stack
  /// first; a cold million circles spent a third of its evaluation in that copy.
  @inline(__always)
  func elementID(at slot: Int32) -> String {
    Self.elementID(slot, ids: elementIDs, cores: elementCores, zones: zoneSlots)
  }

  /// ``elementID(at:)`` on the given tables, for the id table's closures while a table changes.
  @inline(__always)
  static func elementID(
    _ slot: Int32, ids: [String], cores: [ElementCore], zones: [CompiledZone?]
  ) -> String {
    let core = cores[Int(slot)]
    if core.idIsZoneID { return zones.withUnsafeBufferPointer { zoneID(core.zone, in: $0) } }
    return ids.sparseSlot(slot, blank: "")
  }
}

extension Area {
  /// The circle, when the area is one.
  fileprivate var circleValue: Circle? {
    if case .circle(let circle) = self { return circle }
    return nil
  }

  fileprivate var isCircle: Bool { circleValue != nil }
}
