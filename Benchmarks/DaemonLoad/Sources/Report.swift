import ArgumentParser
import Foundation

/// `DaemonLoad report`: the results file as markdown tables, with the machine and the targets.
struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report", abstract: "Turns a results file (JSON lines) into markdown tables.")

  @Option(help: ArgumentHelp("The results file the scenarios appended to.", valueName: "file"))
  var results: String

  @Option(help: ArgumentHelp("Write the markdown here (default: standard output).", valueName: "file"))
  var output: String?

  @Option(help: ArgumentHelp("What was measured (commit, and whether the tree was clean).", valueName: "text"))
  var commit: String = "?"

  @Option(help: ArgumentHelp("The exact command that produced the results.", valueName: "text"))
  var command: String?

  @Option(help: ArgumentHelp("Toolchain line (swift --version).", valueName: "text"))
  var toolchain: String?

  func run() throws {
    let text = try String(contentsOfFile: results, encoding: .utf8)
    let decoder = JSONDecoder()
    let records = try text.split(separator: "\n").map { try decoder.decode(Record.self, from: Data($0.utf8)) }
    var out = "# fenced under load (DaemonLoad)\n\n"
    if records.allSatisfy({ $0.cluster != nil }) {
      out += "Produced by `Benchmarks/Scripts/cluster-ingest` (see `Docs/Scaling.md`, \"Several processes on PostgreSQL\").\n\n"
    } else {
      out += "Produced by `Benchmarks/Scripts/daemon-bench` (see `Docs/Daemon-Performance.md`).\n\n"
    }
    out += machineTable(records)
    out += clusterTables(records)
    out += ingestTable(records)
    out += recoveryTable(records)
    out += lagTable(records)
    out += targets(records)
    if let output {
      try out.write(toFile: output, atomically: true, encoding: .utf8)
    } else {
      print(out, terminator: "")
    }
  }

  // MARK: - Sections

  func machineTable(_ records: [Record]) -> String {
    var out = "| | |\n| --- | --- |\n"
    out += "| date | \(records.first?.date ?? "?") to \(records.last?.date ?? "?") |\n"
    out += "| CPU | \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores online |\n"
    out += "| memory | \(String(format: "%.1f", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)) GiB |\n"
    out += "| OS | \(osName()), kernel \(kernel()) |\n"
    if let toolchain { out += "| toolchain | \(toolchain) |\n" }
    out += "| fenced | \(commit), release build |\n"
    if let first = records.first {
      out += "| zones | \(first.zones) (recovery also on the harbor zones where said) |\n"
      out += "| fixes | \(first.tracks), stably sorted by time, repeated in laps shifted by whole days |\n"
    }
    let loads = records.flatMap { $0.loadBefore.prefix(1) + $0.loadAfter.prefix(1) }
    if let low = loads.min(), let high = loads.max() {
      out += "| load average (1 min) | \(String(format: "%.2f", low)) to \(String(format: "%.2f", high)) before/after the scenarios |\n"
    }
    if let command { out += "| command | `\(command)` |\n" }
    return out + "\n"
  }

  func ingestTable(_ records: [Record]) -> String {
    let rows = records.compactMap { record in record.ingest.map { (record, $0) } }
    guard !rows.isEmpty else { return "" }
    var out = "## Ingest: one daemon, NDJSON batches over loopback\n\n"
    out += "Fixes/s acknowledged is wall clock, first request sent to last answer read, over every client. "
    out += "Latency is per batch, request sent to answer read. \"memory ÷ this\" is the in-memory run's fixes/s "
    out += "(same batch size and clients) over this row's: the cost of durability. CPU is what fenced used during "
    out += "the timed part (user + system), per fix. \"without slowest\" (1 client) leaves out the slowest batch, fixes "
    out += "and time: with 500 or more commands it is the first snapshot of the process, which writes the zone set "
    out += "(seconds with tz-world).\n\n"
    out += "| storage | batch | clients | fixes | requests | fixes/s | without slowest | p50 ms | p90 ms | p99 ms | max ms | memory ÷ this | fenced CPU µs/fix (user+sys) | client CPU s | events | peak RSS MiB | load before |\n"
    out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    for (position, (record, row)) in rows.enumerated() {
      // The in-memory run of the same configuration nearest in the run order.
      let memory = rows.enumerated().filter {
        $0.element.1.storage == "memory" && $0.element.1.batchSize == row.batchSize && $0.element.1.clients == row.clients
      }.min { abs($0.offset - position) < abs($1.offset - position) }?.element.1
      let ratio = memory.map { String(format: "%.2fx", $0.fixesPerSecond / row.fixesPerSecond) } ?? ""
      let cpu = (row.fencedUserSeconds + row.fencedSystemSeconds) / Double(row.fixesAcknowledged) * 1e6
      let name = (row.storage == "sqlite" ? "sqlite \(row.durability)" : row.storage) + (row.variant.map { ", \($0)" } ?? "")
      out += "| \(name) | \(group(row.batchSize)) | \(row.clients) | \(group(row.fixesAcknowledged)) | \(group(row.requests)) "
      var withoutSlowest = ""
      if row.clients == 1, row.requests > 1 {
        let slowestFixes = min(row.batchSize, row.fixesAcknowledged)
        let rate = Double(row.fixesAcknowledged - slowestFixes) / (row.wallSeconds - row.latencyMax / 1000)
        withoutSlowest = group(Int(rate.rounded()))
      }
      out += "| **\(group(Int(row.fixesPerSecond.rounded())))** | \(withoutSlowest) | \(ms(row.latencyP50)) | \(ms(row.latencyP90)) | \(ms(row.latencyP99)) | \(ms(row.latencyMax)) "
      out += "| \(ratio) | \(String(format: "%.2f (%.2f+%.2f)", cpu, row.fencedUserSeconds / Double(row.fixesAcknowledged) * 1e6, row.fencedSystemSeconds / Double(row.fixesAcknowledged) * 1e6)) "
      out += "| \(String(format: "%.1f", row.clientCPUSeconds)) | \(group(row.events)) | \(Int(row.peakRSSMiB.rounded())) | \(String(format: "%.2f", record.loadBefore.first ?? .nan)) |\n"
    }
    let starts = rows.map(\.1.startSeconds)
    out += "\nStart of fenced on an empty data directory (zones loaded and written as the first command) to `/healthz` 200: "
    out += "\(String(format: "%.2f", starts.min() ?? .nan)) to \(String(format: "%.2f", starts.max() ?? .nan)) s.\n\n"
    return out
  }

  func recoveryTable(_ records: [Record]) -> String {
    let rows = records.compactMap(\.recovery)
    guard !rows.isEmpty else { return "" }
    var out = "## Recovery after SIGKILL\n\n"
    out += "The daemon ingests the fixes in 5,000-fix batches, is killed with SIGKILL right after the last answer, "
    out += "and is started again with the same command line on the same directory. \"store says\" is the `seconds=` "
    out += "of fenced's `store recovered` log line (snapshot restore + replay + event check); \"/healthz 200\" is wall "
    out += "time from the spawn of the new process to the first 200 (it includes loading the zone files). "
    out += "\"empty start\" is the same binary and options on an empty directory.\n\n"
    out += "| zones | snapshot | last batch ms (others p50) | fixes replayed | commands replayed | events verified | store MiB (+WAL) | store says s | listening s | /healthz 200 s | empty start s | event head kept | peak RSS MiB before / after |\n"
    out += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n"
    for (record, row) in records.compactMap({ record in record.recovery.map { (record, $0) } }) {
      let kept = row.eventHeadAtKill != nil && row.eventHeadAtKill == row.eventHeadAfter
      out += "| \(shortZones(record.zones)) | \(row.snapshot) (every \(group(row.snapshotEvery))) "
      out += "| \(row.lastBatchMilliseconds.map(ms) ?? "?") (\(row.otherBatchesP50Milliseconds.map(ms) ?? "?")) | \(row.fixesReplayed.map(group) ?? "?") | \(row.commandsReplayed.map(group) ?? "?") "
      out += "| \(row.eventsVerified.map(group) ?? "?") | \(String(format: "%.0f (+%.0f)", row.storeMiB, row.walMiB)) "
      out += "| **\(row.recoverySeconds.map { String(format: "%.3f", $0) } ?? "?")** | \(String(format: "%.3f", row.listeningSeconds)) "
      out += "| **\(String(format: "%.3f", row.healthySeconds))** | \(String(format: "%.3f", row.freshStartSeconds)) "
      out += "| \(kept ? "yes" : "NO") (\(Int(row.eventHeadAfter ?? -1))) | \(Int(row.peakRSSMiBBefore)) / \(Int(row.peakRSSMiBAfter)) |\n"
    }
    out += "\nIngest rate of these runs (1 client, batches of 5,000): "
    out += records.compactMap { record in
      record.recovery.map { "\(shortZones(record.zones)), \($0.snapshot): \(group(Int($0.ingestFixesPerSecond))) fixes/s" }
    }.joined(separator: "; ") + " (the last batch of a \"just taken\" run also writes the snapshot).\n\n"
    return out
  }

  func lagTable(_ records: [Record]) -> String {
    let rows = records.compactMap(\.lag)
    guard !rows.isEmpty else { return "" }
    var out = "## Event delivery lag\n\n"
    out += "One client posts batches back to back; one long-poll `GET /v1/events?after=C&limit=100000&wait=30` "
    out += "runs beside it. Lag is from sending the batch that produced an event to the poll answer holding it, "
    out += "per event. \"after answer\" is from the batch's own answer to the poll answer (negative: the poll had it first).\n\n"
    out += "| storage | batch | batches | events | fixes/s | lag p50 ms | lag p99 ms | lag max ms | after answer p50 / p99 ms | batch answer p50 / p99 ms | polls |\n"
    out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    for row in rows {
      let name = (row.storage == "sqlite" ? "sqlite \(row.durability)" : row.storage) + (row.variant.map { ", \($0)" } ?? "")
      out += "| \(name) | \(group(row.batchSize)) | \(group(row.batches)) | \(group(row.eventsSeen)) of \(group(row.events)) "
      out += "| \(group(Int(row.fixesPerSecond))) | **\(ms(row.lagP50))** | **\(ms(row.lagP99))** | \(ms(row.lagMax)) "
      out += "| \(ms(row.afterAnswerP50)) / \(ms(row.afterAnswerP99)) | \(ms(row.batchLatencyP50)) / \(ms(row.batchLatencyP99)) | \(group(row.polls)) |\n"
    }
    return out + "\n"
  }

  func targets(_ records: [Record]) -> String {
    var out = ""
    for synced in [false, true] {
      let reference = records.compactMap(\.ingest).filter {
        $0.storage == "sqlite" && $0.durability == "full" && $0.batchSize == 5000 && $0.clients == 1
          && ($0.variant != nil) == synced
      }
      guard !reference.isEmpty else { continue }
      let what = synced ? "durable ingest, sqlite full, \(reference[0].variant!)" : "durable ingest, sqlite full as shipped"
      let rates = reference.map { group(Int($0.fixesPerSecond)) }.joined(separator: ", ")
      let rateMet = reference.filter { $0.fixesPerSecond >= 250_000 }.count
      let p99s = reference.map { ms($0.latencyP99) }.joined(separator: ", ")
      let p99Met = reference.filter { $0.latencyP99 < 50 }.count
      out += "| \(what), 1 client, 5,000-fix batches: at least 250,000 fixes/s | \(rates) fixes/s | \(verdict(rateMet, reference.count)) |\n"
      out += "| p99 batch answer under 50 ms (same runs) | \(p99s) ms | \(verdict(p99Met, reference.count)) |\n"
    }
    for record in records {
      guard let taken = record.recovery, taken.snapshot == "just taken" else { continue }
      let store = taken.recoverySeconds ?? .infinity
      out += "| recovery with a snapshot just taken under 2 s (\(shortZones(record.zones))) | store \(String(format: "%.3f", store)) s, /healthz 200 after \(String(format: "%.3f", taken.healthySeconds)) s | \(store < 2 ? "yes" : "**no**") (store), \(taken.healthySeconds < 2 ? "yes" : "**no**") (/healthz) |\n"
    }
    guard !out.isEmpty else { return "" }
    return "## Targets\n\n| target | measured | met? |\n| --- | --- | --- |\n" + out + "\n"
  }

  // MARK: - Formatting

  /// "yes", "**no**", or "in k of n runs".
  func verdict(_ met: Int, _ runs: Int) -> String {
    met == runs ? (runs == 1 ? "yes" : "yes (every run)") : met == 0 ? "**no**" : "in \(met) of \(runs) runs"
  }

  /// "all fences" or "harbor zones": the zone set's name without its file list.
  func shortZones(_ name: String) -> String {
    name.firstIndex(of: "(").map { name[..<$0].trimmingCharacters(in: .whitespaces) } ?? name
  }

  func group(_ n: Int) -> String {
    let digits = String(abs(n))
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0, (digits.count - i) % 3 == 0 { out += "," }
      out.append(c)
    }
    return (n < 0 ? "-" : "") + out
  }

  func ms(_ x: Double) -> String {
    guard x.isFinite else { return "?" }
    return abs(x) < 10 ? String(format: "%.2f", x) : String(format: "%.1f", x)
  }

  func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) } ?? "?"
  }

  func osName() -> String {
    let text = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
    return line.map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? "?"
  }

  func kernel() -> String {
    ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "?")
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
