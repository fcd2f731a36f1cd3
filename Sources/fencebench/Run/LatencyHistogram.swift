/// A log-linear histogram of durations in nanoseconds, for per-fix latency percentiles at any
/// run length in constant memory.
///
/// Values below 64 ns get one bucket each; above, every power of two is split into 32 equal
/// buckets, so a reported percentile is within 1/32 (about 3 %) of the true value. The maximum
/// is kept exactly. Recording is O(1) and never allocates.
struct LatencyHistogram {
  private static let subBuckets = 32
  private static let subBits = 5
  private var counts: [UInt64]
  private(set) var count: UInt64 = 0
  private(set) var maximum: UInt64 = 0

  init() {
    counts = Array(repeating: 0, count: 64 + (64 - Self.subBits - 1) * Self.subBuckets)
  }

  /// Records one duration.
  @inline(__always)
  mutating func record(_ nanoseconds: UInt64) {
    counts[Self.bucket(of: nanoseconds)] &+= 1
    count &+= 1
    if nanoseconds > maximum { maximum = nanoseconds }
  }

  private static func bucket(of value: UInt64) -> Int {
    if value < 64 { return Int(value) }
    let exponent = 63 - value.leadingZeroBitCount  // >= 6
    let sub = Int((value >> UInt64(exponent - subBits)) & UInt64(subBuckets - 1))
    return 64 + (exponent - 6) * subBuckets + sub
  }

  /// The middle of a bucket's range.
  private static func value(ofBucket index: Int) -> Double {
    if index < 64 { return Double(index) }
    let exponent = (index - 64) / subBuckets + 6
    let sub = (index - 64) % subBuckets
    let width = Double(UInt64(1) << UInt64(exponent - subBits))
    return Double(UInt64(1) << UInt64(exponent)) + (Double(sub) + 0.5) * width
  }

  /// The duration at or below which `fraction` (0...1) of the recorded values lie, in
  /// nanoseconds; 0 when nothing was recorded. Never more than the maximum.
  func percentile(_ fraction: Double) -> Double {
    guard count > 0 else { return 0 }
    let rank = max(1, UInt64((fraction * Double(count)).rounded(.up)))
    var seen: UInt64 = 0
    for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
      seen += bucketCount
      if seen >= rank { return min(Self.value(ofBucket: index), Double(maximum)) }
    }
    return Double(maximum)
  }
}
