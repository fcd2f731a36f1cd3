/// The difference between the events a test expected and those the engine reported, line by
/// line, for a failure message a person can read.
///
/// Each event is one line: its time (`HH:MM:SS` on the scenario's day), kind, zone, then the
/// other compared fields as `name=value`. Lines are aligned with a longest common subsequence
/// of matching events; what is left between two aligned lines is paired into changed lines
/// (an expected and an actual event of the same kind and zone) or left as missing or extra:
///
/// ```
/// Events differ from the expected list: 1 missing (-), 1 extra (+), 1 changed (~ expected, > actual).
///   10:00:00  checkIn   depot
/// - 10:05:00  dwell     depot
/// ~ 10:07:00  checkOut  depot  duration=420
/// > 10:07:00  checkOut  depot  duration=300  (differs: duration)
/// + 10:08:00  checkIn   yard  fence=yard  device=truck
/// ```
///
/// Matched lines show the expectation as written; changed lines show the actual event with the
/// same fields as the expectation; extra lines show the actual event's kind, zone, fence,
/// device and whichever of direction, duration, on, off and reason it has.
public struct EventListDiff: Hashable, Sendable, CustomStringConvertible {
  /// One line of the diff.
  public enum Line: Hashable, Sendable {
    /// An expected event that happened.
    case same(String)
    /// An expected event that did not happen.
    case missing(String)
    /// An event that happened but was not expected.
    case extra(String)
    /// An expected event, and the event that happened in its place, with the names of the
    /// fields that differ.
    case changed(expected: String, actual: String, fields: [String])
  }

  public let lines: [Line]

  public var missingCount: Int {
    lines.filter { if case .missing = $0 { true } else { false } }.count
  }
  public var extraCount: Int { lines.filter { if case .extra = $0 { true } else { false } }.count }
  public var changedCount: Int {
    lines.filter { if case .changed = $0 { true } else { false } }.count
  }

  /// The diff as text: a summary line, then one line per event (two per changed event).
  public var description: String {
    var text =
      "Events differ from the expected list: \(missingCount) missing (-), "
      + "\(extraCount) extra (+), \(changedCount) changed (~ expected, > actual)."
    for line in lines {
      switch line {
      case .same(let event): text += "\n  " + event
      case .missing(let event): text += "\n- " + event
      case .extra(let event): text += "\n+ " + event
      case .changed(let expected, let actual, let fields):
        text += "\n~ " + expected
        text += "\n> " + actual + "  (differs: " + fields.joined(separator: ", ") + ")"
      }
    }
    return text
  }

  /// The diff of `actual` against `expected`, or `nil` when every expected event happened, in
  /// order, and nothing else did.
  ///
  /// - Complexity: O(*n* × *m*) for *n* expected and *m* actual events.
  public init?(expected: [ExpectedEvent], actual: [ZoneEvent], clock: ScenarioClock) {
    let times = expected.map { try? clock.timestamp($0.time) }
    func matches(_ i: Int, _ j: Int) -> Bool {
      guard let time = times[i] else { return false }
      return expected[i].mismatches(actual[j], expectedTime: time).isEmpty
    }
    let n = expected.count
    let m = actual.count
    // lengths[i][j]: the longest common subsequence of expected[i...] and actual[j...].
    var lengths = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
      for j in stride(from: m - 1, through: 0, by: -1) {
        lengths[i][j] =
          matches(i, j)
          ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
      }
    }
    guard lengths[0][0] < n || n != m else { return nil }

    let render = EventRendering(clock: clock)
    var lines: [Line] = []
    var gapExpected: [Int] = []
    var gapActual: [Int] = []
    func flushGap() {
      lines += Self.gapLines(
        expected: gapExpected, actual: gapActual, expectations: expected, events: actual,
        times: times, render: render)
      gapExpected.removeAll()
      gapActual.removeAll()
    }
    var i = 0
    var j = 0
    while i < n || j < m {
      if i < n, j < m, matches(i, j), lengths[i][j] == lengths[i + 1][j + 1] + 1 {
        flushGap()
        lines.append(.same(render.expected(expected[i], time: times[i])))
        i += 1
        j += 1
      } else if j < m, i == n || lengths[i][j + 1] >= lengths[i + 1][j] {
        gapActual.append(j)
        j += 1
      } else {
        gapExpected.append(i)
        i += 1
      }
    }
    flushGap()
    self.lines = lines
  }

  /// The lines of one stretch between aligned events.
  ///
  /// Expected events paired with an actual
  /// event of the same kind and zone (and device, when expected) become changed lines; the
  /// rest are missing or extra. Lines are merged by time, expected side first on ties.
  private static func gapLines(
    expected: [Int], actual: [Int], expectations: [ExpectedEvent], events: [ZoneEvent],
    times: [Timestamp?], render: EventRendering
  ) -> [Line] {
    var used = Set<Int>()
    var expectedSide: [(time: Timestamp?, line: Line)] = []
    for i in expected {
      let e = expectations[i]
      let partner = actual.first { j in
        !used.contains(j) && events[j].kind == e.kind && events[j].zone == e.zone
          && (e.device == nil || events[j].device == e.device)
      }
      let text = render.expected(e, time: times[i])
      if let j = partner, let time = times[i] {
        used.insert(j)
        let fields = e.mismatches(events[j], expectedTime: time)
        expectedSide.append(
          (
            time,
            .changed(expected: text, actual: render.actual(events[j], like: e), fields: fields)
          ))
      } else {
        expectedSide.append((times[i], .missing(text)))
      }
    }
    let actualSide = actual.filter { !used.contains($0) }.map {
      (time: events[$0].time, line: Line.extra(render.actual(events[$0])))
    }
    var lines: [Line] = []
    var a = 0
    var b = 0
    while a < expectedSide.count || b < actualSide.count {
      let takeExpected: Bool
      if a == expectedSide.count {
        takeExpected = false
      } else if b == actualSide.count {
        takeExpected = true
      } else if let time = expectedSide[a].time {
        takeExpected = time <= actualSide[b].time
      } else {
        takeExpected = true
      }
      if takeExpected {
        lines.append(expectedSide[a].line)
        a += 1
      } else {
        lines.append(actualSide[b].line)
        b += 1
      }
    }
    return lines
  }
}

/// How events and expectations are written on one line of a diff or a listing.
struct EventRendering {
  let clock: ScenarioClock

  /// An expectation as written: time, kind, zone, then the fields it names.
  func expected(_ e: ExpectedEvent, time: Timestamp?) -> String {
    var timeText: String
    if let time {
      timeText = clock.label(time)
      if e.timeTolerance > 0 { timeText += "±" + Self.number(e.timeTolerance) }
    } else {
      timeText = "invalid time \"\(e.time)\""
    }
    var fields: [(String, String)] = []
    if let fence = e.fence { fields.append(("fence", fence)) }
    if let device = e.device { fields.append(("device", device)) }
    if let direction = e.direction { fields.append(("direction", direction.rawValue)) }
    if let duration = e.durationSeconds { fields.append(("duration", Self.number(duration))) }
    if let on = e.on { fields.append(("on", Self.list(on))) }
    if let off = e.off { fields.append(("off", Self.list(off))) }
    if let reason = e.reason { fields.append(("reason", reason.rawValue)) }
    if let reason = e.checkOutReason { fields.append(("reason", reason.rawValue)) }
    return line(time: timeText, kind: e.kind, zone: e.zone, fields: fields)
  }

  /// An actual event with the fields an expectation names (`like`), or, without one, its
  /// kind, zone, fence, device and whichever of the other compared fields it has.
  func actual(_ event: ZoneEvent, like e: ExpectedEvent? = nil) -> String {
    var fields: [(String, String)] = []
    func add(_ name: String, _ value: String?, shown: Bool) {
      guard shown else { return }
      fields.append((name, value ?? "nil"))
    }
    add("fence", event.fence, shown: e.map { $0.fence != nil } ?? (event.fence != nil))
    add("device", event.device, shown: e.map { $0.device != nil } ?? true)
    add(
      "direction", event.direction?.rawValue,
      shown: e.map { $0.direction != nil } ?? (event.direction != nil))
    add(
      "duration", event.durationSeconds.map(Self.number),
      shown: e.map { $0.durationSeconds != nil } ?? (event.durationSeconds != nil))
    add("on", event.on.map(Self.list), shown: e.map { $0.on != nil } ?? (event.on != nil))
    add("off", event.off.map(Self.list), shown: e.map { $0.off != nil } ?? (event.off != nil))
    add(
      "reason", event.reason?.rawValue ?? event.checkOutReason?.rawValue,
      shown: e.map { $0.reason != nil || $0.checkOutReason != nil }
        ?? (event.reason != nil || event.checkOutReason != nil))
    return line(time: clock.label(event.time), kind: event.kind, zone: event.zone, fields: fields)
  }

  private func line(
    time: String, kind: ZoneEvent.Kind, zone: String?, fields: [(String, String)]
  ) -> String {
    var kindText = kind.rawValue
    if kindText.count < 8 { kindText += String(repeating: " ", count: 8 - kindText.count) }
    var text = time + "  " + kindText
    if let zone { text += "  " + zone }
    for (name, value) in fields { text += "  " + name + "=" + value }
    while text.hasSuffix(" ") { text.removeLast() }
    return text
  }

  /// A number without a trailing `.0` when it is whole.
  static func number(_ value: Double) -> String {
    if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }

  static func list(_ ids: [String]) -> String {
    "[" + ids.joined(separator: ",") + "]"
  }
}
