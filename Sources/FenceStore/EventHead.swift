import FenceEngine

/// The last committed event seq, and the tasks waiting for it to pass a given seq (long-polls,
/// server-sent event streams, webhook deliveries).
final class EventHead: Sendable {
  private struct Waiter {
    var after: Int64
    var continuation: CheckedContinuation<Int64, Never>
    /// Sleeps until the wait's timeout; cancelled when the waiter is woken earlier, so that
    /// short waits do not leave sleeping tasks behind.
    var timeout: Task<Void, Never>?
  }

  private struct State {
    var seq: Int64
    var waiters: [Int: Waiter] = [:]
    var nextID = 0
    var isClosed = false
  }

  private let state: LockedValue<State>

  init(seq: Int64) {
    state = LockedValue(State(seq: seq))
  }

  /// The last committed event seq.
  var seq: Int64 { state.withLock { $0.seq } }

  /// Whether ``close()`` was called.
  var isClosed: Bool { state.withLock { $0.isClosed } }

  /// Moves the head to `seq` and wakes every waiter it passes.
  func publish(_ seq: Int64) {
    let woken: [(CheckedContinuation<Int64, Never>)] = state.withLock { state in
      state.seq = max(state.seq, seq)  // publishes from concurrent commits may arrive out of order
      var woken: [CheckedContinuation<Int64, Never>] = []
      for (id, waiter) in state.waiters where waiter.after < seq {
        woken.append(waiter.continuation)
        waiter.timeout?.cancel()
        state.waiters[id] = nil
      }
      return woken
    }
    for continuation in woken { continuation.resume(returning: seq) }
  }

  /// Wakes every waiter and makes later waits return at once.
  func close() {
    let (woken, seq) = state.withLock { state in
      state.isClosed = true
      let woken = state.waiters.values.map(\.continuation)
      for waiter in state.waiters.values { waiter.timeout?.cancel() }
      state.waiters = [:]
      return (woken, state.seq)
    }
    for continuation in woken { continuation.resume(returning: seq) }
  }

  /// Waits until the head passes `after`, the time is up, the task is cancelled or the head is
  /// closed, whichever comes first; returns the head then.
  func wait(after: Int64, timeout: Duration) async -> Int64 {
    let id: Int? = state.withLock { state in
      guard state.seq <= after, !state.isClosed else { return nil }
      state.nextID += 1
      return state.nextID
    }
    guard let id else { return seq }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Int64, Never>) in
        let cancelled = Task.isCancelled
        let immediate: Int64? = state.withLock { state in
          guard state.seq <= after, !state.isClosed, !cancelled else { return state.seq }
          state.waiters[id] = Waiter(after: after, continuation: continuation)
          return nil
        }
        if let immediate {
          continuation.resume(returning: immediate)
          return
        }
        let timer = Task { [weak self] in
          try? await Task.sleep(for: timeout)
          if !Task.isCancelled { self?.wake(id) }
        }
        state.withLock { state in
          if state.waiters[id] != nil { state.waiters[id]!.timeout = timer } else { timer.cancel() }
        }
      }
    } onCancel: {
      wake(id)
    }
  }

  /// Resumes one waiter, if it still waits.
  private func wake(_ id: Int) {
    let found: (CheckedContinuation<Int64, Never>, Int64)? = state.withLock { state in
      guard let waiter = state.waiters.removeValue(forKey: id) else { return nil }
      waiter.timeout?.cancel()
      return (waiter.continuation, state.seq)
    }
    if let (continuation, seq) = found { continuation.resume(returning: seq) }
  }
}
