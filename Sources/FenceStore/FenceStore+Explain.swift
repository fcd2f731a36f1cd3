import FenceEngine

extension FenceStore {
  /// The explanations of a device's fixes (rules v2, "Explain"), made by replaying the command
  /// log into a scratch evaluator: from the log's first command when the log still holds it,
  /// else from the latest snapshot (fixes before it were compacted away and cannot be
  /// explained). The live engine is not touched.
  ///
  /// - Parameters:
  ///   - from: explain fixes at or after this time (all when `nil`).
  ///   - to: explain fixes at or before this time (all when `nil`).
  ///   - limit: at most this many explanations (the earliest).
  /// - Throws: ``StoreError`` when the log or snapshot cannot be read or replayed.
  /// - Complexity: a replay of the log from its start (or the latest snapshot): for a long log,
  ///   seconds; a diagnostic, not a hot path.
  public func explain(
    device: String, from: Timestamp? = nil, to: Timestamp? = nil, limit: Int = 1000
  ) throws -> [FixExplanation] {
    var evaluator: ZoneEvaluator
    var seq: Int64
    let first = try storage.commands(after: 0, limit: 1).first
    if first == nil || first?.seq == 1 {
      evaluator = ZoneEvaluator(configuration: configuration)
      seq = 0
    } else if let snapshot = try storage.latestSnapshot() {
      evaluator = try Self.restoredEvaluator(snapshot, configuration: configuration).evaluator
      seq = snapshot.commandSeq
    } else {
      throw StoreError.damaged("the command log starts at \(first?.seq ?? 0) without a snapshot")
    }
    var explanations: [FixExplanation] = []
    var events: [ZoneEvent] = []
    while explanations.count < limit {
      let page = try storage.commands(after: seq, limit: 64)
      if page.isEmpty { break }
      for record in page {
        let command = try StoreCommand(
          kindCode: record.kindCode, payload: record.payload, commandSeq: record.seq)
        events.removeAll(keepingCapacity: true)
        if case .fixes(let fixes) = command {
          for fix in fixes {
            let wanted =
              explanations.count < limit && fix.device == device
              && from.map({ fix.time >= $0 }) ?? true && to.map({ fix.time <= $0 }) ?? true
            if wanted {
              explanations.append(evaluator.explain(fix, into: &events))
            } else {
              evaluator.process(fix, into: &events)
            }
          }
        } else {
          do {
            _ = try Self.apply(command, to: &evaluator, events: &events)
          } catch {
            throw StoreError.replayMismatch(commandSeq: record.seq, detail: "it failed: \(error)")
          }
        }
        seq = record.seq
      }
    }
    return explanations
  }
}

extension FenceStore {
  /// ``explain(device:from:to:limit:)`` off the caller's executor.
  public func explain(
    device: String, from: Timestamp? = nil, to: Timestamp? = nil, limit: Int = 1000
  ) async throws -> [FixExplanation] {
    try await withCheckedThrowingContinuation { continuation in
      readQueue.async {
        continuation.resume(
          with: Result { try self.explain(device: device, from: from, to: to, limit: limit) })
      }
    }
  }
}
