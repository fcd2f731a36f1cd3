/// A deterministic random number generator (SplitMix64), for reproducible test data.
///
/// The same seed gives the same sequence on every platform and run. Not for cryptography.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) {
    state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A double in `range`, from 53 random bits: cheaper than `Double.random(in:using:)` in debug
  /// builds, and the same on every platform.
  public mutating func double(in range: ClosedRange<Double>) -> Double {
    let unit = Double(next() >> 11) * 0x1p-53
    return min(range.lowerBound + unit * (range.upperBound - range.lowerBound), range.upperBound)
  }

  /// An integer in `0..<bound`.
  public mutating func int(below bound: Int) -> Int {
    precondition(bound > 0, "int(below:) needs a positive bound, got \(bound)")
    return Int(next() % UInt64(bound))
  }
}
