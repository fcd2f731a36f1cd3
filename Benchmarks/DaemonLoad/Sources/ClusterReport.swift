import Foundation

/// The `cluster` records as markdown: one row per configuration (processes, partitions,
/// split, batch size) with the median of its runs, then the idle latencies and what the
/// database stored and wrote.
extension ReportCommand {
  func clusterTables(_ records: [Record]) -> String {
    let rows = records.compactMap(\.cluster)
    guard !rows.isEmpty else { return "" }
    struct Key: Hashable, Comparable {
      var split: String
      var partitions: Int
      var batch: Int
      var processes: Int
      static func < (a: Key, b: Key) -> Bool {
        (a.split, a.partitions, a.batch, a.processes) < (b.split, b.partitions, b.batch, b.processes)
      }
    }
    let groups = Dictionary(grouping: rows) {
      Key(split: $0.split, partitions: $0.partitions, batch: $0.batchSize, processes: $0.processes)
    }
    let keys = groups.keys.sorted()

    var out = "## Several processes on one PostgreSQL database\n\n"
    out += "K `fenced serve --postgres URL --partitions P` processes started together on an empty database, one client per "
    out += "process sending its own devices' batches one request at a time (\"split\": devices dealt to the clients one by "
    out += "one, so every batch touches most partitions; or whole partitions dealt, so a client's batches touch only its "
    out += "partitions). **Acked** is fixes/s answered by plain `POST /v1/fixes` (durable in the inboxes), first request "
    out += "to last answer. **Drain** is the last answer to `POST /v1/advance?wait=events` (to the last fix's time) "
    out += "answered 200: every partition executed everything. **With execution** is fixes over first request to that "
    out += "answer. Parts are inbox commands, one per partition a batch touched; \"parts/s in drain\" counts those "
    out += "executed after the last ack (`fk_inbox_done.done_at`) over the drain. Inbox delay is each fix part's submit "
    out += "transaction start to its execution's commit record. CPU is user + system per fix, from the first request "
    out += "to the drain's answer: every fenced together, and every process of the PostgreSQL server. Figures are the "
    out += "median of the runs, with the range when the runs differ.\n\n"
    out += "| K | P | split | batch | fixes | runs | acked fixes/s | ack p50 / p99 ms | drain s | fixes/s with execution | parts per batch | parts/s in drain | inbox delay p50 / p99 ms | fenced CPU µs/fix | PostgreSQL CPU µs/fix | log errors |\n"
    out += "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    for key in keys {
      let runs = groups[key]!
      func figure(_ values: [Double], bold: Bool = false, format: (Double) -> String) -> String {
        let middle = median(values)
        let text = bold ? "**\(format(middle))**" : format(middle)
        guard let low = values.min(), let high = values.max(), runs.count > 1, format(low) != format(high) else {
          return text
        }
        return "\(text) (\(format(low))-\(format(high)))"
      }
      let whole = { (value: Double) in group(Int(value.rounded())) }
      let oneDecimal = { (value: Double) in String(format: "%.1f", value) }
      let twoDecimals = { (value: Double) in String(format: "%.2f", value) }
      out += "| \(key.processes) | \(key.partitions) | \(key.split) | \(group(key.batch)) | \(group(runs[0].fixes)) | \(runs.count) "
      out += "| \(figure(runs.map(\.ackFixesPerSecond), bold: true, format: whole)) "
      out += "| \(ms(median(runs.map(\.ackP50)))) / \(ms(median(runs.map(\.ackP99)))) "
      out += "| \(figure(runs.map(\.drainSeconds), format: twoDecimals)) "
      out += "| \(figure(runs.map(\.totalFixesPerSecond), bold: true, format: whole)) "
      out += "| \(oneDecimal(median(runs.map { Double($0.parts) / Double($0.requests) }))) "
      let drainRates = runs.compactMap(\.drainPartsPerSecond)
      out += "| \(drainRates.isEmpty ? "" : figure(drainRates, format: whole)) "
      let delays = runs.compactMap { run in run.inboxDelayP50.flatMap { p50 in run.inboxDelayP99.map { (p50, $0) } } }
      out += "| \(delays.isEmpty ? "" : "\(ms(median(delays.map(\.0)))) / \(ms(median(delays.map(\.1))))") "
      out += "| \(oneDecimal(median(runs.map { ($0.fencedCPUAck + $0.fencedCPUDrain) / Double($0.fixesAcknowledged) * 1e6 }))) "
      let server = runs.compactMap { run in
        run.serverCPUAck.flatMap { ack in run.serverCPUDrain.map { (ack + $0) / Double(run.fixesAcknowledged) * 1e6 } }
      }
      out += "| \(server.isEmpty ? "" : oneDecimal(median(server))) "
      out += "| \(runs.map { String($0.logErrorLines) }.joined(separator: ", ")) |\n"
    }

    let latencyRows = keys.flatMap { key in groups[key]!.flatMap { run in run.latency.map { (key, $0) } } }
    if !latencyRows.isEmpty {
      out += "\n### Idle: one request at a time\n\n"
      out += "After the drain, per batch size, requests one at a time, round robin over the processes. **Plain** is a "
      out += "`POST /v1/fixes` answered once durable (the inbox transaction), sent when everything before it was executed. "
      out += "**?wait=events** is a new batch answered once every part was executed by its owner (the answer polls the "
      out += "parts' outcomes every 2, 4, 8, … up to 50 ms). Medians of the runs' percentiles.\n\n"
      out += "| K | P | batch | samples per run | parts | plain p50 / p90 / p99 ms | ?wait=events p50 / p90 / p99 ms | answered 202 |\n"
      out += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
      struct LatencyKey: Hashable, Comparable {
        var partitions: Int
        var processes: Int
        var size: Int
        static func < (a: LatencyKey, b: LatencyKey) -> Bool {
          (a.partitions, a.size, a.processes) < (b.partitions, b.size, b.processes)
        }
      }
      let byKey = Dictionary(grouping: latencyRows) {
        LatencyKey(partitions: $0.0.partitions, processes: $0.0.processes, size: $0.1.batchSize)
      }
      for key in byKey.keys.sorted() {
        let list = byKey[key]!.map(\.1)
        out += "| \(key.processes) | \(key.partitions) | \(group(key.size)) | \(list[0].samples) (\(list.count) runs) "
        out += "| \(String(format: "%.1f", median(list.map(\.partsMean)))) "
        out += "| \(ms(median(list.map(\.plainP50)))) / \(ms(median(list.map(\.plainP90)))) / \(ms(median(list.map(\.plainP99)))) "
        out += "| **\(ms(median(list.map(\.waitP50))))** / \(ms(median(list.map(\.waitP90)))) / \(ms(median(list.map(\.waitP99)))) "
        out += "| \(list.reduce(0) { $0 + $1.waitIncomplete }) |\n"
      }
    }

    out += "\n### What the database stored and wrote\n\n"
    out += "From before the first batch to the drain's answer (the idle phase not included): write-ahead log bytes "
    out += "(`pg_current_wal_lsn()`), transactions that wrote (transaction ids taken), per fix or per request; the stored "
    out += "bytes of the fix parts' payloads in `fk_inbox` and `fk_commands` (binary, about 30 bytes a fix and the "
    out += "devices' names once per part) and of the events' JSON in `fk_events`; what the owners accepted and rejected. "
    out += "Medians of the runs.\n\n"
    out += "| K | P | split | batch | WAL bytes/fix | write transactions per request | fk_inbox B/fix | fk_commands B/fix | events | fk_events B/event | accepted | rejected | database MiB | start: listening / balanced / ready s |\n"
    out += "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    for key in keys {
      let runs = groups[key]!
      func perFix(_ values: [Double?]) -> String {
        let known = zip(values, runs).compactMap { value, run in value.map { $0 / Double(run.fixesAcknowledged) } }
        return known.isEmpty ? "" : String(format: "%.0f", median(known))
      }
      let wal = perFix(runs.map { $0.walBytes.map(Double.init) })
      let transactions = runs.compactMap { run in run.writeTransactions.map { Double($0) / Double(run.requests) } }
      let inbox = perFix(runs.map { $0.inboxPayloadBytes.map(Double.init) })
      let commands = perFix(runs.map { $0.commandPayloadBytes.map(Double.init) })
      let eventBytes = runs.compactMap { run in
        run.eventBodyBytes.flatMap { bytes in run.events.map { Double(bytes) / Double(max($0, 1)) } }
      }
      out += "| \(key.processes) | \(key.partitions) | \(key.split) | \(group(key.batch)) | \(wal) "
      out += "| \(transactions.isEmpty ? "" : String(format: "%.1f", median(transactions))) | \(inbox) | \(commands) "
      out += "| \(runs.compactMap(\.events).map(group).uniqued().joined(separator: ", ")) "
      out += "| \(eventBytes.isEmpty ? "" : String(format: "%.0f", median(eventBytes))) "
      out += "| \(runs.compactMap(\.accepted).map(group).uniqued().joined(separator: ", ")) "
      out += "| \(runs.compactMap(\.rejected).map(group).uniqued().joined(separator: ", ")) "
      let sizes = runs.compactMap(\.databaseMiB)
      out += "| \(sizes.isEmpty ? "" : String(format: "%.0f", median(sizes))) "
      out += "| \(String(format: "%.2f / %.2f / %.2f", median(runs.map(\.listeningSeconds)), median(runs.map(\.balancedSeconds)), median(runs.map(\.readySeconds)))) |\n"
    }

    let errors = rows.filter { $0.logErrorLines > 0 || $0.exitStatuses.contains { $0 != 0 } || $0.movesAfterBalance > 0 }
    out += "\nfenced logs: "
    if errors.isEmpty {
      out += "no error lines, every process exited 0 after SIGTERM, no partition moved after the leases were balanced.\n\n"
    } else {
      out += "\n\n"
      for run in errors {
        out += "- K \(run.processes), P \(run.partitions), batch \(group(run.batchSize)) (\(run.split)): \(run.logErrorLines) error lines, "
        out += "exit statuses \(run.exitStatuses.map(String.init).joined(separator: ", ")), \(run.movesAfterBalance) partitions taken or dropped after balancing"
        if let first = run.logErrorSamples.first { out += "; first: `\(first.prefix(300))`" }
        out += "\n"
      }
      out += "\n"
    }
    return out
  }

  /// The median (the mean of the middle two of an even count).
  func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}

extension Array where Element: Hashable {
  /// The elements without repeats, in first-seen order.
  func uniqued() -> [Element] {
    var seen = Set<Element>()
    return filter { seen.insert($0).inserted }
  }
}
