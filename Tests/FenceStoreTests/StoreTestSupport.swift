import FenceEngine
import FenceFormats
import FenceStore
import FenceTestSupport
import FenceTesting
import Foundation
import Testing

// Shared helpers of the FenceStore tests: temporary directories, a crash copy of a running
// store's files, the in-memory reference (a plain `ZoneEvaluator` given the same commands), the
// harbor fixtures, a small hand-made story of zone changes and fixes, and the `sqlite3` tool.

// MARK: - Directories and files

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
final class TemporaryDirectory: Sendable {
  let path: String

  init(_ label: String = "store") throws {
    path = (NSTemporaryDirectory() as NSString).appendingPathComponent(
      "fencestore-tests-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// A path inside the directory (not created).
  func sub(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs `body` with a fresh temporary directory, removing it afterwards.
func withTemporaryDirectory<T>(
  _ label: String = "store", _ body: (TemporaryDirectory) throws -> T
) throws -> T {
  let directory = try TemporaryDirectory(label)
  defer { directory.remove() }
  return try body(directory)
}

/// ``withTemporaryDirectory(_:_:)`` for async bodies.
func withTemporaryDirectory<T>(
  _ label: String = "store", _ body: (TemporaryDirectory) async throws -> T
) async throws -> T {
  let directory = try TemporaryDirectory(label)
  defer { directory.remove() }
  return try await body(directory)
}

/// The files of the embedded store in a directory.
let storeFileNames = ["fence.sqlite", "fence.sqlite-wal", "fence.sqlite-shm"]

/// Copies a store's database files (those present) from `source` to a new directory
/// `destination` while the store in `source` may still be open: what a `kill -9` leaves on disk
/// between two commands (no snapshot on close, the last commits only in the WAL).
func crashCopy(from source: String, to destination: String) throws {
  let files = FileManager.default
  try files.createDirectory(atPath: destination, withIntermediateDirectories: true)
  var copied = 0
  for name in storeFileNames {
    let from = (source as NSString).appendingPathComponent(name)
    guard files.fileExists(atPath: from) else { continue }
    let data = try Data(contentsOf: URL(fileURLWithPath: from))
    try data.write(to: URL(fileURLWithPath: (destination as NSString).appendingPathComponent(name)))
    copied += 1
  }
  #expect(copied >= 2, "expected the database and its WAL in \(source)")
}

/// Opens a store on `directory` (fast commits: the tests simulate a killed process, which
/// `.normal` survives, by copying files).
func openStore(
  _ directory: String, snapshotEvery: Int = 1000,
  configuration: ZoneEvaluator.Configuration = .default,
  durability: SQLiteStorage.Durability = .normal, inBackground: Bool = true
) throws -> FenceStore {
  try FenceStore(
    directory: directory, configuration: configuration,
    options: FenceStore.Options(snapshotEvery: snapshotEvery, writesSnapshotsInBackground: inBackground),
    durability: durability)
}

// MARK: - Events

/// An engine NDJSON line with `"seq":N` spliced in as its first member, as the store writes it.
func lineWithSeq(_ line: String, _ seq: Int64) -> String {
  precondition(line.hasPrefix("{\"id\":"))
  return "{\"seq\":\(seq)," + line.dropFirst()
}

/// Every event line of a store, in seq order.
func allLines(_ store: FenceStore) throws -> [String] {
  try store.events(after: 0, limit: FenceStore.maximumEventsPerRead).map(\.line)
}

/// Every event of a store, read back from its lines.
func allEvents(_ store: FenceStore) throws -> [ZoneEvent] {
  try store.events(after: 0, limit: FenceStore.maximumEventsPerRead).map {
    try ZoneEvent(ndjsonLine: $0.line)
  }
}

/// Checks that the stored events carry seqs `first`, `first + 1`, … with no gap, each line's
/// `"seq"` being its row's.
func expectGapless(_ events: [StoredEvent], from first: Int64 = 1, sourceLocation: SourceLocation = #_sourceLocation) {
  for (offset, event) in events.enumerated() {
    let expected = first + Int64(offset)
    #expect(event.seq == expected, sourceLocation: sourceLocation)
    #expect(event.line.hasPrefix("{\"seq\":\(expected),\"id\":"), sourceLocation: sourceLocation)
  }
}

// MARK: - The in-memory reference

/// What a store must answer to a command, computed from the reference evaluator.
struct ExpectedAnswer: Hashable, CustomStringConvertible {
  var commandSeq: Int64
  var accepted = 0
  var rejected = RejectionCounts()
  var events = 0
  var firstSeq: Int64?
  var lastSeq: Int64?
  var zoneCounts: (zones: Int, fences: Int, geolines: Int)?
  var eventsByKind: [ZoneEvent.Kind: Int] = [:]

  static func == (a: Self, b: Self) -> Bool {
    a.commandSeq == b.commandSeq && a.accepted == b.accepted && a.rejected == b.rejected
      && a.events == b.events && a.firstSeq == b.firstSeq && a.lastSeq == b.lastSeq
      && a.zoneCounts?.zones == b.zoneCounts?.zones && a.zoneCounts?.fences == b.zoneCounts?.fences
      && a.zoneCounts?.geolines == b.zoneCounts?.geolines && a.eventsByKind == b.eventsByKind
  }

  func hash(into hasher: inout Hasher) { hasher.combine(commandSeq) }

  /// The answer's JSON as `fenced.md` spells it, written here independently of the store.
  var json: String {
    if let zoneCounts {
      return
        "{\"zones\":\(zoneCounts.zones),\"fences\":\(zoneCounts.fences),\"geolines\":\(zoneCounts.geolines)}"
    }
    let counts = RejectionReason.allCases.map { "\"\($0.rawValue)\":\(rejected[$0])" }
    let first = firstSeq.map { "\($0)" } ?? "null"
    let last = lastSeq.map { "\($0)" } ?? "null"
    return
      "{\"accepted\":\(accepted),\"rejected\":{\(counts.joined(separator: ","))},\"events\":\(events),\"firstSeq\":\(first),\"lastSeq\":\(last)}"
  }

  var description: String { "command \(commandSeq): \(json) \(eventsByKind)" }
}

/// Checks a store's answer field by field against the reference's (`eventsByKind` only on a
/// first answer: a replayed one has none).
func expectAnswer(
  _ actual: CommandAnswer?, _ expected: ExpectedAnswer?, replay: Bool = false,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard let expected else {
    #expect(actual == nil, sourceLocation: sourceLocation)
    return
  }
  guard let actual else {
    Issue.record("no answer; expected \(expected)", sourceLocation: sourceLocation)
    return
  }
  #expect(actual.commandSeq == expected.commandSeq, sourceLocation: sourceLocation)
  #expect(actual.accepted == expected.accepted, sourceLocation: sourceLocation)
  #expect(actual.rejected == expected.rejected, sourceLocation: sourceLocation)
  #expect(actual.events == expected.events, sourceLocation: sourceLocation)
  #expect(actual.firstSeq == expected.firstSeq, sourceLocation: sourceLocation)
  #expect(actual.lastSeq == expected.lastSeq, sourceLocation: sourceLocation)
  #expect(actual.zoneCounts?.zones == expected.zoneCounts?.zones, sourceLocation: sourceLocation)
  #expect(actual.zoneCounts?.fences == expected.zoneCounts?.fences, sourceLocation: sourceLocation)
  #expect(
    actual.zoneCounts?.geolines == expected.zoneCounts?.geolines, sourceLocation: sourceLocation)
  #expect(actual.isReplay == replay, sourceLocation: sourceLocation)
  #expect(actual.eventsByKind == (replay ? [:] : expected.eventsByKind), sourceLocation: sourceLocation)
  #expect(actual.json == expected.json, sourceLocation: sourceLocation)
}

/// A plain in-memory `ZoneEvaluator` given the same commands as a store: the events and answers
/// the store must reproduce.
struct Reference {
  var evaluator: ZoneEvaluator
  /// Every event line so far, `"seq"` spliced in.
  var lines: [String] = []
  /// The answers of the commands applied (removals of absent zones left out, as the store
  /// commits nothing for them).
  var answers: [ExpectedAnswer] = []

  init(configuration: ZoneEvaluator.Configuration = .default) {
    evaluator = ZoneEvaluator(configuration: configuration)
  }

  var commandSeq: Int64 { Int64(answers.count) }
  var eventSeq: Int64 { Int64(lines.count) }

  /// Applies a command as the store does; `nil` for the removal of an absent zone.
  @discardableResult
  mutating func apply(_ command: StoreCommand) throws -> ExpectedAnswer? {
    var answer = ExpectedAnswer(commandSeq: commandSeq + 1)
    var events: [ZoneEvent] = []
    let acceptedBefore = evaluator.acceptedFixCount
    let rejectedBefore = evaluator.rejections
    switch command {
    case .fixes(let fixes):
      for fix in fixes { evaluator.process(fix, into: &events) }
    case .advance(let time):
      evaluator.advance(to: time, into: &events)
    case .addZones(let zones):
      try evaluator.add(zones)
      evaluator.emitZoneChangeEvents(into: &events)
    case .replaceAllZones(let zones):
      try evaluator.replaceAll(with: zones)
      evaluator.emitZoneChangeEvents(into: &events)
    case .removeZone(let id):
      guard evaluator.remove(zoneID: id) else { return nil }
      evaluator.emitZoneChangeEvents(into: &events)
    case .setDeviceTags(let device, let tags):
      evaluator.setTags(tags, forDevice: device)
    }
    switch command {
    case .setDeviceTags:
      break
    case .fixes, .advance:
      answer.accepted = evaluator.acceptedFixCount - acceptedBefore
      for reason in RejectionReason.allCases {
        answer.rejected[reason] = evaluator.rejections[reason] - rejectedBefore[reason]
      }
      answer.events = events.count
      if !events.isEmpty {
        answer.firstSeq = eventSeq + 1
        answer.lastSeq = eventSeq + Int64(events.count)
      }
      for event in events { answer.eventsByKind[event.kind, default: 0] += 1 }
    case .addZones, .replaceAllZones, .removeZone:
      if !events.isEmpty {
        answer.events = events.count
        answer.firstSeq = eventSeq + 1
        answer.lastSeq = eventSeq + Int64(events.count)
        for event in events { answer.eventsByKind[event.kind, default: 0] += 1 }
      }
      let zones = evaluator.zones
      answer.zoneCounts = (
        zones.count, zones.reduce(0) { $0 + $1.fences.count },
        zones.reduce(0) { $0 + $1.geolines.count }
      )
    }
    for event in events {
      lines.append(lineWithSeq(event.ndjsonLine, eventSeq + 1))
    }
    answers.append(answer)
    return answer
  }

  /// The reference after `commands`.
  static func run(
    _ commands: [StoreCommand], configuration: ZoneEvaluator.Configuration = .default
  ) throws -> Reference {
    var reference = Reference(configuration: configuration)
    for command in commands { try reference.apply(command) }
    return reference
  }

  /// The event seq reached after the first `count` commands.
  func eventSeq(afterCommands count: Int) -> Int64 {
    answers.prefix(count).reduce(0) { $1.lastSeq ?? $0 }
  }

  /// Events produced by the commands at these 0-based positions (seq = position + 1).
  func eventCount(ofCommands positions: Range<Int>) -> Int {
    answers[positions].reduce(0) { $0 + $1.events }
  }
}

/// Fixes in the commands.
func fixCount(_ commands: some Sequence<StoreCommand>) -> Int {
  commands.reduce(0) {
    if case .fixes(let fixes) = $1 { return $0 + fixes.count }
    return $0
  }
}

// MARK: - The harbor fixtures

enum Harbor {
  static let zonesPath = fixturePath("zones/nyharbor-zones.geojson")
  static let tracksPath = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")

  static func zones() throws -> [Zone] { try ZoneLoader.loadZones(contentsOf: zonesPath) }

  /// Every fix of the first hour, sorted stably by time, as `fencebench run` feeds them.
  static func fixes() throws -> [LocationFix] {
    let fixes = try TrackReader(path: tracksPath).readAll()
    return fixes.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }.map(\.element)
  }

  /// The zones, then the fixes in batches of `batchSize`, then an advance to the last fix's
  /// time (what `fencebench run` does).
  static func commands(batchSize: Int) throws -> [StoreCommand] {
    let fixes = try fixes()
    var commands: [StoreCommand] = [.replaceAllZones(try zones())]
    var start = 0
    while start < fixes.count {
      let end = min(start + batchSize, fixes.count)
      commands.append(.fixes(Array(fixes[start..<end])))
      start = end
    }
    commands.append(.advance(fixes.last!.time))
    return commands
  }
}

// MARK: - A hand-made story

/// 2020-06-30T00:00:00Z, in seconds since the epoch.
let storyEpoch: Int64 = 1_593_475_200

/// The instant `seconds` after 2020-06-30T00:00:00Z.
func at(_ seconds: Double) -> Timestamp {
  Timestamp(microsecondsSinceEpoch: storyEpoch * 1_000_000 + Int64((seconds * 1e6).rounded()))
}

/// Seconds from 2020-06-30T00:00:00Z to `time`.
func secondsOf(_ time: Timestamp) -> Double {
  Double(time.microsecondsSinceEpoch - storyEpoch * 1_000_000) / 1e6
}

/// The origin of the hand-made scenarios, in New York Harbor.
let base = Coordinate(uncheckedLatitude: 40.6, longitude: -74.0)

/// A fix of `device` at `seconds`, at `position`.
func fix(
  _ device: String, _ seconds: Double, _ position: Coordinate, accuracy: Double? = nil
) -> LocationFix {
  LocationFix(
    device: device, time: at(seconds), latitude: position.latitude,
    longitude: position.longitude, accuracy: accuracy)
}

/// One line per event: seconds, kind, device, zone/fence, and the kind's own fields.
func describe(_ e: ZoneEvent) -> String {
  func number(_ value: Double) -> String {
    value == value.rounded() ? String(Int64(value)) : String(value)
  }
  var parts = [number(secondsOf(e.time)), e.kind.rawValue, e.device]
  if e.zone != nil || e.fence != nil { parts.append("\(e.zone ?? "-")/\(e.fence ?? "-")") }
  if let direction = e.direction { parts.append(direction.rawValue) }
  if let checkInTime = e.checkInTime { parts.append("in=\(number(secondsOf(checkInTime)))") }
  if let duration = e.durationSeconds { parts.append("duration=\(number(duration))") }
  if let reason = e.reason { parts.append(reason.rawValue) }
  return parts.joined(separator: " ")
}

/// A story of thirteen commands over five devices and five zones: zones set, fixes, a clock
/// advance while dwells are pending, a zone added, a zone replaced with another radius, the
/// whole set replaced (a GEOLINE zone dropped, a zone without check-out added), a zone removed,
/// more fixes and a final advance. Devices hold rich state at every boundary: pending dwells,
/// pending exits (exit confirmations), MRT windows, hysteresis; some fixes are rejected.
enum Story {
  static let depot = try! Zone.circle(
    "depot", center: base, radius: 150, rules: ZoneRules(minimumRetriggerTime: 30, dwell: 60),
    customData: ["v": .number(1)])
  static let depotWider = try! Zone.circle(
    "depot", center: base, radius: 300, rules: ZoneRules(minimumRetriggerTime: 30, dwell: 60),
    customData: ["v": .number(2)])
  static let yardCenter = base.moved(north: 1000)
  static let yard = try! Zone.polygon(
    "yard",
    [
      yardCenter.moved(north: -200, east: -200), yardCenter.moved(north: -200, east: 200),
      yardCenter.moved(north: 200, east: 200), yardCenter.moved(north: 200, east: -200),
    ], rules: ZoneRules(dwell: 120, exitConfirmations: 2), customData: ["kind": .string("yard")])
  static let gate = try! Zone.geoline(
    "gate", [base.moved(north: 500, east: -300), base.moved(north: 500, east: 300)],
    rules: ZoneRules(minimumRetriggerTime: 60))
  static let pier = Zone(
    id: "pier", fences: [try! .point(id: "pier-point", at: base.moved(east: 800))],
    rules: ZoneRules(exitHysteresis: 20))
  static let dock = try! Zone.circle(
    "dock", center: base.moved(north: 1000, east: 800), radius: 120,
    rules: ZoneRules(checkOut: false))

  /// Where each device is at `t` seconds.
  static func position(_ device: String, _ t: Double) -> Coordinate {
    switch device {
    case "a":
      // Shuttles between the depot and the yard at 10 m/s, crossing the gate.
      let phase = t.truncatingRemainder(dividingBy: 240) / 120
      let north = phase <= 1 ? phase * 1200 : (2 - phase) * 1200
      return base.moved(north: north - 50)
    case "b":
      // Circles the depot at 800 m every 600 s, through the pier.
      let angle = t / 600 * 2 * Double.pi
      return base.moved(north: 800 * sin(angle), east: 800 * cos(angle))
    case "c":
      // Stays in the depot, jittering, then goes to the dock and stays.
      if t < 400 {
        let j = Double((Int(t) / 10) % 5) * 8 - 16
        return base.moved(north: j, east: -j)
      }
      return base.moved(north: 1000, east: 800 + Double((Int(t) / 10) % 3) * 10)
    case "e":
      // Arrives in the yard at 200 s and stays (its dwell falls due at 320 s, during the clock
      // advance), then leaves at 600 s.
      if t < 200 || t >= 600 { return base.moved(north: 3000, east: -2000) }
      return yardCenter.moved(east: Double((Int(t) / 10) % 4) * 5)
    default:
      // Hovers on the yard's northern edge: in, out, in, out (exits never confirmed), then out.
      if t >= 700 { return yardCenter.moved(north: 600) }
      let out = (Int(t) / 10) % 2 == 1
      return yardCenter.moved(north: out ? 215 : 185)
    }
  }

  /// Every device's fixes for each 10 s step in `from..<to`, with a few bad ones: a duplicate,
  /// an out-of-order and a low-accuracy fix.
  static func fixes(_ from: Int, _ to: Int) -> StoreCommand {
    var fixes: [LocationFix] = []
    for t in stride(from: from, to: to, by: 10) {
      for device in ["a", "b", "c", "d", "e"] {
        fixes.append(fix(device, Double(t), position(device, Double(t))))
      }
      if t % 70 == 0 { fixes.append(fix("a", Double(t), position("a", Double(t)))) }  // duplicate
      if t % 110 == 0 && t > from { fixes.append(fix("b", Double(t - 5), base)) }  // out of order
      if t % 130 == 0 { fixes.append(fix("c", Double(t) + 5, base, accuracy: 500)) }  // low accuracy
    }
    return .fixes(fixes)
  }

  static let commands: [StoreCommand] = [
    .replaceAllZones([depot, yard, gate]),
    fixes(0, 150),
    fixes(150, 300),
    .advance(at(360)),
    .addZones([pier]),
    fixes(360, 500),
    .addZones([depotWider]),
    fixes(500, 650),
    .replaceAllZones([depotWider, yard, pier, dock]),
    fixes(650, 800),
    .removeZone("yard"),
    fixes(800, 950),
    .advance(at(1100)),
  ]
}

// MARK: - sqlite3

/// Runs the `sqlite3` command-line tool on a database and returns what it printed.
@discardableResult
func sqlite3(_ database: String, _ sql: String) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["sqlite3", database, sql]
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw SQLite3Failure(message: "sqlite3 exited with \(process.terminationStatus): \(problems)")
  }
  return text
}

struct SQLite3Failure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

// MARK: - Storage wrappers

/// The embedded storage behind every call, for tests that change what one or two calls do (a
/// failing append, a held snapshot write) by overriding them.
///
/// `@unchecked Sendable`: a subclass adds only thread-safe state (mutexes, semaphores).
class SQLiteForwardingStorage: FenceStorage, @unchecked Sendable {
  let base: SQLiteStorage

  init(path: String) throws { base = try SQLiteStorage(path: path, durability: .normal) }

  func append(_ commit: CommandCommit) throws { try base.append(commit) }
  func writeSnapshot(_ snapshot: SnapshotRecord) throws { try base.writeSnapshot(snapshot) }
  func head() throws -> (commandSeq: Int64, eventSeq: Int64) { try base.head() }
  func metadata(_ key: String) throws -> String? { try base.metadata(key) }
  func setMetadata(_ key: String, _ value: String) throws { try base.setMetadata(key, value) }
  func answer(forIdempotencyKey key: String) throws -> (commandSeq: Int64, answer: String)? {
    try base.answer(forIdempotencyKey: key)
  }
  func commands(after seq: Int64, limit: Int) throws -> [StoredCommandRecord] {
    try base.commands(after: seq, limit: limit)
  }
  func events(after seq: Int64, limit: Int) throws -> [StoredEvent] {
    try base.events(after: seq, limit: limit)
  }
  func latestSnapshot() throws -> SnapshotRecord? { try base.latestSnapshot() }
  func cursor(_ name: String) throws -> Int64? { try base.cursor(name) }
  func setCursor(_ name: String, to seq: Int64) throws { try base.setCursor(name, to: seq) }
  func cursors() throws -> [String: Int64] { try base.cursors() }
  func compact(_ plan: CompactionPlan) throws -> CompactionReport { try base.compact(plan) }
  func close() throws { try base.close() }
}
