import FenceEngine
import FenceFormats

/// What `fencebench run` reports, as aligned text or as one JSON object (`--json`) with the
/// same fields.
///
/// JSON keys, in this order: `fixesRead`, `rowsSkipped`, `fixesAccepted`, `fixesRejected`,
/// `rejectedByReason` (every reason, zeros included), `zones`, `fences`, `geolines`,
/// `devices`, `loadSeconds`, `indexBuildSeconds`, `readSeconds` (reading and sorting tracks;
/// 0 with `--presorted`, where reading is interleaved), `evaluationSeconds`,
/// `throughputFixesPerSecond` (fixes read / evaluation seconds), `latencyMicroseconds`
/// (`p50`, `p99`, `p99.9`, `max`; `null` with `--no-latency`), `events`, `eventsByKind`
/// (every kind), `peakMemoryBytes`, and `map` when one was written.
struct RunSummary {
  struct Latency {
    var p50: Double
    var p99: Double
    var p999: Double
    var max: Double
  }

  var fixesRead = 0
  var rowsSkipped = 0
  var fixesAccepted = 0
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

  var throughput: Double {
    evaluationSeconds > 0 ? Double(fixesRead) / evaluationSeconds : 0
  }

  var eventTotal: Int { eventCounts.values.reduce(0, +) }

  var jsonObject: JSONObject {
    var object = JSONObject()
    object["fixesRead"] = .number(Double(fixesRead))
    object["rowsSkipped"] = .number(Double(rowsSkipped))
    object["fixesAccepted"] = .number(Double(fixesAccepted))
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
    if let latency = latencyMicroseconds {
      object["latencyMicroseconds"] = .object([
        "p50": .number(Self.rounded(latency.p50, 3)), "p99": .number(Self.rounded(latency.p99, 3)),
        "p99.9": .number(Self.rounded(latency.p999, 3)), "max": .number(Self.rounded(latency.max, 3)),
      ])
    } else {
      object["latencyMicroseconds"] = .null
    }
    object["events"] = .number(Double(eventTotal))
    var kinds = JSONObject()
    for kind in ZoneEvent.Kind.allCases { kinds[kind.rawValue] = .number(Double(eventCounts[kind, default: 0])) }
    object["eventsByKind"] = .object(kinds)
    object["peakMemoryBytes"] = .number(Double(peakMemoryBytes))
    if let map { object["map"] = .string(map) }
    return object
  }

  var jsonText: String {
    var out = ""
    JSONWriter.append(jsonObject, to: &out)
    return out
  }

  var text: String {
    var lines: [(String, String)] = []
    lines.append(("fixes read", "\(fixesRead)" + (rowsSkipped > 0 ? " (\(rowsSkipped) rows skipped)" : "")))
    lines.append(("accepted", "\(fixesAccepted)"))
    let reasons = RejectionReason.allCases.filter { rejections[$0] > 0 }
      .map { "\($0.rawValue) \(rejections[$0])" }.joined(separator: ", ")
    lines.append(("rejected", "\(rejections.total)" + (reasons.isEmpty ? "" : " (\(reasons))")))
    lines.append(("devices", "\(devices)"))
    lines.append(("zones", "\(zones) (\(fences) fences, \(geolines) GEOLINEs)"))
    lines.append(("load", Self.duration(loadSeconds)))
    lines.append(("index build", Self.duration(indexBuildSeconds)))
    if readSeconds > 0 { lines.append(("read + sort", Self.duration(readSeconds))) }
    let kinds = ZoneEvent.Kind.allCases.filter { eventCounts[$0, default: 0] > 0 }
      .map { "\($0.rawValue) \(eventCounts[$0, default: 0])" }.joined(separator: ", ")
    lines.append(("events", "\(eventTotal)" + (kinds.isEmpty ? "" : " (\(kinds))")))
    lines.append(("evaluation", Self.duration(evaluationSeconds)))
    lines.append(("throughput", "\(Self.grouped(Int(throughput.rounded()))) fixes/s"))
    if let l = latencyMicroseconds {
      lines.append((
        "latency", "p50 \(Self.micro(l.p50))  p99 \(Self.micro(l.p99))  p99.9 \(Self.micro(l.p999))  max \(Self.micro(l.max))"
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

  static func micro(_ us: Double) -> String { FixedDecimal.text(us, digits: 2) + " µs" }

  static func grouped(_ n: Int) -> String {
    let digits = Array(String(n))
    var out = ""
    for (i, d) in digits.enumerated() {
      if i > 0, (digits.count - i) % 3 == 0 { out += "," }
      out.append(d)
    }
    return out
  }
}
