import FenceEngine
import FenceFormats
import FenceStore
import FenceStorePostgres
import Foundation

/// The answer of the scaled-out `fenced` to a command, from its parts' answers
/// (``FenceStorePostgres/PartitionInbox/outcomes(of:)``).
///
/// Without waiting, a command is answered once its parts are durable in the inboxes:
/// `{"received":N,"parts":[{"partition":p,"inboxSeq":s},…]}` (`N` the fixes of a batch, 0
/// otherwise). Once every part was executed, fixes and advances add up as in one process,
/// with the events' seqs per partition: `{"received":N,"accepted":A,"rejected":{…},"events":E,
/// "parts":[{"partition":p,"inboxSeq":s,"events":e,"firstSeq":a,"lastSeq":b},…]}`; a zone change
/// answers `{"zones":Z,"fences":F,"geolines":G}` as in one process, or the refusal.
struct PartitionedAnswer {
  var receipt: PartitionInbox.Receipt
  var received: Int
  /// The parts' answers, by partition (only those executed).
  var outcomes: [Int32: String] = [:]

  var isComplete: Bool { outcomes.count == receipt.parts.count }

  /// The first refusal among the parts (every part of a zone change gets the same one).
  var refusal: (status: Int, message: String)? {
    for part in receipt.parts {
      guard let text = outcomes[part.partition], text.hasPrefix("{\"error\":") else { continue }
      guard case .object(let object)? = try? JSONReader.parse(text),
        case .string(let message)? = object["error"], case .number(let status)? = object["status"]
      else { return (500, text) }
      return (Int(status), message)
    }
    return nil
  }

  /// The JSON of the answer (see the type's description); refusals are not answered here.
  func json() throws -> String {
    var answers: [Int32: CommandAnswer] = [:]
    for (partition, text) in outcomes {
      answers[partition] = try CommandAnswer(storedJSON: text, commandSeq: 0)
    }
    if isComplete, let zoneCounts = answers[receipt.parts[0].partition]?.zoneCounts {
      return
        "{\"zones\":\(zoneCounts.zones),\"fences\":\(zoneCounts.fences),\"geolines\":\(zoneCounts.geolines)}"
    }
    var text = "{\"received\":\(received)"
    if isComplete {
      var accepted = 0
      var events = 0
      var rejected = RejectionCounts()
      for answer in answers.values {
        accepted += answer.accepted
        events += answer.events
        for reason in RejectionReason.allCases { rejected[reason] += answer.rejected[reason] }
      }
      text += ",\"accepted\":\(accepted),\"rejected\":{"
      for (index, reason) in RejectionReason.allCases.enumerated() {
        if index > 0 { text += "," }
        text += "\"\(reason.rawValue)\":\(rejected[reason])"
      }
      text += "},\"events\":\(events)"
    }
    text += ",\"parts\":["
    for (index, part) in receipt.parts.enumerated() {
      if index > 0 { text += "," }
      text += "{\"partition\":\(part.partition),\"inboxSeq\":\(part.seq)"
      if isComplete, let answer = answers[part.partition] {
        text += ",\"events\":\(answer.events),\"firstSeq\":\(answer.firstSeq.map(String.init) ?? "null")"
        text += ",\"lastSeq\":\(answer.lastSeq.map(String.init) ?? "null")"
      }
      text += "}"
    }
    text += "]}"
    return text
  }
}
