/// How many fixes a ``ZoneEvaluator`` rejected, by reason.
public struct RejectionCounts: Hashable, Sendable, CustomStringConvertible {
  private var counts: [Int] = Array(repeating: 0, count: RejectionReason.allCases.count)

  /// No rejections.
  public init() {}

  /// The number of fixes rejected for `reason`.
  public subscript(reason: RejectionReason) -> Int {
    get { counts[Self.index(of: reason)] }
    set { counts[Self.index(of: reason)] = newValue }
  }

  /// The number of rejected fixes over all reasons.
  public var total: Int { counts.reduce(0, +) }

  /// The non-zero counts, keyed by reason.
  public var byReason: [RejectionReason: Int] {
    var result: [RejectionReason: Int] = [:]
    for reason in RejectionReason.allCases where self[reason] != 0 { result[reason] = self[reason] }
    return result
  }

  public var description: String {
    RejectionReason.allCases.map { "\($0.rawValue): \(self[$0])" }.joined(separator: ", ")
  }

  private static func index(of reason: RejectionReason) -> Int {
    switch reason {
    case .invalidCoordinate: return 0
    case .nullIsland: return 1
    case .outOfOrder: return 2
    case .duplicate: return 3
    case .lowAccuracy: return 4
    case .implausibleSpeed: return 5
    }
  }
}
