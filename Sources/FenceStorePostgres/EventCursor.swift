/// Where a reader stands in a partitioned event log: the last seq it read of every partition.
///
/// Its text form, the `Fence-Cursor` header of the scaled-out `fenced`, is the seqs in
/// partition order joined by dots (`"12.0.7.3"` for four partitions); the single number `0`
/// stands for the start of every partition, so that `after=0` reads from the beginning as in
/// one process.
public struct EventCursor: Hashable, Sendable, CustomStringConvertible {
  /// The last seq read of each partition, by partition.
  public var seqs: [Int64]

  /// The start of a log of `partitions` partitions.
  public init(partitions: Int32) {
    seqs = Array(repeating: 0, count: Int(partitions))
  }

  public init(seqs: [Int64]) {
    self.seqs = seqs
  }

  /// Reads the text form for a log of `partitions` partitions; `nil` when it is not one (a
  /// count other than `partitions`, or a seq that is not a whole number from 0).
  public init?(_ text: String, partitions: Int32) {
    if text == "0" {
      self.init(partitions: partitions)
      return
    }
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == Int(partitions) else { return nil }
    var seqs: [Int64] = []
    seqs.reserveCapacity(parts.count)
    for part in parts {
      guard part.utf8.count <= 19, let seq = Int64(part), seq >= 0 else { return nil }
      seqs.append(seq)
    }
    self.init(seqs: seqs)
  }

  public var description: String {
    seqs.map(String.init).joined(separator: ".")
  }
}
