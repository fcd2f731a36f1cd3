import FenceEngine
import FenceFormats

/// What `fencebench run` reports, as aligned text or as one JSON object (`--json`) with the
/// same fields.
///
/// JSON keys, in this order: `fixesRead`, `rowsSkipped`, `fixesAccepted`,
/// `fixesSkippedUnchanged` (only with `--skip-unchanged`), `fixesRejected`,
/// `rejectedByReason` (every reason, zeros included), `zones`, `fences`, `geolines`,
/// `devices`, `loadSeconds`, `indexBuildSeconds`, `readSeconds` (reading and sorting tracks;
/// 0 with `--presorted`, where reading is interleaved), `evaluationSeconds`,
/// `throughputFixesPerSecond` (fixes read / evaluation seconds), `latencyMicroseconds`
/// (`p50`, `p99`, `p99.9`, `max`; `null` with `--no-latency`), `events`, `eventsByKind`
/// (every kind), `peakMemoryBytes`, `readRowsPerSecond` (track rows read and sorted per second;
/// 0 with `--presorted`), `map` when one was written, and `compareGEOS` with `--compare-geos`
/// (see ``GEOSComparison``), `cellCache` (with the native backend: `hits`, `fills`,
/// `firstVisits`, `bypassed`), and `zoneChanges` with `--zone-changes` (see ``ZoneChanges``).
struct RunSummary {
  /// Per-fix latency percentiles, in microseconds.
  struct Latency {
    var p50: Double
    var p99: Double
    var p999: Double
    var max: Double
  }

  /// The plain GEOS loop of `--compare-geos` beside the engine.
  ///
  /// JSON keys, in this order: `buildSeconds` (GEOS tree and prepared polygons),
  /// `evaluationSeconds`, `throughputFixesPerSecond`, `latencyMicroseconds` (or `null`),
  /// `speedup` (GEOS loop time / engine time: how many times faster the engine is),
  /// `fenceKitContainments` and `geosContainments` ((fix, fence) pairs with the fix in the
  /// fence), `disagreeingFixes` and `agree`.
  struct GEOSComparison {
    var buildSeconds: Double
    var evaluationSeconds: Double
    var fixes: Int
    var fenceKitContainments: Int
    var geosContainments: Int
    var disagreeingFixes: Int
    var speedup = 0.0
    var latencyMicroseconds: Latency?

    var throughput: Double { evaluationSeconds > 0 ? Double(fixes) / evaluationSeconds : 0 }
    var agrees: Bool { disagreeingFixes == 0 && fenceKitContainments == geosContainments }
  }

  /// What `--zone-changes` did.
  ///
  /// JSON keys, in this order: `changes` (lines of the file), `zonesAdded`, `zonesReplaced`,
  /// `zonesRemoved`, `zonesAfter` and `fencesAfter` (the zone set at the end), `seconds`
  /// (applying the changes, outside `evaluationSeconds`), `slowestChangeSeconds`, then the evaluation split at the
  /// changes: `fixesBefore` and `evaluationSecondsBefore` (fixes before the first change),
  /// `fixesAfter` and `evaluationSecondsAfter` (fixes after the last one), with their
  /// `nanosecondsPerFixBefore` and `nanosecondsPerFixAfter`.
  struct ZoneChanges {
    var changes = 0
    var added = 0
    var replaced = 0
    var removed = 0
    var zonesAfter = 0
    var fencesAfter = 0
    var nanoseconds: UInt64 = 0
    var slowestNanoseconds: UInt64 = 0
    var fixesBefore = 0
    var evaluationNanosecondsBefore: UInt64 = 0
    var fixesAfter = 0
    var evaluationNanosecondsAfter: UInt64 = 0

    var seconds: Double { Double(nanoseconds) / 1e9 }
    var perFixBefore: Double { fixesBefore > 0 ? Double(evaluationNanosecondsBefore) / Double(fixesBefore) : 0 }
    var perFixAfter: Double { fixesAfter > 0 ? Double(evaluationNanosecondsAfter) / Double(fixesAfter) : 0 }
  }

  var fixesRead = 0
  var rowsSkipped = 0
  var fixesAccepted = 0
  /// With `--skip-unchanged`: accepted fixes that skipped the geometric tests.
  var fixesSkipped: Int?
  var rejections = RejectionCounts()
  var zones = 0
  var fences = 0
  var geolines = 0
  var devices = 0
  var loadSeconds = 0.0
  var indexBuildSeconds = 0.0
  var readSeconds = 0.0
  var evaluationSeconds = 0.0
  var latencyMicroseconds: Latency?
  var eventCounts: [ZoneEvent.Kind: Int] = [:]
  var peakMemoryBytes = 0
  var map: String?
  var compareGEOS: GEOSComparison?
  var zoneChanges: ZoneChanges?
  /// Where the engine's containment answers came from: `hits` (a device's cell memo, a filed
  /// cell or parent), `fills` (cells filed), `firstVisits` (first fix in a parent: the index)
  /// and `bypassed` (the cache was not paying: the index), and `settled` (hits whose device
  /// was settled in its cell: timers only, ``ZoneEvaluator/settledFixCount``); `nil` with the
  /// cache off.
  var cellCache: (hits: Int, fills: Int, firstVisits: Int, bypassed: Int, settled: Int)?

  /// Track rows (fixes and skipped rows) read and sorted per second; 0 when not measured.
  var readRowsPerSecond: Double {
    readSeconds > 0 ? Double(fixesRead + rowsSkipped) / readSeconds : 0
  }

  var throughput: Double {
    evaluationSeconds > 0 ? Double(fixesRead) / evaluationSeconds : 0
  }

  var eventTotal: Int { eventCounts.values.reduce(0, +) }

  var jsonObject: JSONObject {
    var object = JSONObject()
    object["fixesRead"] = .number(Double(fixesRead))
    object["rowsSkipped"] = .number(Double(rowsSkipped))
    object["fixesAccepted"] = .number(Double(fixesAccepted))
    if let fixesSkipped { object["fixesSkippedUnchanged"] = .number(Double(fixesSkipped)) }
    object["fixesRejected"] = .number(Double(rejections.total))
    var reasons = JSONObject()
    for reason in RejectionReason.allCases {
      reasons[reason.rawValue] = .number(Double(rejections[reason]))
    }
    object["rejectedByReason"] = .object(reasons)
    object["zones"] = .number(Double(zones))
    object["fences"] = .number(Double(fences))
    object["geolines"] = .number(Double(geolines))
    object["devices"] = .number(Double(devices))
    object["loadSeconds"] = .number(Self.rounded(loadSeconds, 6))
    object["indexBuildSeconds"] = .number(Self.rounded(indexBuildSeconds, 6))
    object["readSeconds"] = .number(Self.rounded(readSeconds, 6))
    object["evaluationSeconds"] = .number(Self.rounded(evaluationSeconds, 6))
    object["throughputFixesPerSecond"] = .number(throughput.rounded())
    object["latencyMicroseconds"] = Self.json(latencyMicroseconds)
    object["events"] = .number(Double(eventTotal))
    var kinds = JSONObject()
    for kind in ZoneEvent.Kind.allCases { kinds[kind.rawValue] = .number(Double(eventCounts[kind, default: 0])) }
    object["eventsByKind"] = .object(kinds)
    object["peakMemoryBytes"] = .number(Double(peakMemoryBytes))
    object["readRowsPerSecond"] = .number(readRowsPerSecond.rounded())
    if let map { object["map"] = .string(map) }
    if let geos = compareGEOS {
      var comparison = JSONObject()
      comparison["buildSeconds"] = .number(Self.rounded(geos.buildSeconds, 6))
      comparison["evaluationSeconds"] = .number(Self.rounded(geos.evaluationSeconds, 6))
      comparison["throughputFixesPerSecond"] = .number(geos.throughput.rounded())
      comparison["latencyMicroseconds"] = Self.json(geos.latencyMicroseconds)
      comparison["speedup"] = .number(Self.rounded(geos.speedup, 3))
      comparison["fenceKitContainments"] = .number(Double(geos.fenceKitContainments))
      comparison["geosContainments"] = .number(Double(geos.geosContainments))
      comparison["disagreeingFixes"] = .number(Double(geos.disagreeingFixes))
      comparison["agree"] = .bool(geos.agrees)
      object["compareGEOS"] = .object(comparison)
    }
    if let cache = cellCache {
      object["cellCache"] = .object([
        "hits": .number(Double(cache.hits)), "fills": .number(Double(cache.fills)),
        "firstVisits": .number(Double(cache.firstVisits)), "bypassed": .number(Double(cache.bypassed)),
        "settled": .number(Double(cache.settled)),
      ])
    }
    if let changes = zoneChanges {
      var c = JSONObject()
      c["changes"] = .number(Double(changes.changes))
      c["zonesAdded"] = .number(Double(changes.added))
      c["zonesReplaced"] = .number(Double(changes.replaced))
      c["zonesRemoved"] = .number(Double(changes.removed))
      c["zonesAfter"] = .number(Double(changes.zonesAfter))
      c["fencesAfter"] = .number(Double(changes.fencesAfter))
      c["seconds"] = .number(Self.rounded(changes.seconds, 6))
      c["slowestChangeSeconds"] = .number(Self.rounded(Double(changes.slowestNanoseconds) / 1e9, 6))
      c["fixesBefore"] = .number(Double(changes.fixesBefore))
      c["evaluationSecondsBefore"] = .number(Self.rounded(Double(changes.evaluationNanosecondsBefore) / 1e9, 6))
      c["fixesAfter"] = .number(Double(changes.fixesAfter))
      c["evaluationSecondsAfter"] = .number(Self.rounded(Double(changes.evaluationNanosecondsAfter) / 1e9, 6))
      c["nanosecondsPerFixBefore"] = .number(Self.rounded(changes.perFixBefore, 1))
      c["nanosecondsPerFixAfter"] = .number(Self.rounded(changes.perFixAfter, 1))
      object["zoneChanges"] = .object(c)
    }
    return object
  }

  static func json(_ latency: Latency?) -> JSONValue {
    guard let latency else { return .null }
    return .object([
      "p50": .number(rounded(latency.p50, 3)), "p99": .number(rounded(latency.p99, 3)),
      "p99.9": .number(rounded(latency.p999, 3)), "max": .number(rounded(latency.max, 3)),
    ])
  }

  var jsonText: String {
    var out = ""
    JSONWriter.append(jsonObject, to: &out)
    return out
  }

  var text: String {
    var lines: [(String, String)] = []
    lines.append(("fixes read", "\(fixesRead)" + (rowsSkipped > 0 ? " (\(rowsSkipped) rows skipped)" : "")))
    lines.append((
      "accepted",
      "\(fixesAccepted)" + (fixesSkipped.map { " (\($0) skipped the geometric tests)" } ?? "")
    ))
    let reasons = RejectionReason.allCases.filter { rejections[$0] > 0 }
      .map { "\($0.rawValue) \(rejections[$0])" }.joined(separator: ", ")
    lines.append(("rejected", "\(rejections.total)" + (reasons.isEmpty ? "" : " (\(reasons))")))
    lines.append(("devices", "\(devices)"))
    lines.append(("zones", "\(zones) (\(fences) fences, \(geolines) GEOLINEs)"))
    lines.append(("load", Self.duration(loadSeconds)))
    lines.append(("index build", Self.duration(indexBuildSeconds)))
    if readSeconds > 0 {
      lines.append((
        "read + sort",
        Self.duration(readSeconds) + " (\(Self.grouped(Int(readRowsPerSecond.rounded()))) rows/s)"
      ))
    }
    let kinds = ZoneEvent.Kind.allCases.filter { eventCounts[$0, default: 0] > 0 }
      .map { "\($0.rawValue) \(eventCounts[$0, default: 0])" }.joined(separator: ", ")
    lines.append(("events", "\(eventTotal)" + (kinds.isEmpty ? "" : " (\(kinds))")))
    lines.append(("evaluation", Self.duration(evaluationSeconds)))
    lines.append(("throughput", "\(Self.grouped(Int(throughput.rounded()))) fixes/s"))
    if let l = latencyMicroseconds { lines.append(("latency", Self.percentiles(l))) }
    if let cache = cellCache {
      lines.append((
        "cell cache",
        "\(cache.hits) hits (\(cache.settled) settled), \(cache.fills) fills, "
          + "\(cache.firstVisits) first visits, \(cache.bypassed) bypassed"
      ))
    }
    if let geos = compareGEOS {
      lines.append(("GEOS build", Self.duration(geos.buildSeconds)))
      lines.append(("GEOS loop", Self.duration(geos.evaluationSeconds)))
      lines.append(("GEOS throughput", "\(Self.grouped(Int(geos.throughput.rounded()))) fixes/s"))
      if let l = geos.latencyMicroseconds { lines.append(("GEOS latency", Self.percentiles(l))) }
      lines.append(("speed-up", FixedDecimal.text(geos.speedup, digits: 2) + "x the GEOS loop"))
      lines.append((
        "containments",
        geos.agrees
          ? "\(Self.grouped(geos.geosContainments)) (FenceKit and GEOS agree on every fix)"
          : "FenceKit \(Self.grouped(geos.fenceKitContainments)), GEOS \(Self.grouped(geos.geosContainments)): \(geos.disagreeingFixes) fixes DISAGREE"
      ))
    }
    if let changes = zoneChanges {
      lines.append((
        "zone changes",
        "\(changes.changes) (\(changes.added) zones added, \(changes.replaced) replaced, "
          + "\(changes.removed) removed) in \(Self.duration(changes.seconds)) "
          + "(slowest \(Self.duration(Double(changes.slowestNanoseconds) / 1e9))); "
          + "\(changes.zonesAfter) zones (\(changes.fencesAfter) fences) after"
      ))
      lines.append((
        "per fix",
        FixedDecimal.text(changes.perFixBefore, digits: 1) + " ns before the changes (\(changes.fixesBefore) fixes), "
          + FixedDecimal.text(changes.perFixAfter, digits: 1) + " ns after (\(changes.fixesAfter) fixes)"
      ))
    }
    lines.append(("peak memory", "\(FixedDecimal.text(Double(peakMemoryBytes) / 1_048_576, digits: 1)) MiB"))
    if let map { lines.append(("map", map)) }
    let width = lines.map(\.0.count).max() ?? 0
    return lines.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1 }
      .joined(separator: "\n")
  }

  static func rounded(_ x: Double, _ digits: Int) -> Double {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    return (x * scale).rounded() / scale
  }

  static func duration(_ seconds: Double) -> String {
    seconds < 1
      ? FixedDecimal.text(seconds * 1000, digits: 2) + " ms" : FixedDecimal.text(seconds, digits: 3) + " s"
  }

  static func percentiles(_ l: Latency) -> String {
    "p50 \(micro(l.p50))  p99 \(micro(l.p99))  p99.9 \(micro(l.p999))  max \(micro(l.max))"
  }

  static func micro(_ us: Double) -> String { FixedDecimal.text(us, digits: 2) + " µs" }

  static func grouped(_ n: Int) -> String {
    guard n >= 0 else { return "-" + grouped(-n) }
    let digits = Array(String(n))
    var out = ""
    for (i, d) in digits.enumerated() {
      if i > 0, (digits.count - i) % 3 == 0 { out += "," }
      out.append(d)
    }
    return out
  }
}

extension RunSummary.Latency {
  /// The p50, p99, p99.9 and maximum of a histogram of nanoseconds, in microseconds.
  init(_ histogram: LatencyHistogram) {
    self.init(
      p50: histogram.percentile(0.5) / 1000, p99: histogram.percentile(0.99) / 1000,
      p999: histogram.percentile(0.999) / 1000, max: Double(histogram.maximum) / 1000)
  }
}
