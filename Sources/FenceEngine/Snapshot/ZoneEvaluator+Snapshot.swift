import FenceGeometry

extension ZoneEvaluator {
  /// The per-device state of this evaluator, with zones and fences named by id (see
  /// ``EvaluatorSnapshot``).
  ///
  /// - Complexity: O(*d* + *r*) for *d* devices with *r* zone records in all, plus one pass over
  ///   the zones' vertices for the fingerprint.
  public func snapshot() -> EvaluatorSnapshot {
    snapshot(includingDevice: { _ in true })
  }

  /// The state of the devices whose names pass `isIncluded`, with the engine's time and
  /// counters (for moving one partition of devices to another evaluator), and the waiting
  /// events of zone changes that are theirs.
  ///
  /// Device handles are not kept in a partial snapshot: the devices are in handle order, but
  /// without the others.
  public func snapshot(includingDevice isIncluded: (String) -> Bool) -> EvaluatorSnapshot {
    // One sort of the slots by zone id serves the sequences and the fingerprint.
    let order = zoneSlotsInIDOrder()
    return snapshot(
      zonesInIDOrder: order, fingerprint: zoneFingerprint(slotsInIDOrder: order),
      includingDevice: isIncluded)
  }

  /// What a snapshot needs of the zones besides their add sequences: the zone slots in id
  /// order and the ``zoneFingerprint``, as of one value of `zoneGeneration`. Both take a pass
  /// over every zone (a sort of their ids, and their vertices); with a million zones they were
  /// about 0.6 s of each of a store's snapshots, zone changes or not. After a zone change the
  /// order is brought up to date from the last one (``zoneSlotsInIDOrder(updating:)``), not
  /// sorted again.
  package struct SnapshotZoneOrder: Sendable {
    let generation: UInt64
    let slots: [Int32]
    let fingerprint: UInt64
  }

  /// An evaluator loaded with `zones` as ``init(configuration:zones:)`` loads them, and its
  /// zone slots in id order: without a sort when `zones` come in ascending id order (a
  /// snapshot's zone set), from the order they were applied in, checked and, were it ever
  /// wrong, put right by ``zoneSlotsInIDOrder(updating:)`` in one pass; sorted otherwise.
  package static func loaded(
    configuration: Configuration, zones: consuming [Zone]
  ) throws -> (evaluator: ZoneEvaluator, slotsInIDOrder: [Int32]) {
    let ascending = zones.withUnsafeBufferPointer { zones in
      zones.indices.dropFirst().allSatisfy { zones[$0 - 1].id < zones[$0].id }
    }
    var evaluator = ZoneEvaluator(configuration: configuration)
    var applied: [Int]? = ascending ? [] : nil
    try evaluator.add(consume zones, fileOrderAllowed: true, appliedOrder: &applied)
    guard let applied else { return (evaluator, evaluator.zoneSlotsInIDOrder()) }
    // Zone `applied[slot]` of the ascending ids went to `slot`.
    var candidate = [Int32](repeating: -1, count: applied.count)
    for (slot, index) in applied.enumerated() { candidate[index] = Int32(slot) }
    return (evaluator, evaluator.zoneSlotsInIDOrder(updating: candidate).slots)
  }

  /// ``snapshot()``, taking the zones' order and fingerprint from `order` when no zone changed
  /// since it was made, and leaving there the ones it used: the same snapshot, without the
  /// pass over every zone while the zones stay as they are.
  ///
  /// `order` belongs to this evaluator: keep it beside the evaluator it came from, and drop it
  /// when that evaluator is replaced (zone changes are counted, and a copy that went its own
  /// way could count the same).
  ///
  /// After a zone change the fingerprint is made again, and the order is brought up to date
  /// from the one in `order` (``zoneSlotsInIDOrder(updating:)``) rather than sorted again.
  package func snapshot(reusing order: inout SnapshotZoneOrder?) -> EvaluatorSnapshot {
    let current: SnapshotZoneOrder
    if let order, order.generation == zoneGeneration {
      current = order
    } else {
      let slots = order.map { zoneSlotsInIDOrder(updating: $0.slots).slots } ?? zoneSlotsInIDOrder()
      current = SnapshotZoneOrder(
        generation: zoneGeneration, slots: slots,
        fingerprint: zoneFingerprint(slotsInIDOrder: slots))
      order = current
    }
    return snapshot(
      zonesInIDOrder: current.slots, fingerprint: current.fingerprint,
      includingDevice: { _ in true })
  }

  /// The zone slots in id order, made from `previous`, the slots of an earlier zone set in its
  /// id order: the slots that still hold a zone in the same place among their neighbours, in
  /// that order, with every other zone's slot (new, or a freed slot refilled by another id)
  /// merged in.
  ///
  /// Correct whatever `previous` holds: a slot is kept only when its id rises above the last
  /// kept one's (and stays below the next listed one's, so that one refilled slot does not
  /// drop the slots after it), and every zone not kept is sorted and merged, so the result is
  /// every zone's slot once, in strictly rising id order. After a few changes of a million
  /// zones this is a pass over the zones, where sorting a million ids took about 0.3 s of each
  /// of a store's snapshots.
  ///
  /// - Returns: the slots, and how many of them were sorted (*k*, not kept).
  /// - Complexity: O(*n* + *k* log *k*) for *n* zones of which *k* are not kept.
  func zoneSlotsInIDOrder(updating previous: [Int32]) -> (slots: [Int32], sorted: Int) {
    zoneSlots.withUnsafeBufferPointer { zones -> (slots: [Int32], sorted: Int) in
      func holdsZone(_ slot: Int32) -> Bool {
        slot >= 0 && Int(slot) < zones.count && zones[Int(slot)] != nil
      }
      var listed = [Bool](repeating: false, count: zones.count)
      var kept: [Int32] = []
      kept.reserveCapacity(zoneSlotByID.count)
      var lastID: String?
      var index = 0
      while index < previous.count {
        let slot = previous[index]
        index += 1
        guard holdsZone(slot), !listed[Int(slot)] else { continue }
        let id = Self.zoneID(slot, in: zones)
        if let lastID, !(lastID < id) { continue }
        // The next listed slot that holds a zone.
        var ahead = index
        while ahead < previous.count, !holdsZone(previous[ahead]) { ahead += 1 }
        if ahead < previous.count, !(id < Self.zoneID(previous[ahead], in: zones)) { continue }
        lastID = id
        listed[Int(slot)] = true
        kept.append(slot)
      }
      var added: [(id: String, slot: Int32)] = []
      for slot in zones.indices where !listed[slot] && zones[slot] != nil {
        added.append((Self.zoneID(Int32(slot), in: zones), Int32(slot)))
      }
      guard !added.isEmpty else { return (kept, 0) }
      added.sort { $0.id < $1.id }
      var merged: [Int32] = []
      merged.reserveCapacity(kept.count + added.count)
      var next = 0
      for slot in kept {
        let id = Self.zoneID(slot, in: zones)
        while next < added.count, added[next].id < id {
          merged.append(added[next].slot)
          next += 1
        }
        merged.append(slot)
      }
      for rest in added[next...] { merged.append(rest.slot) }
      return (merged, added.count)
    }
  }

  /// The snapshot of the devices `isIncluded` passes, with the zone slots in id order and the
  /// zones' fingerprint given.
  private func snapshot(
    zonesInIDOrder order: [Int32], fingerprint: UInt64, includingDevice isIncluded: (String) -> Bool
  ) -> EvaluatorSnapshot {
    var zoneSequences: [EvaluatorSnapshot.ZoneSequence] = []
    zoneSequences.reserveCapacity(order.count)
    for slot in order {
      guard let zone = zoneSlots[Int(slot)] else { continue }
      zoneSequences.append(.init(zone: zone.id, addedSequence: zoneCores[Int(slot)].addedSequence))
    }
    var snapshotDevices: [EvaluatorSnapshot.Device] = []
    for slot in devices.indices where isIncluded(deviceNames[slot]) {
      snapshotDevices.append(snapshotDevice(slot: slot))
    }
    return EvaluatorSnapshot(
      zoneFingerprint: fingerprint, time: time,
      acceptedFixCount: acceptedFixCount, skippedFixCount: skippedFixCount,
      rejections: rejections, stayCounter: stayCounter, addSequence: addSequence,
      zoneSequences: zoneSequences, devices: snapshotDevices,
      pendingEvents: pendingEvents.filter { isIncluded($0.device) })
  }

  /// Replaces every device's state, the engine's time, its counters and its waiting events of
  /// zone changes by those of `snapshot`,
  /// keeping this evaluator's zones and configuration; fixes processed afterwards give exactly
  /// the events the evaluator the snapshot came from would have given.
  ///
  /// Device handles are those of the snapshot (handles issued by this evaluator before are no
  /// longer valid). Zones must be the same (``zoneFingerprint``), loaded in any order.
  ///
  /// - Throws: ``SnapshotError`` with ``SnapshotError/Fault/zoneMismatch(snapshot:evaluator:)``
  ///   when the zones differ, ``SnapshotError/Fault/unknownID(_:)`` or
  ///   ``SnapshotError/Fault/malformed(_:)`` for an inconsistent snapshot; nothing changes then.
  public mutating func restore(_ snapshot: EvaluatorSnapshot) throws {
    try restore(snapshot, zoneSlotsInIDOrder: zoneSlotsInIDOrder())
  }

  /// ``restore(_:)``, given this evaluator's zone slots in id order (``zoneSlotsInIDOrder()``,
  /// or as ``loaded(configuration:zones:)`` gives them without sorting): the fingerprint is
  /// made over them, and the snapshot's zones, in the same order, are matched to them in
  /// place; a zone where the two differ is looked up by id.
  ///
  /// - Returns: the order and fingerprint as of before the restore's zone clock ran, for
  ///   ``snapshot(reusing:)`` (a zone whose state the clock changed makes them be made again).
  @discardableResult
  package mutating func restore(
    _ snapshot: EvaluatorSnapshot, zoneSlotsInIDOrder order: [Int32]
  ) throws -> SnapshotZoneOrder {
    let generation = zoneGeneration
    let fingerprint = zoneFingerprint(slotsInIDOrder: order)
    guard snapshot.zoneFingerprint == fingerprint else {
      throw SnapshotError(.zoneMismatch(snapshot: snapshot.zoneFingerprint, evaluator: fingerprint))
    }
    // Everything is built aside first, so that a throw changes nothing.
    var sequences: [(slot: Int32, sequence: UInt64)] = []
    sequences.reserveCapacity(snapshot.zoneSequences.count)
    for (index, zone) in snapshot.zoneSequences.enumerated() {
      // In place while the snapshot's id order and this evaluator's agree (a million zones'
      // ids were filed in the id table, about a tenth of a restore, only to be looked up).
      if index < order.count, zoneID(at: order[index]) == zone.zone {
        sequences.append((order[index], zone.addedSequence))
        continue
      }
      guard let slot = zoneSlot(id: zone.zone) else { throw SnapshotError(.unknownID(zone.zone)) }
      sequences.append((slot, zone.addedSequence))
    }
    guard sequences.count == zoneSlotByID.count else {
      throw SnapshotError(
        .malformed("\(sequences.count) zone sequences for \(zoneSlotByID.count) zones"))
    }
    var newDevices: [DeviceState] = []
    newDevices.reserveCapacity(snapshot.devices.count)
    var newRecords = ZoneRecordStore()
    var newBlocks: [UInt32] = []
    var newNames: [String] = []
    newNames.reserveCapacity(snapshot.devices.count)
    var newDiscs: [SafeDisc] = []
    if configuration.skipsUnchangedFixes { newDiscs.reserveCapacity(snapshot.devices.count) }
    var newSlotByName: [String: Int32] = [:]
    var newMonitored: [[Int32]] = []
    var queue = DwellQueue()
    var newExits = PendingExitTable()
    var newDetached = DetachedCheckInFences()
    for device in snapshot.devices {
      let slot = Int32(newDevices.count)
      guard newSlotByName.updateValue(slot, forKey: device.name) == nil else {
        throw SnapshotError(.malformed("device \"\(device.name)\" twice"))
      }
      var (state, records, monitored, exits, detached) = try restoredDevice(device)
      for (zone, exit) in exits { newExits[device: Int(slot), zone: zone] = exit }
      for (zone, fence) in detached { newDetached[device: Int(slot), zone: zone] = fence }
      if !monitored.isEmpty {
        // The table reaches this device's slot (empty sets before it) from its first set on.
        newMonitored.append(contentsOf: repeatElement([], count: Int(slot) - newMonitored.count))
        newMonitored.append(monitored)
      }
      for record in records where record.dwell == .scheduled {
        queue.push(
          DwellEntry(deadline: record.dwellDeadline, device: slot, zone: record.zone,
            stay: record.stay))
      }
      // As `putRecords(_:device:)` places them, the fleet being the snapshot's.
      if snapshot.devices.count >= recordPoolingFleet, ZoneRecordStore.fitsBlock(records.count) {
        newBlocks.append(contentsOf: repeatElement(0, count: Int(slot) - newBlocks.count))
        newBlocks.append(newRecords.block(of: records) &+ 1)
      } else {
        state.records = records
      }
      newDevices.append(state)
      newNames.append(device.name)
      if configuration.skipsUnchangedFixes {
        var disc = SafeDisc()
        if let stored = device.safeDisc {
          disc.center = ECEFPosition(x: stored.x, y: stored.y, z: stored.z)
          disc.radius = stored.radius
          disc.generation = zoneGeneration
        }
        newDiscs.append(disc)
      }
    }

    let roaming = try restoredRoaming(snapshot.devices, slotByName: newSlotByName)

    for (slot, sequence) in sequences { zoneCores[Int(slot)].addedSequence = sequence }
    deviceTags = [:]
    for (slot, device) in snapshot.devices.enumerated() where !device.tags.isEmpty {
      deviceTags[Int32(slot)] = device.tags
    }
    addSequence = snapshot.addSequence
    devices = newDevices
    recordStore = newRecords
    recordBlocks = newBlocks
    deviceNames = newNames
    pendingExits = newExits
    detachedCheckInFences = newDetached
    safeDiscs = newDiscs
    monitoredSets = newMonitored
    var slotByName = IDSlotTable()
    slotByName.reserveCapacity(newDevices.count)
    for (slot, name) in newNames.enumerated() { slotByName.insert(name, slot: Int32(slot)) }
    deviceSlotByName = slotByName
    deviceNamesAreFiled = true
    dwellQueue = queue
    stayCounter = snapshot.stayCounter
    time = snapshot.time
    roamingRecords = roaming.records
    roamingDwellQueue = roaming.dwells
    roamingNextDeadline = roaming.dwells.map(\.deadline).min()
    // The carriers' index, from the restored devices' tags and latest fixes.
    rebuildRoamingIndex()
    pendingEvents = snapshot.pendingEvents
    // After the roaming pairs: it may end some (see `restartZoneClock`).
    restartZoneClock()
    rejections = snapshot.rejections
    acceptedFixCount = snapshot.acceptedFixCount
    skippedFixCount = snapshot.skippedFixCount
    return SnapshotZoneOrder(generation: generation, slots: order, fingerprint: fingerprint)
  }

  /// A 64-bit FNV-1a hash of everything about the loaded zones that events depend on: zone ids,
  /// rules and custom data, fence ids and shapes (exact coordinate and radius bits), GEOLINE
  /// ids, vertices and direction filters. Names and descriptions are left out. Zones are taken
  /// in id order, so the order they were loaded in does not matter.
  ///
  /// Two evaluators (or shards) with the same fingerprint evaluate fixes the same way.
  ///
  /// - Complexity: O(*v*) for *v* vertices in all the zones.
  public var zoneFingerprint: UInt64 {
    zoneFingerprint(slotsInIDOrder: zoneSlotsInIDOrder())
  }

  /// ``zoneFingerprint`` over the zone slots already sorted by id (see `zoneSlotsInIDOrder()`).
  func zoneFingerprint(slotsInIDOrder slots: [Int32]) -> UInt64 {
    var hash = FNV1a64()
    hash.combine(UInt64(slots.count))
    for (k, slot) in slots.enumerated() {
      prefetchFingerprintReads(of: slots, at: k)
      // The stored zone (fences in the element tables, hashed from there: rebuilding each
      // circle would compute its ECEF centre and chord for nothing).
      guard let compiled = zoneSlots[Int(slot)] else { continue }
      hash.combine(compiled.id)
      hash.combine(JSONValue.object(compiled.customData))
      // The rules as ``rules(of:slot:)`` gives them, read from the zone's core: making the
      // `ZoneRules` value boxes rules other than the defaults, an allocation per zone (at a
      // million zones a third of the fingerprint).
      let core = zoneCores[Int(slot)]
      hash.combine(core.minimumRetriggerTime)
      hash.combine(core.dwellRule ?? -1)
      hash.combine(UInt64(core.checkOut ? 1 : 0) | UInt64(core.initialTrigger ? 2 : 0))
      hash.combine(core.exitHysteresis)
      hash.combine(UInt64(bitPattern: Int64(core.exitConfirmations)))
      // Rules v2 only when a zone has any, so that fingerprints of zones without them (and
      // the snapshots that carry them) stay as they were. All of them live in the zone's
      // rare parts (`exitOnRemove`, the v2 box).
      if compiled.exitOnRemove || compiled.rulesV2 != nil {
        let rules = self.rules(of: compiled, slot: slot)
        if rules.hasRulesV2 { hash.combine(JSONValue.object(rules.rulesV2JSON)) }
      }
      hash.combine(UInt64(compiled.slots.fenceCount))
      compiled.slots.forEachFence { fence in
        hash.combine(elementID(at: fence))
        if let polygon = polygonFences.sparseSlot(fence) {
          hash.combine(UInt64(2))
          hash.combine(UInt64(polygon.shape.polygons.count))
          for part in polygon.shape.polygons {
            let rings = part.rings  // made again from the edges at each read: once
            hash.combine(UInt64(rings.count))
            for ring in rings { hash.combine(ring) }
          }
        } else {
          hash.combine(UInt64(1))
          hash.combine(elementCores[Int(fence)].degreeTest.center)
          hash.combine(elementCores[Int(fence)].radius)
        }
      }
      let geolines = compiled.geolines
      hash.combine(UInt64(geolines.count))
      for geoline in geolines {
        hash.combine(geoline.id)
        hash.combine(geoline.direction.rawValue)
        hash.combine(geoline.line.vertices)
      }
    }
    return hash.value
  }

  /// Asks for the memory ``zoneFingerprint(slotsInIDOrder:)`` reads of the zones some places
  /// after the `k`-th of `slots`: the entry in the zone table and the core of the one 12
  /// places ahead, and the element core of the one 6 places ahead when it has one element
  /// (its zone table entry, asked for 6 zones before, names it).
  ///
  /// The zones are read in id order and sit in the tables in spatial order, so each zone's
  /// reads missed the caches, one after another: at a million zones the zone table's and the
  /// cores' loads were two thirds of the fingerprint's samples (`perf annotate`), the element
  /// cores' most of the rest.
  @inline(__always)
  private func prefetchFingerprintReads(of slots: [Int32], at k: Int) {
    let count = slots.count
    let far = k &+ 12
    if far < count {
      let slot = Int(slots[far])
      zoneSlots.withUnsafeBufferPointer { prefetchLines(of: $0.baseAddress! + slot) }
      zoneCores.prefetch(slot: slot)
    }
    let near = k &+ 6
    guard near < count else { return }
    let element = zoneSlots.withUnsafeBufferPointer { zones in
      (zones.baseAddress! + Int(slots[near])).pointee?.slots.onlySlot
    }
    if let element {
      elementCores.withUnsafeBufferPointer { prefetchLines(of: $0.baseAddress! + Int(element)) }
    }
  }

  // MARK: - Between device state and snapshot values

  /// The snapshot value of the device in slot `slot`.
  func snapshotDevice(slot: Int) -> EvaluatorSnapshot.Device {
    let device = devices[slot]
    var records: [EvaluatorSnapshot.Record] = []
    let deviceRecords = self.records(ofDevice: slot)
    records.reserveCapacity(deviceRecords.count)
    for record in deviceRecords {
      let presence = EvaluatorSnapshot.Presence(record.presence)
      let dwell = EvaluatorSnapshot.Dwell(record.dwell)
      var exit: EvaluatorSnapshot.PendingExit?
      if record.exitCount > 0, let first = pendingExits[device: slot, zone: record.zone] {
        exit = .init(
          count: Int(record.exitCount),
          fix: .init(
            time: first.time, latitude: first.latitude, longitude: first.longitude,
            speed: first.speed, course: first.course))
      }
      records.append(
        .init(
          zone: zoneID(at: record.zone), presence: presence, stay: record.stay,
          checkInTime: record.checkInTime, checkInFence: checkInFence(of: record, device: slot),
          willCheckOut: record.willCheckOut, dwell: dwell,
          dwellDeadline: dwell == .none
            ? Timestamp(microsecondsSinceEpoch: 0) : record.dwellDeadline,
          exit: exit, windowStart: record.windowStart))
    }
    records.sort { $0.zone < $1.zone }
    var lastFix: EvaluatorSnapshot.StoredFix?
    if device.hasFix {
      lastFix = .init(
        time: device.lastTime, latitude: device.lastCoordinate.latitude,
        longitude: device.lastCoordinate.longitude, speed: device.lastSpeed,
        course: device.lastCourse)
    }
    var safeDisc: EvaluatorSnapshot.SafeDisc?
    if slot < safeDiscs.count, safeDiscs[slot].radius > 0,
      safeDiscs[slot].generation == zoneGeneration
    {
      let disc = safeDiscs[slot]
      safeDisc = .init(x: disc.center.x, y: disc.center.y, z: disc.center.z, radius: disc.radius)
    }
    return EvaluatorSnapshot.Device(
      name: deviceNames[slot], lastFix: lastFix, lastSequence: device.lastSequence,
      safeDisc: safeDisc, records: records,
      monitored: monitoredSet(of: slot).map { elementID(at: $0) }.sorted(),
      tags: deviceTags[Int32(slot)] ?? [], roaming: snapshotRoamingPairs(slot: slot))
  }

  /// The device state of a snapshot's device, its monitored set (element slots, sorted), the
  /// first fixes of its pending exits and the ids of check-in fences no longer loaded (by zone
  /// slot).
  private func restoredDevice(
    _ device: EvaluatorSnapshot.Device
  ) throws -> (
    state: DeviceState, records: [ZoneRecord], monitored: [Int32],
    exits: [(zone: Int32, exit: PendingExit)], detached: [(zone: Int32, fence: String)]
  ) {
    var state = DeviceState()
    var records: [ZoneRecord] = []
    var exits: [(zone: Int32, exit: PendingExit)] = []
    var detached: [(zone: Int32, fence: String)] = []
    if let fix = device.lastFix {
      state.hasFix = true
      state.lastTime = fix.time
      state.lastCoordinate = Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude)
      state.setLastMotion(speed: fix.speed, course: fix.course)
    }
    state.lastSequence = device.lastSequence
    for record in device.records {
      guard let zone = zoneSlot(id: record.zone) else { throw SnapshotError(.unknownID(record.zone)) }
      var restored = ZoneRecord(zone: zone)
      restored.presence = Presence(record.presence)
      restored.dwell = DwellStatus(record.dwell)
      restored.stay = record.stay
      restored.checkInTime = record.checkInTime
      if !record.checkInFence.isEmpty {
        if let fence = elementSlot(id: record.checkInFence) {
          restored.checkInFenceSlot = fence
        } else {
          restored.checkInFenceSlot = ZoneRecord.detachedFence
          detached.append((zone, record.checkInFence))
        }
      }
      restored.willCheckOut = record.willCheckOut
      restored.dwellDeadline = record.dwellDeadline
      if let exit = record.exit {
        restored.exitCount = Int32(clamping: exit.count)
        exits.append(
          (zone, PendingExit(
            time: exit.fix.time, latitude: exit.fix.latitude, longitude: exit.fix.longitude,
            speed: exit.fix.speed, course: exit.fix.course)))
      }
      restored.windowStart = record.windowStart
      let (index, found) = records.recordIndex(of: zone)
      guard !found else {
        throw SnapshotError(.malformed("zone \"\(record.zone)\" twice for \"\(device.name)\""))
      }
      records.insert(restored, at: index)
    }
    var monitored: [Int32] = []
    for id in device.monitored {
      guard let slot = elementSlot(id: id) else { throw SnapshotError(.unknownID(id)) }
      monitored.append(slot)
    }
    monitored.sort()
    return (state, records, monitored, exits, detached)
  }
}

extension FNV1a64 {
  mutating func combine(_ value: UInt64) {
    combine(Int64(bitPattern: value))
  }

  mutating func combine(_ value: Double) {
    combine(value.bitPattern)
  }

  mutating func combine(_ coordinate: Coordinate) {
    combine(coordinate.latitude)
    combine(coordinate.longitude)
  }

  mutating func combine(_ coordinates: [Coordinate]) {
    combine(UInt64(coordinates.count))
    for coordinate in coordinates { combine(coordinate) }
  }

  /// A JSON value with a type tag before each part, so that different values hash apart.
  mutating func combine(_ value: JSONValue) {
    switch value {
    case .null: combine(byte: 0)
    case .bool(let flag): combine(byte: flag ? 2 : 1)
    case .number(let number):
      combine(byte: 3)
      combine(number)
    case .string(let text):
      combine(byte: 4)
      combine(text)
    case .array(let items):
      combine(byte: 5)
      combine(UInt64(items.count))
      for item in items { combine(item) }
    case .object(let object):
      combine(byte: 6)
      combine(UInt64(object.members.count))
      for member in object.members {
        combine(member.key)
        combine(member.value)
      }
    }
  }
}
