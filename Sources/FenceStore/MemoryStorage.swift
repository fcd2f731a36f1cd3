import FenceEngine
import Foundation

/// A ``FenceStorage`` held in memory: nothing survives the process.
///
/// For tests of code above the store, and for measuring what durability costs (`fenced serve
/// --storage memory` runs the same daemon on it). Behaves as ``SQLiteStorage`` does otherwise.
public final class MemoryStorage: FenceStorage {
  private struct Contents {
    var metadata: [String: String] = [:]
    var commands: [StoredCommandRecord] = []
    var events: [StoredEvent] = []
    var eventTimes: [Date] = []
    var idempotency: [String: (commandSeq: Int64, answer: String, at: Date)] = [:]
    var snapshots: [SnapshotRecord] = []
    var cursors: [String: Int64] = [:]
    var isClosed = false
  }

  private let contents = LockedValue(Contents())

  public init() {}

  private func read<T>(_ body: (borrowing Contents) throws -> T) throws -> T {
    try contents.withLock { contents in
      guard !contents.isClosed else { throw StoreError.closed }
      return try body(contents)
    }
  }

  private func write<T>(_ body: (inout Contents) throws -> T) throws -> T {
    try contents.withLock { contents in
      guard !contents.isClosed else { throw StoreError.closed }
      return try body(&contents)
    }
  }

  public func metadata(_ key: String) throws -> String? { try read { $0.metadata[key] } }

  public func setMetadata(_ key: String, _ value: String) throws { try write { $0.metadata[key] = value } }

  public func append(_ commit: CommandCommit) throws {
    try write { contents in
      if let key = commit.idempotencyKey, contents.idempotency[key] != nil {
        throw StoreError.storageFailed("idempotency key \(key) is already stored")
      }
      contents.commands.append(
        StoredCommandRecord(
          seq: commit.seq, kindCode: commit.kindCode, payload: commit.payload,
          firstEventSeq: commit.firstEventSeq, eventCount: commit.eventLines.count))
      for (offset, line) in commit.eventLines.enumerated() {
        contents.events.append(StoredEvent(seq: commit.firstEventSeq + Int64(offset), line: line))
        contents.eventTimes.append(commit.recordedAt)
      }
      if let key = commit.idempotencyKey {
        contents.idempotency[key] = (commit.seq, commit.answer, commit.recordedAt)
      }
    }
  }

  public func answer(forIdempotencyKey key: String) throws -> (commandSeq: Int64, answer: String)? {
    try read { $0.idempotency[key].map { ($0.commandSeq, $0.answer) } }
  }

  public func commands(after seq: Int64, limit: Int) throws -> [StoredCommandRecord] {
    try read { contents in
      let start = contents.commands.partitioningIndex { $0.seq > seq }
      return Array(contents.commands[start..<min(contents.commands.count, start + limit)])
    }
  }

  public func head() throws -> (commandSeq: Int64, eventSeq: Int64) {
    try read { contents in
      if let last = contents.commands.last {
        return (last.seq, last.firstEventSeq + Int64(last.eventCount) - 1)
      }
      if let snapshot = contents.snapshots.last { return (snapshot.commandSeq, snapshot.lastEventSeq) }
      return (0, 0)
    }
  }

  public func events(after seq: Int64, limit: Int) throws -> [StoredEvent] {
    try read { contents in
      let start = contents.events.partitioningIndex { $0.seq > seq }
      return Array(contents.events[start..<min(contents.events.count, start + limit)])
    }
  }

  public func writeSnapshot(_ snapshot: SnapshotRecord) throws {
    try write { contents in
      contents.snapshots.removeAll { $0.commandSeq == snapshot.commandSeq }
      contents.snapshots.append(snapshot)
      contents.snapshots.sort { $0.commandSeq < $1.commandSeq }
    }
  }

  public func latestSnapshot() throws -> SnapshotRecord? { try read { $0.snapshots.last } }

  public func cursor(_ name: String) throws -> Int64? { try read { $0.cursors[name] } }

  public func setCursor(_ name: String, to seq: Int64) throws { try write { $0.cursors[name] = seq } }

  public func cursors() throws -> [String: Int64] { try read { $0.cursors } }

  public func compact(_ plan: CompactionPlan) throws -> CompactionReport {
    try write { contents in
      var report = CompactionReport()
      let commandCount = contents.commands.count
      contents.commands.removeAll { $0.seq <= plan.commandsThrough }
      report.commands = commandCount - contents.commands.count
      let snapshotCount = contents.snapshots.count
      contents.snapshots.removeAll { $0.commandSeq < plan.commandsThrough }
      report.snapshots = snapshotCount - contents.snapshots.count
      var keptEvents: [StoredEvent] = []
      var keptTimes: [Date] = []
      for (event, time) in zip(contents.events, contents.eventTimes) {
        if event.seq <= plan.eventsThrough, time < plan.recordedBefore {
          report.events += 1
        } else {
          keptEvents.append(event)
          keptTimes.append(time)
        }
      }
      contents.events = keptEvents
      contents.eventTimes = keptTimes
      for (key, value) in contents.idempotency
      where value.commandSeq <= plan.commandsThrough && value.at < plan.recordedBefore {
        contents.idempotency[key] = nil
        report.idempotencyKeys += 1
      }
      return report
    }
  }

  public func close() throws { try write { $0.isClosed = true } }
}

extension Array {
  /// The index of the first element for which `isAbove` holds, in an array where it holds for a
  /// suffix (binary search).
  fileprivate func partitioningIndex(where isAbove: (Element) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let mid = (low + high) / 2
      if isAbove(self[mid]) { high = mid } else { low = mid + 1 }
    }
    return low
  }
}
