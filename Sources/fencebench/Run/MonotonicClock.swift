#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Readings of the system's monotonic clock (`CLOCK_MONOTONIC`) in nanoseconds, for timing
/// only: never for engine time, which comes from fixes.
enum MonotonicClock {
  /// Nanoseconds since an arbitrary fixed point; about 20 ns per call (vDSO).
  @inline(__always)
  static func nanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
  }

  /// Seconds elapsed since a reading.
  static func seconds(since start: UInt64) -> Double {
    Double(nanoseconds() &- start) / 1e9
  }
}

/// The process's peak resident set size in bytes (`getrusage` `ru_maxrss`, which Linux gives
/// in KiB and macOS in bytes).
func peakMemoryBytes() -> Int {
  var usage = rusage()
  #if canImport(Glibc)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)
  #else
    let who = RUSAGE_SELF
  #endif
  guard getrusage(who, &usage) == 0 else { return 0 }
  #if canImport(Darwin)
    return Int(usage.ru_maxrss)
  #else
    return Int(usage.ru_maxrss) * 1024
  #endif
}
