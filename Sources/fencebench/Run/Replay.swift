import FenceEngine
import FenceFormats
import FenceGeometry

/// One `fencebench run`: loads zones, reads tracks, feeds the engine in time order, writes
/// events and the map, and measures what the summary reports.
///
/// Timing: fixes are evaluated in batches of up to ``batchSize``; the evaluation time is the
/// sum of the batches' monotonic-clock intervals, so parsing, sorting and event writing are
/// excluded. With latency on, one clock reading is taken between consecutive fixes of a batch
/// and each fix's interval goes into a ``LatencyHistogram``.
struct Replay {
  let command: RunCommand
  static let batchSize = 4096

  private var histogram = LatencyHistogram()
  private var evaluationNanoseconds: UInt64 = 0
  private var eventCounts: [ZoneEvent.Kind: Int] = [:]
  private var mapTracks: [MapRenderer.Track] = []
  private var mapTrackIndex: [String: Int] = [:]
  private var mapEvents: [ZoneEvent] = []
  private var progress = ProgressBar(label: "fencebench")

  init(command: RunCommand) {
    self.command = command
  }

  mutating func run() throws -> RunSummary {
    var summary = RunSummary()

    // Zones.
    let loadStart = MonotonicClock.nanoseconds()
    let zones = try ZoneFiles.load(paths: command.zoneFiles, command: command)
    summary.loadSeconds = MonotonicClock.seconds(since: loadStart)
    summary.zones = zones.count
    summary.fences = zones.reduce(0) { $0 + $1.fences.count }
    summary.geolines = zones.reduce(0) { $0 + $1.geolines.count }

    let buildStart = MonotonicClock.nanoseconds()
    var evaluator = try ZoneEvaluator(configuration: command.engineConfiguration, zones: zones)
    summary.indexBuildSeconds = MonotonicClock.seconds(since: buildStart)

    // Tracks.
    var options = TrackReadOptions()
    options.format = command.format
    options.strict = command.strict
    let readers = try command.tracks.map { try TrackReader(path: $0, options: options) }
    let writer = try command.events.map { try EventWriter(path: $0) }
    var batch: [LocationFix] = []
    batch.reserveCapacity(Self.batchSize)
    var events: [ZoneEvent] = []
    var lastTime: Timestamp?

    if command.presorted {
      var merge = try PresortedMerge(readers: readers)
      var done = 0
      while true {
        batch.removeAll(keepingCapacity: true)
        while batch.count < Self.batchSize, let fix = try merge.next() { batch.append(fix) }
        if batch.isEmpty { break }
        try evaluate(batch[...], with: &evaluator, events: &events, writer: writer)
        if let last = batch.last?.time { lastTime = max(lastTime ?? last, last) }
        done += batch.count
        progress.update(done: done, total: nil)
      }
    } else {
      let readStart = MonotonicClock.nanoseconds()
      var all: [LocationFix] = []
      for reader in readers {
        while let fix = try reader.next() { all.append(fix) }
      }
      all = Self.stableSortedByTime(all)
      summary.readSeconds = MonotonicClock.seconds(since: readStart)
      lastTime = all.last?.time
      var start = 0
      while start < all.count {
        let end = min(start + Self.batchSize, all.count)
        try evaluate(all[start..<end], with: &evaluator, events: &events, writer: writer)
        start = end
        progress.update(done: start, total: all.count)
      }
    }
    if let lastTime {
      events.removeAll(keepingCapacity: true)
      let start = MonotonicClock.nanoseconds()
      evaluator.advance(to: lastTime, into: &events)
      evaluationNanoseconds &+= MonotonicClock.nanoseconds() &- start
      try emit(events, writer: writer)
    }
    progress.finish()
    try writer?.close()

    // Counts.
    summary.fixesRead = readers.reduce(0) { $0 + $1.fixCount }
    summary.rowsSkipped = readers.reduce(0) { $0 + $1.skippedRowCount }
    for issue in readers.flatMap(\.issues).prefix(20) {
      printToStandardError("fencebench: warning: skipped \(issue)")
    }
    summary.fixesAccepted = evaluator.acceptedFixCount
    summary.rejections = evaluator.rejections
    summary.devices = evaluator.deviceCount
    summary.eventCounts = eventCounts
    summary.evaluationSeconds = Double(evaluationNanoseconds) / 1e9
    if command.latency, histogram.count > 0 {
      summary.latencyMicroseconds = RunSummary.Latency(
        p50: histogram.percentile(0.5) / 1000, p99: histogram.percentile(0.99) / 1000,
        p999: histogram.percentile(0.999) / 1000, max: Double(histogram.maximum) / 1000)
    }

    if let path = command.map {
      let renderer = MapRenderer(
        zones: zones, tracks: mapTracks, events: mapEvents, eventText: { $0.ndjsonLine },
        title: "fencebench run: " + command.tracks.map(Self.fileName).joined(separator: ", "))
      let output = try OutputFile(path: path)
      if path.lowercased().hasSuffix(".svg") {
        try renderer.writeSVG(to: output)
      } else {
        try renderer.writeHTML(to: output)
      }
      summary.map = path
    }
    summary.peakMemoryBytes = peakMemoryBytes()
    return summary
  }

  /// Evaluates one batch, timing it, then writes its events and keeps what the map needs.
  private mutating func evaluate(
    _ batch: ArraySlice<LocationFix>, with evaluator: inout ZoneEvaluator,
    events: inout [ZoneEvent], writer: EventWriter?
  ) throws {
    events.removeAll(keepingCapacity: true)
    let start = MonotonicClock.nanoseconds()
    if command.latency {
      var previous = start
      for fix in batch {
        evaluator.process(fix, into: &events)
        let now = MonotonicClock.nanoseconds()
        histogram.record(now &- previous)
        previous = now
      }
      evaluationNanoseconds &+= previous &- start
    } else {
      for fix in batch { evaluator.process(fix, into: &events) }
      evaluationNanoseconds &+= MonotonicClock.nanoseconds() &- start
    }
    if command.map != nil {
      for fix in batch where Coordinate.isValidForMap(fix) {
        let index: Int
        if let known = mapTrackIndex[fix.device] {
          index = known
        } else {
          index = mapTracks.count
          mapTrackIndex[fix.device] = index
          mapTracks.append(MapRenderer.Track(device: fix.device))
        }
        mapTracks[index].latitudes.append(fix.latitude)
        mapTracks[index].longitudes.append(fix.longitude)
      }
    }
    try emit(events, writer: writer)
  }

  private mutating func emit(_ events: [ZoneEvent], writer: EventWriter?) throws {
    for event in events {
      eventCounts[event.kind, default: 0] += 1
      if command.map != nil, event.kind != .monitoredSetChanged { mapEvents.append(event) }
    }
    try writer?.write(contentsOf: events)
  }

  /// Fixes sorted by time; fixes with equal times keep their input order (file order, then row
  /// order), as formats.md requires.
  static func stableSortedByTime(_ fixes: [LocationFix]) -> [LocationFix] {
    var keys = fixes.indices.map { (time: fixes[$0].time.microsecondsSinceEpoch, index: Int32($0)) }
    keys.sort { $0.time != $1.time ? $0.time < $1.time : $0.index < $1.index }
    return keys.map { fixes[Int($0.index)] }
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

/// A merge of track readers whose files are each in time order: returns the earliest head
/// fix each time, the lowest file index first on equal times (so the merge is stable).
///
/// A file that goes back in time is not an error here: its fixes are fed as they come and the
/// engine rejects those that are out of order for their device.
struct PresortedMerge {
  private let readers: [TrackReader]
  private var heads: [LocationFix?]

  init(readers: [TrackReader]) throws {
    self.readers = readers
    heads = try readers.map { try $0.next() }
  }

  mutating func next() throws -> LocationFix? {
    var best: Int?
    for index in heads.indices {
      guard let fix = heads[index] else { continue }
      if let b = best, let current = heads[b], current.time <= fix.time { continue }
      best = index
    }
    guard let best, let fix = heads[best] else { return nil }
    heads[best] = try readers[best].next()
    return fix
  }
}
