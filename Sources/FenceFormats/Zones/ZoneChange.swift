import FenceEngine

/// One timed change of the zone set, as a line of a zone change file
/// (``ZoneChangeReader``) gives it: what `fencebench run --zone-changes` applies between fixes.
///
/// The operations are the evaluator's own: ``ZoneEvaluator/add(_:)-([Zone])`` (add, or replace
/// the zones with the same ids), ``ZoneEvaluator/remove(zoneIDs:)`` and
/// ``ZoneEvaluator/replaceAll(with:)``, and the daemon's `POST`, `DELETE` and `PUT /v1/zones`.
public struct ZoneChange: Sendable {
  /// What changes.
  public enum Operation: Sendable {
    /// Adds the zones; a zone whose id is loaded replaces it, keeping device state.
    case add([Zone])
    /// Removes the zones with these ids, dropping their device state without events.
    case remove([String])
    /// Makes the zone set exactly these zones.
    case replaceAll([Zone])
  }

  /// The instant the change takes effect: it is applied before the first fix at or after it.
  public var time: Timestamp
  public var operation: Operation
  /// The 1-based line of the change file it came from (0 when not from a file).
  public var line: Int

  public init(time: Timestamp, operation: Operation, line: Int = 0) {
    self.time = time
    self.operation = operation
    self.line = line
  }
}

/// Why a zone change file was not read: the file, the line and what is wrong.
///
/// `changes.ndjson:3: "time": expected an RFC 3339 time or epoch seconds, got "noon"`
public struct ZoneChangeError: Error, Hashable, Sendable, CustomStringConvertible {
  public var file: String
  /// 1-based; 0 when the file could not be read at all.
  public var line: Int
  public var message: String

  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  public var description: String {
    line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
  }
}
