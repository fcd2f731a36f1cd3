/// Why a ``FenceStore`` could not do what it was asked.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The store's files cannot be read as a FenceKit store (damaged, or from another program).
  case damaged(String)
  /// Replaying the command with this seq gave other events than the ones stored with it: the
  /// engine is not deterministic, or the store was written by a different engine version or
  /// configuration. Recovery stops here rather than serve a history that differs from the one
  /// acknowledged.
  case replayMismatch(commandSeq: Int64, detail: String)
  /// The store was created with another engine configuration; replaying it with this one
  /// would give other events.
  case configurationMismatch(stored: String, given: String)
  /// Writing to the storage failed; the command was not applied (the engine was reloaded from
  /// the storage). Retrying later is safe. One exception, which the reason names ("yet the
  /// write landed"): a write whose answer was lost (a timed-out `COMMIT` on PostgreSQL) that
  /// the server finished while the engine reloaded; the command is then in the log, and a
  /// resend under its idempotency key gets its answer.
  case storageFailed(String)
  /// The command itself is not acceptable (an idempotency key over 200 bytes, zones the log
  /// cannot record); nothing was applied. Resending it unchanged fails again.
  case invalidCommand(String)
  /// The store is closed.
  case closed
  /// Another process took over this store's partition (its lease holds a newer fencing token
  /// than this store's, see ``PartitionLeases``): nothing was written, and the store closed.
  case leaseLost(partition: Int32)

  /// What a ``storageFailed(_:)`` reason says when the write landed after all (see there).
  static let writeLanded = "yet the write landed"

  public var description: String {
    switch self {
    case .damaged(let reason): "the store is damaged: \(reason)"
    case .replayMismatch(let seq, let detail):
      "replaying command \(seq) gave other events than the stored ones (a determinism bug): \(detail)"
    case .configurationMismatch(let stored, let given):
      "the store was created with the engine configuration \(stored); this process has \(given). Start with the same options, or use a new data directory"
    case .storageFailed(let reason):
      reason.contains(Self.writeLanded)
        ? "the storage failed: \(reason)" : "the storage failed, nothing was applied: \(reason)"
    case .invalidCommand(let reason): "the command cannot be applied: \(reason)"
    case .closed: "the store is closed"
    case .leaseLost(let partition):
      "another process took over partition \(partition) (its lease has a newer fencing token); nothing was written and this store closed"
    }
  }
}

extension StoreError {
  /// Whether this is ``leaseLost(partition:)``.
  public var isLeaseLost: Bool {
    if case .leaseLost = self { return true }
    return false
  }
}
