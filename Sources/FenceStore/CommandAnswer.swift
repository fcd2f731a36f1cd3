import FenceEngine
import Foundation

/// What a committed command answered, exactly as it is stored with an idempotency key and sent
/// to a client.
///
/// For fixes and advances: `{"accepted":N,"rejected":{"invalidCoordinate":0,…},"events":E,
/// "firstSeq":a,"lastSeq":b}` (`firstSeq` and `lastSeq` are `null` when `E` is 0; every
/// rejection reason is listed, with 0 when none). For zone changes: `{"zones":Z,"fences":F,
/// "geolines":G}`, the counts after the change.
public struct CommandAnswer: Hashable, Sendable {
  /// The command's position in the log.
  public var commandSeq: Int64
  /// Fixes the engine accepted.
  public var accepted = 0
  /// Fixes the engine rejected, by reason.
  public var rejected = RejectionCounts()
  /// Events the command produced.
  public var events = 0
  /// The seq of the first and last of them, `nil` when none.
  public var firstSeq: Int64?
  public var lastSeq: Int64?
  /// After a zone change: the zones, fences and GEOLINEs loaded.
  public var zoneCounts: ZoneCounts?
  /// The events by kind (not part of the JSON; empty on a replay).
  public var eventsByKind: [ZoneEvent.Kind: Int] = [:]
  /// Whether this answer was given before, to the first request with the same idempotency key
  /// (and nothing was applied this time).
  public var isReplay = false

  /// Zone, fence and GEOLINE counts.
  public struct ZoneCounts: Hashable, Sendable {
    public var zones: Int
    public var fences: Int
    public var geolines: Int
  }

  /// The answer's JSON text (one line, members in the order above).
  public var json: String {
    if let zoneCounts {
      return
        "{\"zones\":\(zoneCounts.zones),\"fences\":\(zoneCounts.fences),\"geolines\":\(zoneCounts.geolines)}"
    }
    var text = "{\"accepted\":\(accepted),\"rejected\":{"
    for (index, reason) in RejectionReason.allCases.enumerated() {
      if index > 0 { text += "," }
      text += "\"\(reason.rawValue)\":\(rejected[reason])"
    }
    text += "},\"events\":\(events),\"firstSeq\":\(firstSeq.map(String.init) ?? "null")"
    text += ",\"lastSeq\":\(lastSeq.map(String.init) ?? "null")}"
    return text
  }

  /// Reads an answer back from its stored JSON (an idempotent resend; an owner's answer to a part
  /// of a command in the scaled-out store).
  ///
  /// - Throws: ``StoreError/damaged(_:)`` when the text is not an answer.
  public init(storedJSON text: String, commandSeq: Int64) throws {
    self.commandSeq = commandSeq
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    else { throw StoreError.damaged("stored answer is not a JSON object: \(text.prefix(200))") }
    func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
    if let zones = int("zones") {
      zoneCounts = ZoneCounts(zones: zones, fences: int("fences") ?? 0, geolines: int("geolines") ?? 0)
    } else {
      accepted = int("accepted") ?? 0
      events = int("events") ?? 0
      firstSeq = (object["firstSeq"] as? NSNumber)?.int64Value
      lastSeq = (object["lastSeq"] as? NSNumber)?.int64Value
      if let counts = object["rejected"] as? [String: Any] {
        for reason in RejectionReason.allCases {
          rejected[reason] = (counts[reason.rawValue] as? NSNumber)?.intValue ?? 0
        }
      }
    }
    isReplay = true
  }

  init(commandSeq: Int64) {
    self.commandSeq = commandSeq
  }
}
