/// What a device's last full evaluation left for its next fixes in the same cell: whether the
/// device is settled there, and how that fix answered the cell's fences to test, which a later
/// fix must answer the same way to be settled too (see
/// ``ZoneEvaluator/settledState(_:cell:testAnswers:records:)``). One byte of ``DeviceState``:
/// derived state, not kept in snapshots.
struct SettledInCell: Equatable {
  /// Bit 0: settled; bit 1 + *k*: the cell's *k*-th fence to test covered the fix.
  private var bits: UInt8 = 0

  /// The most fences to test in a cell where a device can be settled: one bit each.
  static let testLimit = 7

  /// Not settled.
  init() {}

  /// Settled, with the answers of the cell's fences to test (bit *k* for the *k*-th; at most
  /// ``testLimit`` of them, as ``ZoneEvaluator/settledState(_:cell:testAnswers:records:)``
  /// ensures: a higher bit would be lost, and the device then never found settled again).
  init(answers: UInt32) {
    bits = 1 | UInt8(truncatingIfNeeded: answers) &<< 1
  }

  /// Whether the device is settled in its memo's cell.
  var isSettled: Bool { bits & 1 != 0 }

  /// Bit *k*: whether the cell's *k*-th fence to test covered the fix that settled the device.
  var answers: UInt32 { UInt32(bits >> 1) }
}
