import AsyncHTTPClient
import FenceStore
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// Delivers the event log to one webhook URL, at least once, in seq order: NDJSON batches of
/// up to 1,000 events POSTed with `Fence-Seq: a-b`; the durable cursor (`webhook:URL` in the
/// store) moves only after a 2xx answer, so a restart goes on where delivery stopped. A failing
/// or slow receiver is retried with capped exponential backoff (0.5 s doubling to 60 s); it
/// never blocks ingest. A new URL starts from the beginning of the log.
///
/// In the scaled-out `fenced`, the owner of each partition delivers that partition's events
/// with a cursor of the partition's own (``PartitionWebhooks``); requests then carry
/// `Fence-Partition: p` too.
struct WebhookDelivery: Service {
  let url: String
  let store: FenceStore
  var partition: Int32? = nil
  let client: HTTPClient
  let logger: Logger
  let metrics: DaemonMetrics
  var batchSize = 1000
  var requestTimeout = TimeAmount.seconds(10)

  var cursorName: String { "webhook:\(url)" }

  func run() async throws {
    var cursor = try store.cursor(named: cursorName) ?? 0
    var backoff = 0.5
    logger.info("webhook delivery starts", metadata: ["url": "\(url)", "after": "\(cursor)"])
    while !Task.isShuttingDownGracefully, !Task.isCancelled {
      metrics.webhookLag(url).record(store.lastEventSeq - cursor)
      let events = try await store.events(after: cursor, limit: batchSize)
      if events.isEmpty {
        let waitingAfter = cursor
        _ = await cancelWhenGracefulShutdown {
          await store.waitForEvents(after: waitingAfter, timeout: .seconds(30))
        }
        continue
      }
      let first = events.first!.seq
      let last = events.last!.seq
      var body = ""
      for event in events {
        body += event.line
        body += "\n"
      }
      var request = HTTPClientRequest(url: url)
      request.method = .POST
      request.headers.add(name: "Content-Type", value: "application/x-ndjson")
      request.headers.add(name: "Fence-Seq", value: "\(first)-\(last)")
      if let partition { request.headers.add(name: "Fence-Partition", value: "\(partition)") }
      request.body = .bytes(ByteBuffer(string: body))
      var delivered = false
      do {
        let response = try await client.execute(request, timeout: requestTimeout)
        _ = try? await response.body.collect(upTo: 1 << 20)
        delivered = (200..<300).contains(Int(response.status.code))
        if !delivered {
          logger.warning(
            "webhook refused a batch",
            metadata: ["url": "\(url)", "seq": "\(first)-\(last)", "status": "\(response.status.code)"])
        }
      } catch {
        logger.warning(
          "webhook delivery failed",
          metadata: ["url": "\(url)", "seq": "\(first)-\(last)", "error": "\(error)"])
      }
      if delivered {
        try store.setCursor(named: cursorName, to: last)
        cursor = last
        backoff = 0.5
      } else {
        let pause = backoff
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(pause)) }
        backoff = min(backoff * 2, 60)
      }
    }
  }
}
