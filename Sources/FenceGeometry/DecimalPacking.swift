/// Edge values held as the decimals they were written in: a few bytes a value instead of 8,
/// read back bit for bit (decision 0018).
///
/// Zone files are text, so almost every coordinate is the double nearest a decimal of a few
/// places (the world's time zones have five, New York's boroughs six). Such a value `v` is
/// `Double(n) / 10^d` for an integer `n` and the places `d`: the division of two exact doubles
/// is correctly rounded, so it gives the nearest double to `n / 10^d` again. Packing finds the
/// fewest places `d` (0 to ``maximumDecimals``) at which every value of a shape comes back
/// exactly, checking each value with the very expression unpacking computes, and writes
/// `n` as its difference from the previous value of the same axis (neighbouring vertices are
/// close), zigzag-encoded in 7-bit groups (LEB128). Values that no such `d` gives back (more
/// places, `-0.0`, beyond ±9·10¹⁵ once scaled) leave the shape plain.
///
/// Layout: byte 0 is `d`; then one group sequence per value, in the values' order, `x` values
/// (even positions) differenced against the previous `x`, `y` values against the previous `y`.
enum DecimalPacking {
  /// The most decimal places tried: nine (a billionth of a degree, about 0.1 mm).
  static let maximumDecimals = 9

  /// `10^d` for `d` in `0 ... maximumDecimals`, each exact.
  private static let powers: [Double] = (0...maximumDecimals).map { d in
    (0..<d).reduce(1.0) { power, _ in power * 10 }
  }

  /// The scaled values beyond which a value is not packed: exact integers in a `Double` (2^53)
  /// with room for differences in an `Int64`.
  private static let scaledLimit = 9.0e15

  /// `values` packed (see the type's notes), or nil when some value has no exact decimal form
  /// of at most ``maximumDecimals`` places, or packing would not save at least a quarter of the
  /// values' 8 bytes each. The bytes are written to a scratch buffer and then copied into an
  /// array of exactly their count.
  static func pack(_ values: UnsafeBufferPointer<Double>) -> ContiguousArray<UInt8>? {
    let limit = 6 * values.count
    // One value takes at most 10 bytes: room to pass the limit by one value, and the header.
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: limit + 11) { scratch in
      guard let count = pack(values, into: scratch.baseAddress!, limit: limit) else { return nil }
      return ContiguousArray(UnsafeBufferPointer(start: scratch.baseAddress!, count: count))
    }
  }

  /// Writes `values` packed to `bytes` and returns the count written, or nil (see
  /// ``pack(_:)``) once more than `limit` bytes would be needed.
  private static func pack(
    _ values: UnsafeBufferPointer<Double>, into bytes: UnsafeMutablePointer<UInt8>, limit: Int
  ) -> Int? {
    var decimals = 0
    // The places only grow, and a value exact at `d` places is exact at more (the same decimal),
    // so a restart at more places happens at most `maximumDecimals` times.
    restart: while true {
      bytes[0] = UInt8(decimals)
      var count = 1
      var previous: (Int64, Int64) = (0, 0)
      let power = powers[decimals]
      for i in 0..<values.count {
        guard let n = integer(values[i], power: power) else {
          var more = decimals + 1
          while more <= maximumDecimals, integer(values[i], power: powers[more]) == nil {
            more += 1
          }
          guard more <= maximumDecimals else { return nil }
          decimals = more
          continue restart
        }
        let difference: Int64
        if i & 1 == 0 {
          difference = n &- previous.0
          previous.0 = n
        } else {
          difference = n &- previous.1
          previous.1 = n
        }
        var rest = UInt64(bitPattern: (difference << 1) ^ (difference >> 63))
        while rest >= 0x80 {
          bytes[count] = UInt8(truncatingIfNeeded: rest) | 0x80
          count &+= 1
          rest >>= 7
        }
        bytes[count] = UInt8(rest)
        count &+= 1
        if count > limit { return nil }
      }
      return count
    }
  }

  /// The `count` values that ``pack(_:)`` packed into `bytes`, written to `values` (room for
  /// `count`).
  static func unpack(
    _ bytes: UnsafeBufferPointer<UInt8>, count: Int, into values: UnsafeMutablePointer<Double>
  ) {
    let power = powers[Int(bytes[0])]
    var position = 1
    var previous: (Int64, Int64) = (0, 0)
    for i in 0..<count {
      var zigzag: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        let byte = bytes[position]
        position &+= 1
        zigzag |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { break }
        shift &+= 7
      }
      let difference = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
      let n: Int64
      if i & 1 == 0 {
        n = previous.0 &+ difference
        previous.0 = n
      } else {
        n = previous.1 &+ difference
        previous.1 = n
      }
      values[i] = Double(n) / power
    }
  }

  /// The values packed in `bytes` (``unpack(_:count:into:)`` into a new array).
  static func unpacked(_ bytes: ContiguousArray<UInt8>, count: Int) -> ContiguousArray<Double> {
    ContiguousArray(unsafeUninitializedCapacity: count) { values, initialized in
      bytes.withUnsafeBufferPointer { unpack($0, count: count, into: values.baseAddress!) }
      initialized = count
    }
  }

  /// The integer `n` with `Double(n) / power` equal to `value` bit for bit, if any (`power` is
  /// `10^d`).
  @inline(__always)
  private static func integer(_ value: Double, power: Double) -> Int64? {
    let scaled = value * power
    guard abs(scaled) < scaledLimit else { return nil }  // also NaN and the infinities
    let n = Int64(scaled.rounded())
    guard (Double(n) / power).bitPattern == value.bitPattern else { return nil }
    return n
  }
}
