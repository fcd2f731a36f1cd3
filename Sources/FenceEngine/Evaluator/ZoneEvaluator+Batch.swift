import CMemoryHints
import FenceIndex

extension ZoneEvaluator {
  // MARK: - Processing a batch

  /// Processes `fixes` in order, each as the fix of the device behind the handle at the same
  /// position in `devices`, appending their events: exactly what calling
  /// ``process(_:device:into:)`` for each pair in turn appends, and the same state after.
  ///
  /// Faster than that loop over a large fence set on new ground: while it works on one fix it
  /// asks the processor's caches for the tables the next few fixes will read (their devices'
  /// states, their cells of the fence index, the fences and zones found there), so that a fix
  /// on ground no fix touched recently does not wait on memory at every step. Elsewhere it is
  /// that loop. See `Docs/Decisions/0011-memory-ahead-of-the-fixes.md`.
  ///
  /// - Precondition: `fixes` and `devices` have the same count; every handle was issued by
  ///   this evaluator (``handle(forDevice:)``). `fix.device` is ignored, as by
  ///   ``process(_:device:into:)``.
  public mutating func process(
    _ fixes: ArraySlice<LocationFix>, devices: ArraySlice<DeviceHandle>,
    into events: inout [ZoneEvent]
  ) {
    precondition(
      fixes.count == devices.count,
      "One device handle per fix (\(fixes.count) fixes, \(devices.count) handles)")
    for handle in devices {
      precondition(
        handle.slot >= 0 && Int(handle.slot) < self.devices.count,
        "Device handle \(handle.slot) was not issued by this evaluator (\(self.devices.count) devices)"
      )
    }
    processAhead(fixes, devices, into: &events)
  }

  /// Processes `fixes` in order with their devices' handles (see
  /// ``process(_:devices:into:)-(ArraySlice<LocationFix>,_,_)``).
  public mutating func process(
    _ fixes: [LocationFix], devices: [DeviceHandle], into events: inout [ZoneEvent]
  ) {
    process(fixes[...], devices: devices[...], into: &events)
  }

  /// Processes `fixes` in order, each as the fix of the device it names: the events and state
  /// of calling ``process(_:into:)`` for each in turn. Devices first seen in the batch are
  /// registered before any fix of it is processed (their registration changes no event).
  public mutating func process(_ fixes: [LocationFix], into events: inout [ZoneEvent]) {
    var handles: [DeviceHandle] = []
    handles.reserveCapacity(fixes.count)
    for fix in fixes { handles.append(handle(forDevice: fix.device)) }
    // Handles just issued: nothing to check.
    processAhead(fixes[...], handles[...], into: &events)
  }

  /// The loop of a batch over the fixes read in place (iterating the slice would copy each
  /// fix: its device name and optional fields); see the form below.
  private mutating func processAhead(
    _ fixes: ArraySlice<LocationFix>, _ handles: ArraySlice<DeviceHandle>,
    into events: inout [ZoneEvent]
  ) {
    fixes.withUnsafeBufferPointer { fixes in
      handles.withUnsafeBufferPointer { handles in processAhead(fixes, handles, into: &events) }
    }
  }

  /// The loop of a batch: each fix processed as by ``process(_:slot:into:)``, with the memory
  /// of the fixes after it asked for in stages, each stage reading only what the stage before
  /// it brought (a fix takes about a microsecond, time enough for a stage's lines to arrive).
  ///
  /// - four fixes ahead: the device's state, and the fix's cell in the point grid;
  /// - three ahead: the device's zone records, and the cell's listings;
  /// - two ahead: the fences the point search will answer (their cores and ids), and the zones
  ///   of the device's records (those it may check out of);
  /// - one ahead: the zones of those fences (those it may check in to).
  ///
  /// The stages run only while fixes ask a point grid directly (not the cell cache): elsewhere
  /// the tables stay cached and the stages cost more than they save (the harbor week ran 2.6x
  /// slower with every stage on; a million devices over 100 circles, their states read in
  /// order, 8 % slower with the device stages). Nothing here changes a value: without the
  /// hints the results are the same. With the cell cache in use, the one thing asked for is the
  /// line of the cache's table where the next fix's probe starts, a fix ahead (the probe's
  /// first read was the step's largest stall on the harbor week); the cell key made for it is
  /// handed to the step. A fix whose point stage three searched, and that is in at
  /// most four fences, is not searched again: `markInside` tests the fences stage three found
  /// (``fencesFoundAhead``), the answer of the same search of the same unchanged index.
  private mutating func processAhead(
    _ fixes: UnsafeBufferPointer<LocationFix>, _ handles: UnsafeBufferPointer<DeviceHandle>,
    into events: inout [ZoneEvent]
  ) {
    // Only an index with a point grid is searched ahead, and only while fixes go to it
    // directly: with the cell cache in use (a fleet on familiar ground, skipped fixes) a
    // search ahead would be work the fix never does.
    let hasGrid = fenceIndex.answersPointsFromGrid
    guard let base = fixes.baseAddress else { return }
    // Each fix's fields are read from the buffer one fix ahead, into one of two slots, and
    // the per-fix step reads them there (see `process(at:slot:into:)`).
    withUnsafeTemporaryAllocation(of: FixReading.self, capacity: 2) { readings in
      // The fences stage three found, by the parity of their fix, for stage four a fix later:
      // on the stack, where an array checked its uniqueness at every write.
      withUnsafeTemporaryAllocation(of: FoundAhead.self, capacity: 2) { foundPair in
        let found = foundPair.baseAddress.unsafelyUnwrapped
        found.initialize(repeating: FoundAhead(), count: 2)
        let slots = readings.baseAddress.unsafelyUnwrapped
        slots.initialize(to: FixReading(at: base))
        // The cell key of this fix and of the next, made a fix ahead (or unknown).
        var cellKey = ContainmentCellCache.unknownKey
        var nextCellKey = ContainmentCellCache.unknownKey
        for i in fixes.indices {
          // This fix's fences, found two fixes ago (stage three writes over them next).
          let mine = found[i & 1]
          if hasGrid && cellCache.asksIndexDirectly {
            askAhead(of: i, fixes, handles, found: found)
          }
          if mine.fix == i && mine.isComplete { fencesFoundAhead = mine }
          // The next fix's fields, read in place: `fixes[i]` would be copied (see `FixReading`).
          if i &+ 1 < fixes.count {
            let next = slots + ((i &+ 1) & 1)
            next.initialize(to: FixReading(at: base + (i &+ 1)))
            // The next fix's cell in the cell cache's table, asked for a fix ahead.
            nextCellKey = cellCache.prefetchProbe(
              latitude: next.pointee.latitude, longitude: next.pointee.longitude)
          } else {
            nextCellKey = ContainmentCellCache.unknownKey
          }
          process(
            at: slots + (i & 1), slot: Int(handles[i].slot), cellKey: cellKey, into: &events)
          cellKey = nextCellKey
          fencesFoundAhead.fix = -1
        }
      }
    }
  }

  /// Runs each stage for the fix it is due for, before fix `i` is processed.
  @inline(__always)
  private mutating func askAhead(
    of i: Int, _ fixes: UnsafeBufferPointer<LocationFix>,
    _ handles: UnsafeBufferPointer<DeviceHandle>, found: UnsafeMutablePointer<FoundAhead>
  ) {
    let n = fixes.count
    if i &+ 4 < n {
      let fix = fixes[i &+ 4]
      prefetchDevice(Int(handles[i &+ 4].slot))
      fenceIndex.prefetchPointSearch(.cell, latitude: fix.latitude, longitude: fix.longitude)
    }
    if i &+ 3 < n {
      let fix = fixes[i &+ 3]
      prefetchRecords(ofDevice: Int(handles[i &+ 3].slot))
      fenceIndex.prefetchPointSearch(.listings, latitude: fix.latitude, longitude: fix.longitude)
    }
    if i &+ 2 < n {
      let fix = fixes[i &+ 2]
      prefetchRecordZones(ofDevice: Int(handles[i &+ 2].slot))
      found[(i &+ 2) & 1].start(i &+ 2)
      prefetchFences(at: fix.latitude, fix.longitude, into: &found[(i &+ 2) & 1])
    }
    if i &+ 1 < n {
      prefetchZones(of: found[(i &+ 1) & 1], fix: i &+ 1)
    }
  }

  // MARK: - The stages

  /// Stage one: the device's state (and its entry in `recordBlocks`).
  @inline(__always)
  private func prefetchDevice(_ d: Int) {
    devices.withUnsafeBufferPointer { prefetchLines(of: $0.baseAddress! + d) }
    // A large fleet's entry of the device's record block, read by stage two.
    recordBlocks.withUnsafeBufferPointer { blocks in
      if d < blocks.count { fencekit_prefetch(blocks.baseAddress! + d) }
    }
  }

  /// Stage two: the device's zone records: its block's records, or its array's header (its
  /// count, and the reference count every change checks) and first two records. An array is
  /// found from its bits (``recordLines(ofDevice:in:)``) and its count is not read: that read
  /// is a miss the loop waited for (a ninth of the run's samples with ten thousand devices on
  /// cold ground), where a prefetch of lines the array may not fill costs nothing.
  @inline(__always)
  private func prefetchRecords(ofDevice d: Int) {
    devices.withUnsafeBufferPointer { devices in
      let (header, first, count) = recordLines(ofDevice: d, in: devices)
      guard let first, count ?? 2 > 0 else { return }
      if let header { fencekit_prefetch(header) }
      prefetchLines(
        of: first.assumingMemoryBound(to: ZoneRecord.self),
        bytes: min(count ?? 2, 2) * MemoryLayout<ZoneRecord>.stride)
    }
  }

  /// Stage three, device side: the zones of the device's records (a fix reads them to check
  /// out, and to sort its events by zone id), and the element cores of their check-in fences
  /// (a check-out reads its fence's id through the core: on cold ground that fence is one the
  /// device has left, which no search of this fix brings in; the miss was a fifth of a million
  /// circles' cold evaluation).
  @inline(__always)
  private func prefetchRecordZones(ofDevice d: Int) {
    // The records are read through their addresses, as in stage two: reading an array
    // retained and released it at every fix.
    let (count, zones, fences) = devices.withUnsafeBufferPointer { devices in
      let (_, first, count) = recordAddresses(ofDevice: d, in: devices)
      var zones: (Int32, Int32) = (-1, -1)
      var fences: (Int32, Int32) = (-1, -1)
      guard let records = first?.assumingMemoryBound(to: ZoneRecord.self) else {
        return (0, zones, fences)
      }
      if count > 0 {
        zones.0 = records[0].zone
        fences.0 = records[0].checkInFenceSlot
      }
      if count > 1 {
        zones.1 = records[1].zone
        fences.1 = records[1].checkInFenceSlot
      }
      return (count, zones, fences)
    }
    if count > 0 { prefetchZone(zones.0) }
    if count > 1 { prefetchZone(zones.1) }
    if fences.0 >= 0 || fences.1 >= 0 {
      elementCores.withUnsafeBufferPointer { cores in
        // Zone changes keep the records' slots in the table (a removed fence's becomes
        // `detachedFence`); the bound is checked all the same, a prefetch being only a hint.
        if fences.0 >= 0, Int(fences.0) < cores.count {
          prefetchLines(of: cores.baseAddress! + Int(fences.0), bytes: Self.elementCoreBytes)
        }
        if fences.1 >= 0, Int(fences.1) < cores.count {
          prefetchLines(of: cores.baseAddress! + Int(fences.1), bytes: Self.elementCoreBytes)
        }
      }
    }
  }

  /// Stage three, index side: the fences the point search will answer (the search itself now
  /// reads memory stages one and two brought), noted in `found` for stage four. Mutating, as
  /// ``askAhead(of:_:_:found:)``, only to search the index in place (decision 0013).
  @inline(__always)
  private mutating func prefetchFences(
    at latitude: Double, _ longitude: Double, into found: inout FoundAhead
  ) {
    elementCores.withUnsafeBufferPointer { cores in
      elementIDs.withUnsafeBufferPointer { ids in
        fenceIndex.searchInPlace(containing: latitude, longitude: longitude) { slot in
          prefetchLines(of: cores.baseAddress! + Int(slot), bytes: Self.elementCoreBytes)
          // An id of its own (an id that is its zone's is read with the zone's entry).
          if let ids = ids.baseAddress { fencekit_prefetch(ids + Int(slot)) }
          found.note(slot)
        }
      }
    }
  }

  /// Stage four: the zones of the fences stage three found for fix `i`.
  @inline(__always)
  private func prefetchZones(of found: FoundAhead, fix i: Int) {
    guard found.fix == i else { return }
    elementCores.withUnsafeBufferPointer { cores in
      found.forEach { slot in
        let zone = cores[Int(slot)].zone
        if zone >= 0 { prefetchZone(zone) }
      }
    }
  }

  /// A zone's per-fix tables: its core and its entry in the zone table (id, rules, data).
  @inline(__always)
  private func prefetchZone(_ zone: Int32) {
    zoneCores.prefetch(slot: Int(zone))
    // What an event copies from the zone: its id, name and custom data.
    zoneSlots.withUnsafeBufferPointer {
      prefetchLines(of: $0.baseAddress! + Int(zone), bytes: Self.zoneEventBytes)
    }
  }

  /// The bytes of a zone table entry up to the end of the zone's custom data (an optional's
  /// payload comes first).
  private static var zoneEventBytes: Int { CompiledZone.eventBytes }

  /// The bytes of an element core a fix reads for a circle: all but the radius or polygon test
  /// at the end.
  private static var elementCoreBytes: Int { ElementCore.bytesBeforePayload }
}

/// Asks for every cache line of the first `bytes` bytes of the value at `pointer` (all of it by
/// default).
@inline(__always)
func prefetchLines<T>(of pointer: UnsafePointer<T>, bytes: Int = MemoryLayout<T>.size) {
  let start = UnsafeRawPointer(pointer)
  var offset = 0
  while offset < bytes {
    fencekit_prefetch(start + offset)
    offset &+= 64
  }
  // The last byte's line: a value not aligned to a line spans one line more than its size.
  fencekit_prefetch(start + (bytes &- 1))
}
