import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// What one batch request gave.
struct BatchOutcome: Sendable {
  var client: Int
  var index: Int
  var fixCount: Int
  var sent: ContinuousClock.Instant
  var answered: ContinuousClock.Instant
  var accepted: Int
  var rejected: Int
  var events: Int
  var firstSeq: Int64?
  var lastSeq: Int64?

  var latencyMilliseconds: Double { (answered - sent).seconds * 1000 }
}

/// Everything a run of batches gave, with its wall-clock window.
struct SendResult: Sendable {
  var outcomes: [BatchOutcome]
  var start: ContinuousClock.Instant
  var end: ContinuousClock.Instant

  var wallSeconds: Double { (end - start).seconds }
  var fixesAcknowledged: Int { outcomes.reduce(0) { $0 + $1.fixCount } }
  var fixesPerSecond: Double { Double(fixesAcknowledged) / wallSeconds }
  var latencies: Percentiles { Percentiles(outcomes.map(\.latencyMilliseconds)) }
}

/// An HTTP client with room for every concurrent sender and the poller on one host.
func makeHTTPClient() -> HTTPClient {
  var configuration = HTTPClient.Configuration()
  configuration.connectionPool = .init(idleTimeout: .seconds(600), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
  configuration.timeout = .init(connect: .seconds(10), read: .seconds(300))
  return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// Opens `count` connections (concurrent `GET /healthz`), so no timed request pays a connect.
func warmConnections(_ count: Int, client: HTTPClient, baseURL: String) async throws {
  try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<count {
      group.addTask {
        var request = HTTPClientRequest(url: baseURL + "/healthz")
        request.method = .GET
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 16)
      }
    }
    try await group.waitForAll()
  }
}

/// Sends every client's batches, each client one request at a time, all clients at once, as
/// `POST /v1/fixes` with `Content-Type: application/x-ndjson` and an `Idempotency-Key`.
/// Any answer other than 200 stops the run.
func sendAll(_ plan: LoadPlan, client: HTTPClient, baseURL: String, runID: String) async throws -> SendResult {
  let start = ContinuousClock.now
  let outcomes = try await withThrowingTaskGroup(of: [BatchOutcome].self) { group in
    for (clientIndex, batches) in plan.batchesPerClient.enumerated() {
      group.addTask {
        var outcomes: [BatchOutcome] = []
        outcomes.reserveCapacity(batches.count)
        for (index, batch) in batches.enumerated() {
          var request = HTTPClientRequest(url: baseURL + "/v1/fixes")
          request.method = .POST
          request.headers.add(name: "Content-Type", value: "application/x-ndjson")
          request.headers.add(name: "Idempotency-Key", value: "\(runID)-c\(clientIndex)-b\(index)")
          request.body = .bytes(batch.body)
          let sent = ContinuousClock.now
          let response = try await client.execute(request, timeout: .seconds(300))
          let body = try await response.body.collect(upTo: 1 << 20)
          let answered = ContinuousClock.now
          guard response.status == .ok else {
            throw LoadFailure("batch \(index) of client \(clientIndex): \(response.status.code) \(String(buffer: body).prefix(500))")
          }
          guard
            let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
          else { throw LoadFailure("batch \(index): the answer is not a JSON object") }
          func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
          let rejected = (object["rejected"] as? [String: Any])?.values.reduce(0) {
            $0 + (($1 as? NSNumber)?.intValue ?? 0)
          }
          outcomes.append(
            BatchOutcome(
              client: clientIndex, index: index, fixCount: batch.fixCount, sent: sent, answered: answered,
              accepted: int("accepted") ?? 0, rejected: rejected ?? 0, events: int("events") ?? 0,
              firstSeq: (object["firstSeq"] as? NSNumber)?.int64Value,
              lastSeq: (object["lastSeq"] as? NSNumber)?.int64Value))
        }
        return outcomes
      }
    }
    var all: [BatchOutcome] = []
    for try await list in group { all += list }
    return all
  }
  let end = outcomes.map(\.answered).max() ?? start
  return SendResult(outcomes: outcomes, start: start, end: end)
}

/// A long-poller on `GET /v1/events?after=C&wait=30`: notes when each range of event seqs was
/// first returned. Runs until cancelled.
final class EventPoller: Sendable {
  struct Arrival: Sendable {
    var first: Int64
    var last: Int64
    var at: ContinuousClock.Instant
  }

  private struct State {
    var cursor: Int64 = 0
    var arrivals: [Arrival] = []
    var polls = 0
    var lines = 0
  }

  private let state = Mutex(State())

  var cursor: Int64 { state.withLock { $0.cursor } }
  var arrivals: [Arrival] { state.withLock { $0.arrivals } }
  var polls: Int { state.withLock { $0.polls } }
  var lines: Int { state.withLock { $0.lines } }

  func run(client: HTTPClient, baseURL: String) async {
    var cursor = state.withLock { $0.cursor }
    while !Task.isCancelled {
      var request = HTTPClientRequest(url: baseURL + "/v1/events?after=\(cursor)&limit=100000&wait=30")
      request.method = .GET
      do {
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 256 << 20)
        let at = ContinuousClock.now
        guard response.status == .ok, let next = response.headers.first(name: "Fence-Cursor").flatMap(Int64.init)
        else {
          note("events poll: status \(response.status.code)")
          return
        }
        let lines = body.readableBytesView.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let first = cursor + 1
        state.withLock { state in
          state.polls += 1
          state.lines += lines
          if next > state.cursor {
            state.arrivals.append(Arrival(first: first, last: next, at: at))
            state.cursor = next
          }
        }
        cursor = next
      } catch {
        return  // cancelled (the run is over) or the daemon went away
      }
    }
  }
}
