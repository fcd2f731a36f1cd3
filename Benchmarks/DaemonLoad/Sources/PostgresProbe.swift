import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Looks at the PostgreSQL server a scaled-out `fenced` runs on, from outside: SQL through
/// `psql` (DaemonLoad has no PostgreSQL client of its own), and the server's CPU time from
/// `/proc`.
///
/// Every query is a new `psql` process (some 10 ms): call it between the timed parts, never
/// inside one.
struct PostgresProbe {
  let url: String
  let psql: String

  /// The rows of `sql`, each a list of columns (tab-separated, unaligned output).
  func rows(_ sql: String) throws -> [[String]] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [psql, "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql, url]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw LoadFailure("psql failed (\(process.terminationStatus)) on: \(sql.prefix(200))\n\(errorText.prefix(1000))")
    }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
  }

  /// The first row's columns as integers (a missing or non-numeric column is 0).
  func integers(_ sql: String) throws -> [Int64] {
    (try rows(sql).first ?? []).map { Int64($0) ?? Int64(Double($0) ?? 0) }
  }

  /// The first row's columns as numbers (`nil` for an empty or non-numeric column).
  func numbers(_ sql: String) throws -> [Double?] {
    (try rows(sql).first ?? []).map { Double($0) }
  }

  /// Bytes of write-ahead log written since the server's start, and the next transaction id
  /// (write transactions take one; read-only ones do not).
  func walAndTransactions() throws -> (walBytes: Int64, nextTransaction: Int64) {
    let values = try integers(
      "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint, pg_snapshot_xmax(pg_current_snapshot())::text::bigint")
    guard values.count == 2 else { throw LoadFailure("unexpected answer to the WAL query") }
    return (values[0], values[1])
  }

  /// Leases live now: (processes holding some, the most one holds, partitions held).
  func leaseBalance() throws -> (owners: Int, most: Int, held: Int) {
    let values = try integers(
      """
      SELECT count(*), coalesce(max(c), 0), coalesce(sum(c), 0)
      FROM (SELECT owner, count(*) AS c FROM fk_leases WHERE expires_at > now() GROUP BY owner) AS t
      """)
    guard values.count == 3 else { return (0, 0, 0) }
    return (Int(values[0]), Int(values[1]), Int(values[2]))
  }

  /// The PID of the server's postmaster (from `postmaster.pid` in its data directory), when
  /// this process can read it.
  func postmasterPID() -> Int32? {
    guard let directory = try? rows("SHOW data_directory").first?.first,
      let text = try? String(contentsOfFile: directory + "/postmaster.pid", encoding: .utf8),
      let line = text.split(separator: "\n").first
    else { return nil }
    return Int32(line.trimmingCharacters(in: .whitespaces))
  }
}

/// CPU seconds (user + system) of a process tree rooted at a PostgreSQL postmaster: the
/// postmaster, the children it has reaped (its `cutime` and `cstime`: connections that ended)
/// and its live children (backends, WAL writer, checkpointer, …).
func serverCPUSeconds(postmaster: Int32) -> Double {
  let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
  /// (parent PID, user + system ticks, reaped children's ticks) of `/proc/PID/stat`.
  func stat(_ pid: String) -> (parent: Int32, own: Double, reaped: Double)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // After "(comm)": state 3, ppid 4, …, utime 14, stime 15, cutime 16, cstime 17.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 14, let parent = Int32(fields[1]), let user = Double(fields[11]),
      let system = Double(fields[12]), let childUser = Double(fields[13]), let childSystem = Double(fields[14])
    else { return nil }
    return (parent, user + system, childUser + childSystem)
  }
  var total = 0.0
  if let root = stat(String(postmaster)) { total += root.own + root.reaped }
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  for entry in entries where entry.first?.isNumber == true {
    if let child = stat(entry), child.parent == postmaster { total += child.own }
  }
  return total / ticks
}
