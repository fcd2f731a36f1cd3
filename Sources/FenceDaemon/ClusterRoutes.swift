import FenceEngine
import FenceFormats
import FenceStore
import FenceStorePostgres
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// The HTTP API of the scaled-out `fenced` (`Docs/Daemon.md`, "Several processes"): the routes
/// of one process, with commands going through the partitions' inboxes and events read from
/// every partition.
struct ClusterRoutes: Sendable {
  let daemon: ClusterDaemon

  var parsing: RequestParsing { RequestParsing(settings: daemon.settings) }
  var partitions: Int32 { daemon.owner.partitioning.count }
  /// The longest a request waits for its command to be executed.
  static let executionWait = Duration.seconds(30)

  func register(on router: Router<BasicRequestContext>) {
    let state = daemon.state
    router.get("/healthz") { _, _ in
      state.isServing
        ? JSONBody.response(.ok, "{\"status\":\"ok\"}")
        : JSONBody.error(.serviceUnavailable, "shutting down")
    }
    let v1 = router.group("v1")
    v1.post("fixes") { request, _ in
      try parsing.checkContentType(request, RequestParsing.fixTypes)
      let key = try parsing.idempotencyKey(request)
      let fixes = try await parsing.fixes(request, metrics: daemon.metrics)
      return try await submit(.fixes(fixes), key: key, received: fixes.count, wait: try waitsForEvents(request))
    }
    v1.post("advance") { request, _ in
      try parsing.checkContentType(request, RequestParsing.jsonTypes)
      let key = try parsing.idempotencyKey(request)
      let time = try await parsing.advanceTime(request)
      return try await submit(.advance(time), key: key, received: 0, wait: try waitsForEvents(request))
    }
    v1.get("events") { request, _ in try await events(request) }
    v1.get("events/stream") { request, _ in try await eventStream(request) }
    v1.get("zones") { _, _ in
      DaemonRoutes.geoJSONResponse(try anyStore().zoneSetGeoJSON())
    }
    v1.get("zones/{id}") { _, context in
      let id = try context.parameters.require("id")
      guard let zone = try anyStore().zone(id: id) else {
        throw RequestRefusal(.notFound, "no zone \"\(id)\"")
      }
      return try DaemonRoutes.zonesResponse([zone])
    }
    v1.put("zones") { request, _ in try await changeZones(request, replacingAll: true) }
    v1.post("zones") { request, _ in try await changeZones(request, replacingAll: false) }
    v1.delete("zones/{id}") { request, context in
      let id = try context.parameters.require("id")
      return try await submit(.removeZone(id), key: try parsing.idempotencyKey(request), received: 0, wait: true)
    }
    v1.put("devices/{id}/tags") { request, context in
      let device = try context.parameters.require("id")
      try parsing.checkContentType(request, RequestParsing.jsonTypes)
      let key = try parsing.idempotencyKey(request)
      let tags = try await parsing.tags(request)
      return try await submit(.setDeviceTags(device: device, tags: tags), key: key, received: 0, wait: true)
    }
    v1.get("devices/{id}/explain") { request, context in
      let device = try context.parameters.require("id")
      return try await DaemonRoutes.explainDevice(device, request, in: try ownerStore(ofDevice: device))
    }
    v1.get("devices/{id}") { _, context in
      let id = try context.parameters.require("id")
      guard let status = try ownerStore(ofDevice: id).deviceStatus(named: id) else {
        throw RequestRefusal(.notFound, "no device \"\(id)\"")
      }
      return JSONBody.response(.ok, DaemonRoutes.json(status))
    }
  }

  // MARK: - Commands

  /// Whether the request asks to wait for its events (`?wait=events`).
  func waitsForEvents(_ request: Request) throws -> Bool {
    guard let wait = request.uri.queryParameters.get("wait") else { return false }
    guard wait == "events" else { throw RequestRefusal(.badRequest, "wait must be events") }
    return true
  }

  func changeZones(_ request: Request, replacingAll: Bool) async throws -> Response {
    try parsing.checkContentType(request, RequestParsing.zoneTypes)
    let key = try parsing.idempotencyKey(request)
    let zones = try await parsing.zones(request)
    let response = try await submit(
      replacingAll ? .replaceAllZones(zones) : .addZones(zones), key: key, received: 0, wait: true)
    daemon.logger.notice(
      "zones changed",
      metadata: ["change": "\(replacingAll ? "replace all" : "add")", "zones": "\(zones.count)"])
    return response
  }

  /// Submits a command to the inboxes and answers: once durable there, or with `wait` once
  /// every part was executed (202 with the parts when that takes over 30 s; the command is
  /// durable and will be executed).
  func submit(_ command: StoreCommand, key: String?, received: Int, wait: Bool) async throws -> Response {
    let inbox = daemon.inbox
    let receipt: PartitionInbox.Receipt
    do {
      receipt = try await offloaded { try inbox.submit(command, idempotencyKey: key) }
    } catch StoreError.invalidCommand(let reason) {
      throw RequestRefusal(.badRequest, reason)
    } catch {
      daemon.logger.error("submit failed", metadata: ["kind": "\(command.kindName)", "error": "\(error)"])
      throw RequestRefusal(.serviceUnavailable, "\(error)")
    }
    let owned = Set(daemon.owner.ownedPartitions)
    if receipt.parts.contains(where: { owned.contains($0.partition) }) { daemon.owner.wake() }
    var answer = PartitionedAnswer(receipt: receipt, received: received)
    var status = HTTPResponse.Status.ok
    if wait {
      answer.outcomes = try await outcomes(of: receipt)
      if !answer.isComplete { status = .accepted }
      if let refusal = answer.refusal {
        throw RequestRefusal(HTTPResponse.Status(code: refusal.status), refusal.message)
      }
    }
    var headers: HTTPFields = [:]
    if receipt.isReplay { headers[HTTPField.Name("Idempotent-Replayed")!] = "true" }
    return JSONBody.response(status, try answer.json(), headers: headers)
  }

  /// The parts' outcomes once every part was executed, or what there is after 30 s.
  func outcomes(of receipt: PartitionInbox.Receipt) async throws -> [Int32: String] {
    let inbox = daemon.inbox
    let deadline = ContinuousClock.now + Self.executionWait
    var pause = Duration.milliseconds(2)
    while true {
      let outcomes = try await offloaded { try inbox.outcomes(of: receipt) }
      if outcomes.count == receipt.parts.count || ContinuousClock.now >= deadline { return outcomes }
      try await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(50))
    }
  }

  // MARK: - Reads

  /// The store of any owned partition (every partition holds the same zones).
  func anyStore() throws -> FenceStore {
    guard let store = daemon.owner.anyStore else {
      throw RequestRefusal(
        .serviceUnavailable, "this process owns no partition yet; ask again, or ask another process")
    }
    return store
  }

  /// The store of the partition of `device`, when this process owns it.
  func ownerStore(ofDevice device: String) throws -> FenceStore {
    let partition = daemon.owner.partitioning.partition(of: device)
    guard let store = daemon.owner.store(of: partition) else {
      throw RequestRefusal(
        .misdirectedRequest,
        "device \"\(device)\" is in partition \(partition), which another process owns: ask it")
    }
    return store
  }

  /// The cursor of `?after=` (or `Last-Event-ID`): one seq per partition, or 0.
  func cursor(_ text: String?, name: String) throws -> EventCursor {
    guard let text else { return EventCursor(partitions: partitions) }
    guard let cursor = EventCursor(text.trimmingCharacters(in: .whitespaces), partitions: partitions) else {
      throw RequestRefusal(
        .badRequest,
        "\(name) must be a Fence-Cursor of this store (\(partitions) seqs joined by dots) or 0")
    }
    return cursor
  }

  /// `GET /v1/events?after=CURSOR&limit=N&wait=T`: the events of every partition after the
  /// cursor, merged; the `Fence-Cursor` header continues after them.
  func events(_ request: Request) async throws -> Response {
    let query = request.uri.queryParameters
    let after = try cursor(query.get("after").map { String($0) }, name: "after")
    let limit = Int(
      try DaemonRoutes.integer(
        query.get("limit"), name: "limit", default: 1000, range: 1...Int64(FenceStore.maximumEventsPerRead)))
    let wait = try DaemonRoutes.integer(query.get("wait"), name: "wait", default: 0, range: 0...30)
    let log = daemon.eventLog
    let deadline = ContinuousClock.now + .seconds(wait)
    var page = try await offloaded { try log.events(after: after, limit: limit) }
    while page.events.isEmpty, ContinuousClock.now < deadline, daemon.state.isServing,
      !Task.isShuttingDownGracefully
    {
      try await Task.sleep(for: .milliseconds(50))
      page = try await offloaded { try log.events(after: after, limit: limit) }
    }
    var body = ""
    body.reserveCapacity(page.events.count * 300)
    for event in page.events {
      body += event.line
      body += "\n"
    }
    return Response(
      status: .ok,
      headers: [
        .contentType: JSONBody.ndjsonContentType, DaemonRoutes.cursorHeader: page.cursor.description,
      ],
      body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
  }

  /// `GET /v1/events/stream`: server-sent events of every partition; each `id:` is the cursor
  /// after its event, so that `Last-Event-ID` resumes right after it.
  func eventStream(_ request: Request) async throws -> Response {
    let after: EventCursor
    if let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!] {
      after = try cursor(lastEventID, name: "Last-Event-ID")
    } else {
      after = try cursor(request.uri.queryParameters.get("after").map { String($0) }, name: "after")
    }
    let log = daemon.eventLog
    let state = daemon.state
    return Response(
      status: .ok,
      headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
      body: ResponseBody { writer in
        var cursor = after
        var quiet = ContinuousClock.now
        try await writer.write(ByteBuffer(string: ": fenced events after \(after)\n\n"))
        while state.isServing, !Task.isCancelled, !Task.isShuttingDownGracefully {
          let from = cursor
          let page = try await offloaded { try log.events(after: from, limit: 1000) }
          if page.events.isEmpty {
            if ContinuousClock.now - quiet > .seconds(15) {
              try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
              quiet = ContinuousClock.now
            }
            try await Task.sleep(for: .milliseconds(50))
            continue
          }
          var text = ""
          for event in page.events {
            cursor.seqs[Int(event.partition)] = event.seq
            text += "id: \(cursor)\ndata: \(event.line)\n\n"
          }
          try await writer.write(ByteBuffer(string: text))
          quiet = ContinuousClock.now
        }
        try await writer.finish(nil)
      })
  }
}
