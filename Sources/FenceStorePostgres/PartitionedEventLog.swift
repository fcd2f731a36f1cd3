import FenceEngine
import FenceStore
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The events of every partition of the scaled-out store, read as one log from any process.
///
/// A read takes, for each partition, the events after the cursor's seq in seq order, and merges
/// them by commit time (ties by partition). The merge keeps each partition's own order, so
/// that any prefix of it holds a prefix of every partition's events: cutting at `limit` and
/// moving the cursor to the last event read of each partition skips nothing, whatever the
/// owners' clocks say.
public final class PartitionedEventLog: Sendable {
  /// An event with the partition it belongs to.
  public struct Event: Hashable, Sendable {
    public var partition: Int32
    public var seq: Int64
    /// The NDJSON line, `"seq"` and `"partition"` first.
    public var line: String
  }

  public let partitions: Int32
  let connections: PostgresConnections

  /// Connects (migrating the schema).
  public init(settings: PostgresSettings, partitions: Int32, logger: Logger? = nil) throws {
    self.partitions = partitions
    connections = try PostgresConnections(settings: settings, logger: logger)
  }

  deinit { connections.close() }

  /// At most `limit` events after `cursor`, and the cursor after them (`cursor` itself when
  /// there are none).
  public func events(after cursor: EventCursor, limit: Int) throws -> (events: [Event], cursor: EventCursor) {
    precondition(cursor.seqs.count == Int(partitions), "a cursor of another partition count")
    let partitionList = (0..<partitions).map { $0 }
    let perPartition: [[(Event, Date)]] = try connections.read { connection in
      var lists = Array(repeating: [(Event, Date)](), count: Int(partitions))
      for row in try connections.rows(
        """
        SELECT c.p, e.seq, e.body, e.recorded_at
        FROM unnest(\(partitionList)::integer[], \(cursor.seqs)::bigint[]) AS c(p, s)
        CROSS JOIN LATERAL (
          SELECT seq, body, recorded_at FROM fk_events
          WHERE partition = c.p AND seq > c.s ORDER BY seq LIMIT \(Int64(limit))) e
        """, on: connection)
      {
        let (partition, seq, line, recordedAt) = try row.decode((Int32, Int64, String, Date).self)
        lists[Int(partition)].append((Event(partition: partition, seq: seq, line: line), recordedAt))
      }
      return lists
    }
    // A stable merge by commit time: each partition's own order is kept.
    var heads = Array(repeating: 0, count: perPartition.count)
    var merged: [Event] = []
    var next = cursor
    while merged.count < limit {
      var best: Int?
      for partition in perPartition.indices where heads[partition] < perPartition[partition].count {
        if let current = best {
          if perPartition[partition][heads[partition]].1 < perPartition[current][heads[current]].1 {
            best = partition
          }
        } else {
          best = partition
        }
      }
      guard let chosen = best else { break }
      let event = perPartition[chosen][heads[chosen]].0
      heads[chosen] += 1
      merged.append(event)
      next.seqs[chosen] = event.seq
    }
    return (merged, next)
  }

  /// The last event seq of every partition now.
  public func head() throws -> EventCursor {
    var cursor = EventCursor(partitions: partitions)
    let partitionList = (0..<partitions).map { $0 }
    try connections.read { connection in
      // One index probe per partition (a GROUP BY would read the whole table).
      for row in try connections.rows(
        """
        SELECT c.p, coalesce((SELECT max(seq) FROM fk_events WHERE partition = c.p), 0)
        FROM unnest(\(partitionList)::integer[]) AS c(p)
        """, on: connection)
      {
        let (partition, seq) = try row.decode((Int32, Int64).self)
        if partition >= 0, partition < partitions { cursor.seqs[Int(partition)] = seq }
      }
    }
    return cursor
  }

  /// Closes the connections; later calls fail.
  public func close() { connections.close() }
}
