import FenceEngine
import FenceFormats

/// The changes of `--zone-changes`, applied to the engine between fixes as the replay reaches
/// their times, with what the summary reports about them.
///
/// A change at time *t* is applied before the first fix at or after *t*; changes after the last
/// fix are applied after the final advance. The time spent applying them is measured apart
/// from the evaluation, and the evaluation is split into the fixes before the first change and
/// those after the last, so a run shows the per-fix cost before and after the churn.
struct ZoneChangeSchedule {
  let file: String
  private let changes: [ZoneChange]
  private var next = 0
  private(set) var summary = RunSummary.ZoneChanges()

  init(file: String, changes: [ZoneChange]) {
    self.file = file
    self.changes = changes
    summary.changes = changes.count
  }

  /// The time of the next change not yet applied, or `nil` when all are.
  var nextTime: Timestamp? { next < changes.count ? changes[next].time : nil }

  /// Counts an evaluated batch as before the first change or after the last (or both, for a
  /// file with no change).
  mutating func count(_ fixes: Int, nanoseconds: UInt64) {
    if next == 0 {
      summary.fixesBefore += fixes
      summary.evaluationNanosecondsBefore &+= nanoseconds
    }
    if next == changes.count {
      summary.fixesAfter += fixes
      summary.evaluationNanosecondsAfter &+= nanoseconds
    }
  }

  /// Applies every change due at or before `time` (every remaining change when `nil`).
  ///
  /// - Throws: ``ZoneChangeError`` naming the line of a change the engine refuses (a
  ///   ``ZoneError``) or a removal of a zone that is not loaded; the run stops there.
  mutating func apply(dueBy time: Timestamp?, to evaluator: inout ZoneEvaluator) throws {
    while next < changes.count, time.map({ changes[next].time <= $0 }) ?? true {
      let change = changes[next]
      let start = MonotonicClock.nanoseconds()
      do {
        switch change.operation {
        case .add(let zones):
          var replaced = 0
          for zone in zones where evaluator.zone(id: zone.id) != nil { replaced += 1 }
          try evaluator.add(zones)
          summary.added += zones.count - replaced
          summary.replaced += replaced
        case .remove(let ids):
          for id in ids where evaluator.zone(id: id) == nil {
            throw ZoneChangeError(
              file: file, line: change.line,
              message: "remove: no zone \"\(id)\" is loaded at \(change.time)")
          }
          summary.removed += evaluator.remove(zoneIDs: ids)
        case .replaceAll(let zones):
          let before = evaluator.zoneCount
          var replaced = 0
          for zone in zones where evaluator.zone(id: zone.id) != nil { replaced += 1 }
          try evaluator.replaceAll(with: zones)
          summary.added += zones.count - replaced
          summary.replaced += replaced
          summary.removed += before - replaced
        }
      } catch let error as ZoneChangeError {
        throw error
      } catch {
        throw ZoneChangeError(file: file, line: change.line, message: "\(error)")
      }
      let elapsed = MonotonicClock.nanoseconds() &- start
      summary.nanoseconds &+= elapsed
      summary.slowestNanoseconds = max(summary.slowestNanoseconds, elapsed)
      next += 1
    }
    summary.zonesAfter = evaluator.zoneCount
    summary.fencesAfter = evaluator.fenceCount
  }
}
