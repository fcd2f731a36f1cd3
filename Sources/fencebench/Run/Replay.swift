import FenceCommandLine
import FenceEngine
import FenceFormats
import FenceGeometry

/// One `fencebench run`: loads zones, reads tracks, feeds the engine in time order, writes
/// events and the map, and measures what the summary reports.
///
/// Timing: fixes are evaluated in batches of up to ``batchSize``; the evaluation time is the
/// sum of the batches' monotonic-clock intervals, so parsing, sorting and event writing are
/// excluded. Each fix's device handle is resolved while its batch is built
/// (``DeviceHandles``), so the timed loop hashes no device name. With latency on, one clock
/// reading is taken between consecutive fixes of a batch and each fix's interval goes into a
/// ``LatencyHistogram``. With `--compare-geos`, ``GEOSComparison`` runs the GEOS loop over the
/// same fixes, outside the engine's timing: after the engine has seen every fix when the fixes
/// are read into a sorted table (the default), and in passes of ``GEOSComparison/passSize``
/// fixes between engine batches with `--presorted` (streaming, so memory stays bounded). Each
/// side then runs in its own steady state: a pass of one side evicts the other's tables from
/// the processor's caches, which on the harbor week cost the engine a quarter of its time with
/// passes of 4,096 fixes and about a tenth with passes of 65,536.
///
/// With `--zone-changes`, batches end at each change's time and ``ZoneChangeSchedule`` applies
/// the changes between them, outside the evaluation time.
///
/// For `--map`, tracks and events are sampled while the run goes on (``TrackSampler``,
/// ``EventReservoir``), so the map costs bounded memory whatever the run's length.
struct Replay {
  let command: RunCommand
  static let batchSize = 4096

  private var histogram = LatencyHistogram()
  private var evaluationNanoseconds: UInt64 = 0
  /// Events by kind, in the order of `ZoneEvent.Kind.allCases` (a dictionary's hashing was 3 %
  /// of a cold run's evaluation at two events per fix).
  private var eventCounts = [Int](repeating: 0, count: Self.kinds.count)
  /// `ZoneEvent.Kind.allCases` made once (the synthesized property makes an array per read).
  private static let kinds = ZoneEvent.Kind.allCases
  private var mapTracks: TrackSampler
  private var mapEvents: EventReservoir
  private var comparison: GEOSComparison?
  private var changes: ZoneChangeSchedule?
  private var progress = ProgressBar(label: "fencebench")

  init(command: RunCommand) {
    self.command = command
    mapEvents = EventReservoir(capacity: command.mapEvents)
    mapTracks = TrackSampler(
      pointBudget: MapRenderer.defaultPointBudget, gapSeconds: command.mapGap,
      maximumSpeed: command.engine.maxSpeed)
  }

  mutating func run() throws -> RunSummary {
    var summary = RunSummary()

    // Zones.
    let loadStart = MonotonicClock.nanoseconds()
    var zones = try ZoneLoader.loadZones(contentsOf: command.zoneFiles, options: command.zoneOptions.loadOptions)
    summary.loadSeconds = MonotonicClock.seconds(since: loadStart)
    summary.zones = zones.count
    summary.fences = zones.reduce(0) { $0 + $1.fences.count }
    summary.geolines = zones.reduce(0) { $0 + $1.geolines.count }

    let buildStart = MonotonicClock.nanoseconds()
    var evaluator: ZoneEvaluator
    if command.map == nil && !command.compareGEOS {
      // Handed over: the evaluator lets the loaded array go before it packs its index, so a
      // million zones' values are not held twice at the load's peak.
      evaluator = try ZoneEvaluator(configuration: command.engineConfiguration, zones: consume zones)
      zones = []
    } else {
      evaluator = try ZoneEvaluator(configuration: command.engineConfiguration, zones: zones)
    }
    summary.indexBuildSeconds = MonotonicClock.seconds(since: buildStart)
    if let path = command.deviceTags {
      let tags = try DeviceTagReader.read(contentsOf: path)
      for device in tags.keys.sorted() { evaluator.setTags(tags[device] ?? [], forDevice: device) }
    }
    if command.compareGEOS { comparison = try GEOSComparison(zones: zones) }
    if let path = command.zoneChanges {
      changes = ZoneChangeSchedule(
        file: path,
        changes: try ZoneChangeReader.read(contentsOf: path, options: command.zoneOptions.loadOptions))
    }
    // The evaluator holds the zones; the loaded array is only kept for the map.
    if command.map == nil { zones = [] }

    // Tracks.
    var options = TrackReadOptions()
    options.format = command.format
    options.strict = command.strict
    // Outputs go to temporary files that replace the destinations only once the run succeeded.
    let eventsTemporary = command.events.flatMap { OutputPaths.temporaryPath(forOutput: $0) }
    let mapTemporary = command.map.flatMap { OutputPaths.temporaryPath(forOutput: $0) }
    var succeeded = false
    defer {
      if !succeeded {
        for temporary in [eventsTemporary, mapTemporary].compactMap({ $0 }) { OutputPaths.discard(temporary) }
      }
    }
    let writer = try command.events.map { try EventWriter(path: eventsTemporary ?? $0) }
    var batch: [LocationFix] = []
    batch.reserveCapacity(Self.batchSize)
    // Each fix's device handle, resolved while the batch is built (outside the timing).
    var handles = DeviceHandles()
    var batchDevices: [ZoneEvaluator.DeviceHandle] = []
    batchDevices.reserveCapacity(Self.batchSize)
    var events: [ZoneEvent] = []
    var lastTime: Timestamp?
    var issues: [TrackIssue] = []

    if command.presorted {
      let merger = try PresortedTrackMerger(paths: command.tracks, options: options)
      // A fix read past a due zone change, held for the next batch.
      var pending: (LocationFix, Int)?
      while true {
        batch.removeAll(keepingCapacity: true)
        batchDevices.removeAll(keepingCapacity: true)
        while batch.count < Self.batchSize, let (fix, device) = try pending ?? merger.nextWithDeviceIndex() {
          pending = nil
          if let due = changes?.nextTime, fix.time >= due {
            // A batch holds the fixes of one zone set: end it here, or apply the changes first.
            guard batch.isEmpty else {
              pending = (fix, device)
              break
            }
            try changes?.apply(dueBy: fix.time, to: &evaluator)
          }
          batch.append(fix)
          batchDevices.append(
            handles.handle(forDevice: device, named: fix.device, in: &evaluator))
          lastTime = max(lastTime ?? fix.time, fix.time)  // a file may step back in time
        }
        if batch.isEmpty { break }
        try evaluate(
          batch[...], devices: batchDevices, with: &evaluator, events: &events, writer: writer)
        summary.fixesRead += batch.count
        progress.update(done: summary.fixesRead, total: nil)
      }
      summary.rowsSkipped = merger.skippedRowCount
      issues = merger.issues
    } else {
      let readStart = MonotonicClock.nanoseconds()
      var table = try readSorted(paths: command.tracks, options: options)
      summary.readSeconds = MonotonicClock.seconds(since: readStart)
      summary.fixesRead = table.count
      summary.rowsSkipped = table.skippedRowCount
      issues = table.issues
      lastTime = table.last?.time
      // Every device registered now, in the order of its first fix (the order the engine
      // registers them in when fixes come by name; registering changes no event), and, unless
      // the GEOS comparison reads the table's fixes again, the table's names handed over: the
      // engine keeps the only copy, and the batches take their fixes' names from it.
      let tableHandles: [ZoneEvaluator.DeviceHandle]
      if comparison == nil, Self.namesDevicesInFirstFixOrder(table) {
        // The table's own array becomes the engine's (no second copy, even for a moment).
        tableHandles = evaluator.registerDevices(named: table.takeDeviceNames())
      } else {
        evaluator.reserveCapacity(devices: table.devices.count)
        tableHandles = Self.registerDevices(of: table, in: &evaluator)
        if comparison == nil { _ = table.takeDeviceNames() }
      }
      var start = 0
      while start < table.count {
        var end = min(start + Self.batchSize, table.count)
        if let due = changes?.nextTime {
          // A batch holds the fixes of one zone set: apply due changes, or end it before them.
          if table.time(at: start) >= due {
            try changes?.apply(dueBy: table.time(at: start), to: &evaluator)
            continue
          }
          var cut = start + 1
          while cut < end, table.time(at: cut) < due { cut += 1 }
          end = cut
        }
        batch.removeAll(keepingCapacity: true)
        batchDevices.removeAll(keepingCapacity: true)
        for index in start..<end {
          let handle = tableHandles[table.deviceIndex(at: index)]
          batch.append(table.fix(at: index, device: evaluator.deviceName(handle)))
          batchDevices.append(handle)
        }
        try evaluate(
          batch[...], devices: batchDevices, with: &evaluator, events: &events, writer: writer)
        // The fixes evaluated are not read again (unless the GEOS comparison runs over the
        // table afterwards): their pages go back as the replay moves on, so that its peak holds
        // the fixes to come, not all of them (Docs/Decisions/0008, "Given back as evaluated").
        if comparison == nil { table.releaseRows(before: end) }
        start = end
        progress.update(done: start, total: table.count)
      }
      // The table holds every fix already: the GEOS loop runs over it once the engine is done.
      try comparison?.add(table, latency: command.latency)
    }
    if let lastTime {
      events.removeAll(keepingCapacity: true)
      let start = MonotonicClock.nanoseconds()
      evaluator.advance(to: lastTime, into: &events)
      evaluationNanoseconds &+= MonotonicClock.nanoseconds() &- start
      try emit(events, writer: writer)
    }
    try changes?.apply(dueBy: nil, to: &evaluator)
    try comparison?.finish(latency: command.latency)
    progress.finish()
    try writer?.close()

    // Counts.
    for issue in issues.prefix(20) {
      printToStandardError("fencebench: warning: skipped \(issue)")
    }
    summary.fixesAccepted = evaluator.acceptedFixCount
    if command.skipUnchanged { summary.fixesSkipped = evaluator.skippedFixCount }
    summary.rejections = evaluator.rejections
    summary.devices = evaluator.deviceCount
    for (kind, count) in zip(Self.kinds, eventCounts) where count > 0 {
      summary.eventCounts[kind] = count
    }
    summary.evaluationSeconds = Double(evaluationNanoseconds) / 1e9
    if command.latency, histogram.count > 0 {
      summary.latencyMicroseconds = RunSummary.Latency(histogram)
    }
    summary.compareGEOS = comparison?.summary(engineSeconds: summary.evaluationSeconds)
    summary.zoneChanges = changes?.summary
    if command.backend == .native {
      let (hits, fills) = evaluator.cellCacheStatistics
      summary.cellCache = (
        hits, fills, evaluator.cellCacheFirstVisits, evaluator.cellCacheBypassedFixes,
        evaluator.settledFixCount
      )
    }
    for disagreement in comparison?.disagreements ?? [] {
      let fix = disagreement.fix
      printToStandardError(
        "fencebench: FenceKit and GEOS disagree at device \(fix.device) time \(fix.time) "
          + "lat \(fix.latitude) lon \(fix.longitude): FenceKit \(disagreement.fenceKit), "
          + "GEOS \(disagreement.geos)")
    }

    if let path = command.map {
      var renderer = MapRenderer(
        zones: zones, tracks: mapTracks.sampledTracks, events: mapEvents.sample,
        eventCounts: mapEvents.counts, eventText: { $0.ndjsonLine },
        title: "fencebench run: " + command.tracks.map(Self.fileName).joined(separator: ", "))
      renderer.sampledTrackStride = mapTracks.stride
      renderer.gapSeconds = command.mapGap
      renderer.maximumSpeed = command.engine.maxSpeed
      renderer.eventBudget = max(command.mapEvents, 1)
      let output = try OutputFile(path: mapTemporary ?? path)
      if path.lowercased().hasSuffix(".svg") {
        try renderer.writeSVG(to: output)
      } else {
        try renderer.writeHTML(to: output)
      }
      summary.map = path
    }
    if let eventsTemporary, let path = command.events { try OutputPaths.commit(eventsTemporary, to: path) }
    if let mapTemporary, let path = command.map { try OutputPaths.commit(mapTemporary, to: path) }
    succeeded = true
    summary.peakMemoryBytes = peakMemoryBytes()
    // The process exits right after the summary: its memory goes back to the system at once,
    // instead of a million zones and fences being freed one by one on return (0.7-4 s at a
    // million fences, time no user waits for).
    LeftUntilExit.keep(evaluator)
    LeftUntilExit.keep(zones)
    return summary
  }

  /// Whether `table` lists its devices in the order of their first fixes (device `k`'s first
  /// fix comes after device `k - 1`'s), as it does when its files were in time order.
  static func namesDevicesInFirstFixOrder(_ table: FixTable) -> Bool {
    let count = table.devices.count
    var next = 0
    for position in table.indices {
      if next == count { break }
      let device = table.deviceIndex(at: position)
      if device == next {
        next += 1
      } else if device > next {
        return false
      }
    }
    return next == count
  }

  /// Registers every device of `table` in `evaluator` in the order of its first fix, and gives
  /// each device index of the table its handle.
  static func registerDevices(
    of table: FixTable, in evaluator: inout ZoneEvaluator
  ) -> [ZoneEvaluator.DeviceHandle] {
    let count = table.devices.count
    var isRegistered = [Bool](repeating: false, count: count)
    var registered = 0
    return [ZoneEvaluator.DeviceHandle](unsafeUninitializedCapacity: count) { handles, filled in
      for position in table.indices {
        if registered == count { break }
        let device = table.deviceIndex(at: position)
        guard !isRegistered[device] else { continue }
        isRegistered[device] = true
        registered += 1
        (handles.baseAddress! + device).initialize(
          to: evaluator.handle(forDevice: table.devices[device]))
      }
      // Every device has a fix (the table interns a name only with its fix).
      precondition(registered == count, "a device of the table has no fix")
      filled = count
    }
  }

  /// Evaluates one batch, timing it, then writes its events and keeps what the map needs.
  ///
  /// `devices[i]` is the engine's handle for `batch`'s `i`-th fix's device.
  private mutating func evaluate(
    _ batch: ArraySlice<LocationFix>, devices: [ZoneEvaluator.DeviceHandle],
    with evaluator: inout ZoneEvaluator, events: inout [ZoneEvent], writer: EventWriter?
  ) throws {
    precondition(batch.count == devices.count, "One device handle per fix")
    let evaluatedBefore = evaluationNanoseconds
    defer { changes?.count(batch.count, nanoseconds: evaluationNanoseconds &- evaluatedBefore) }
    events.removeAll(keepingCapacity: true)
    if command.latency {
      // The fixes are read in place: iterating the slice would copy each fix (its device name
      // and optional fields) inside the timed loop.
      batch.withUnsafeBufferPointer { fixes in
        let start = MonotonicClock.nanoseconds()
        var previous = start
        for i in fixes.indices {
          evaluator.process(fixes[i], device: devices[i], into: &events)
          let now = MonotonicClock.nanoseconds()
          histogram.record(now &- previous)
          previous = now
        }
        evaluationNanoseconds &+= previous &- start
      }
    } else {
      // One call for the batch: it asks for the next fixes' memory while it works on each.
      let start = MonotonicClock.nanoseconds()
      evaluator.process(batch, devices: devices[...], into: &events)
      evaluationNanoseconds &+= MonotonicClock.nanoseconds() &- start
    }
    if command.presorted { try comparison?.add(batch, latency: command.latency) }
    if command.map != nil {
      for fix in batch where Coordinate.isValidForMap(fix) {
        mapTracks.append(
          device: fix.device, latitude: fix.latitude, longitude: fix.longitude,
          time: fix.time.secondsSinceEpoch)
      }
    }
    try emit(events, writer: writer)
  }

  private mutating func emit(_ events: [ZoneEvent], writer: EventWriter?) throws {
    // Read once: an argument's property wrapper costs a generic metadata lookup per read.
    let drawsMap = command.map != nil
    for k in events.indices {
      let kind = events[k].kind
      eventCounts[Self.position(of: kind)] += 1
      if drawsMap, kind != .monitoredSetChanged { mapEvents.offer(events[k]) }
    }
    try writer?.write(contentsOf: events)
  }

  /// Where `kind` is in ``kinds`` (the kinds in declaration order), by a switch: a search of
  /// the static array cost about 11 instructions an event in the timed loop (its one-time
  /// initialization check and the compares), 0.6 % of the constant-density cold tracks'
  /// (`count-instructions`). A new kind fails to compile here until it is given its place.
  private static func position(of kind: ZoneEvent.Kind) -> Int {
    let position =
      switch kind {
      case .checkIn: 0
      case .checkOut: 1
      case .dwell: 2
      case .monitoredSetChanged: 3
      case .rejected: 4
      }
    assert(kinds[position] == kind)
    return position
  }

  static func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }
}

extension Coordinate {
  /// Whether a fix can be drawn (finite, in range, not null island).
  fileprivate static func isValidForMap(_ fix: LocationFix) -> Bool {
    isValid(latitude: fix.latitude, longitude: fix.longitude)
      && !(fix.latitude == 0 && fix.longitude == 0)
  }
}
