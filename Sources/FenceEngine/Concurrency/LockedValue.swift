#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value behind a POSIX mutex, handed out only inside ``withLock(_:)``: the engine's
/// thread-safe fronts (`FenceMonitor`, `ShardedEvaluator`) and `FenceStore` keep their state in
/// one.
///
/// It does what the standard library's `Synchronization.Mutex` does, on `pthread_mutex_t`, which
/// ThreadSanitizer understands: on Linux it reported every `Mutex`-protected access of the
/// project's concurrency tests as a race once the test binary also linked the daemon's packages
/// (SwiftNIO, Hummingbird), so the CI's TSan step could no longer tell a real race from a false
/// one. With a pthread mutex it sees the lock's happens-before edges.
///
/// `@unchecked Sendable` because the value is only reached under the lock; the value goes in
/// as `sending` and results come out as `sending`, as with `Mutex`, so a non-`Sendable` value
/// (an evaluator holding GEOS handles) is never shared outside it.
public final class LockedValue<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  public init(_ value: sending Value) {
    self.value = value
    mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed with \(status)")
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value while holding the lock. Not reentrant: calling `withLock` on the
  /// same value inside `body` deadlocks.
  public func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
