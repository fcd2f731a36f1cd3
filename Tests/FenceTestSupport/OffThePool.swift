import Foundation
import Testing

// MARK: - Blocking work off the cooperative pool

/// Runs each job on a thread of its own, outside Swift's cooperative pool.
///
/// The store's synchronous methods block on SQLite and the disk, and the daemon tests block on
/// pipes, sockets and child processes. Run on the cooperative pool
/// (one thread per core, two on small machines), a few such tests in parallel would keep every
/// pool thread busy for seconds, and the tests that measure how fast a waiter wakes up (or the
/// store's own timeout tasks) would wait for a free thread instead.
public final class ThreadPerJobExecutor: TaskExecutor {
  public static let shared = ThreadPerJobExecutor()

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    let thread = Thread { job.runSynchronously(on: executor) }
    thread.stackSize = 8 << 20
    thread.start()
  }
}

/// Runs blocking test code on a thread of its own (see ``ThreadPerJobExecutor``); the test's
/// context (for `#expect`) goes with it, as it is the same task.
public func offThePool<T>(_ body: () async throws -> T) async throws -> T {
  try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await body() }
}

/// A suite or test trait that runs every test body (and suite initialiser) off the cooperative
/// pool (see ``ThreadPerJobExecutor``): `@Suite(.offThePool)`.
public struct OffThePoolTrait: SuiteTrait, TestTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
  }
}

extension Trait where Self == OffThePoolTrait {
  /// Runs the tests off the cooperative pool, for tests that block on processes and sockets.
  public static var offThePool: Self { OffThePoolTrait() }
}
