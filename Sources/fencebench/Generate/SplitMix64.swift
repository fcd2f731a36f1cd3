/// A small, fast, seeded pseudo-random generator (Steele, Lea and Flood's SplitMix64).
///
/// The same seed always gives the same sequence on every platform, so `fencebench generate`
/// writes the same bytes for the same options and a benchmark can be rerun on the same data.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform value in [0, 1) with 53 random bits.
  mutating func unit() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// A uniform value in `range` (both ends reachable up to rounding).
  mutating func uniform(_ range: ClosedRange<Double>) -> Double {
    range.lowerBound + (range.upperBound - range.lowerBound) * unit()
  }

  /// A uniform integer in `range`, without modulo bias worth noticing for ranges under 2^32.
  mutating func integer(_ range: ClosedRange<Int>) -> Int {
    let span = UInt64(range.upperBound - range.lowerBound) + 1
    return range.lowerBound + Int(next() % span)
  }
}
