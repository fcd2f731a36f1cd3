import FenceStore
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

extension DaemonRoutes {
  /// The header that carries where a reader stands in the event log.
  static let cursorHeader = HTTPField.Name("Fence-Cursor")!

  /// `GET /v1/events?after=S&limit=N&wait=T`.
  func events(_ request: Request) async throws -> Response {
    let query = request.uri.queryParameters
    let after = try Self.integer(query.get("after"), name: "after", default: 0, range: 0...Int64.max)
    let limit = try Self.integer(
      query.get("limit"), name: "limit", default: 1000, range: 1...Int64(FenceStore.maximumEventsPerRead))
    let wait = try Self.integer(query.get("wait"), name: "wait", default: 0, range: 0...30)
    var events = try await store.events(after: after, limit: Int(limit))
    if events.isEmpty, wait > 0 {
      // Long-poll: held until an event comes, the time is up, or the daemon shuts down.
      _ = await cancelWhenGracefulShutdown {
        await store.waitForEvents(after: after, timeout: .seconds(wait))
      }
      events = try await store.events(after: after, limit: Int(limit))
    }
    var body = ""
    body.reserveCapacity(events.count * 300)
    for event in events {
      body += event.line
      body += "\n"
    }
    let cursor = events.last?.seq ?? after
    return Response(
      status: .ok,
      headers: [.contentType: JSONBody.ndjsonContentType, Self.cursorHeader: String(cursor)],
      body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
  }

  /// `GET /v1/events/stream`: server-sent events from `Last-Event-ID` (or `?after=`) on, with a
  /// comment line every 15 s so that proxies and dead clients are noticed.
  func eventStream(_ request: Request) async throws -> Response {
    let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!]
    let after: Int64
    if let lastEventID {
      guard let seq = Int64(lastEventID.trimmingCharacters(in: .whitespaces)), seq >= 0 else {
        throw RequestRefusal(.badRequest, "Last-Event-ID must be an event seq")
      }
      after = seq
    } else {
      after = try Self.integer(
        request.uri.queryParameters.get("after"), name: "after", default: 0, range: 0...Int64.max)
    }
    let store = self.store
    let state = self.state
    return Response(
      status: .ok,
      headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
      body: ResponseBody { writer in
        var cursor = after
        try await writer.write(ByteBuffer(string: ": fenced events after \(after)\n\n"))
        while state.isServing, !Task.isCancelled, !Task.isShuttingDownGracefully {
          let events = try await store.events(after: cursor, limit: 1000)
          if events.isEmpty {
            let waitingAfter = cursor
            let head = await cancelWhenGracefulShutdown {
              await store.waitForEvents(after: waitingAfter, timeout: .seconds(15))
            }
            if head <= cursor { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
            continue
          }
          var text = ""
          for event in events {
            text += "id: \(event.seq)\ndata: \(event.line)\n\n"
          }
          try await writer.write(ByteBuffer(string: text))
          cursor = events.last!.seq
        }
        try await writer.finish(nil)
      })
  }

  /// A whole number from the query, checked against `range`.
  static func integer(
    _ text: String?, name: String, default value: Int64, range: ClosedRange<Int64>
  ) throws -> Int64 {
    guard let text else { return value }
    guard let number = Int64(text), range.contains(number) else {
      throw RequestRefusal(
        .badRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }
}
