import FenceEngine
import FenceFormats
import FenceStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The daemon's HTTP API (`Docs/Daemon.md`, spec `fenced.md`): one method per route, each
/// turning a request into a store call and the store's answer into JSON.
struct DaemonRoutes: Sendable {
  let store: FenceStore
  let settings: DaemonSettings
  let metrics: DaemonMetrics
  let logger: Logger
  let state: DaemonState

  var bodyReader: RequestBodyReader {
    RequestBodyReader(limit: settings.maximumBodyBytes, timeout: settings.bodyTimeoutSeconds)
  }

  func register(on router: Router<BasicRequestContext>) {
    router.get("/healthz") { _, _ in
      state.isServing
        ? JSONBody.response(.ok, "{\"status\":\"ok\"}")
        : JSONBody.error(.serviceUnavailable, "shutting down")
    }
    let v1 = router.group("v1")
    v1.post("fixes") { request, _ in try await ingest(request) }
    v1.post("advance") { request, _ in try await advance(request) }
    v1.get("events") { request, _ in try await events(request) }
    v1.get("events/stream") { request, _ in try await eventStream(request) }
    v1.get("zones") { _, _ in geoJSONResponse(try store.zoneSetGeoJSON()) }
    v1.get("zones/{id}") { _, context in
      let id = try context.parameters.require("id")
      guard let zone = store.zone(id: id) else {
        throw RequestRefusal(.notFound, "no zone \"\(id)\"")
      }
      return try zonesResponse([zone])
    }
    v1.put("zones") { request, _ in try await changeZones(request, replacingAll: true) }
    v1.post("zones") { request, _ in try await changeZones(request, replacingAll: false) }
    v1.delete("zones/{id}") { request, context in
      try await removeZone(try context.parameters.require("id"), request)
    }
    v1.put("devices/{id}/tags") { request, context in
      try await setDeviceTags(try context.parameters.require("id"), request)
    }
    v1.get("devices/{id}/explain") { request, context in
      try await explainDevice(try context.parameters.require("id"), request)
    }
    v1.get("devices/{id}") { _, context in
      let id = try context.parameters.require("id")
      guard let status = store.deviceStatus(named: id) else {
        throw RequestRefusal(.notFound, "no device \"\(id)\"")
      }
      return JSONBody.response(.ok, Self.json(status))
    }
  }

  // MARK: - Commands

  /// The request's idempotency key, checked.
  func idempotencyKey(_ request: Request) throws -> String? {
    guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
    guard !key.isEmpty, key.utf8.count <= FenceStore.Options.maximumIdempotencyKeyLength else {
      throw RequestRefusal(.badRequest, "Idempotency-Key must be 1 to 200 bytes")
    }
    return key
  }

  /// Runs a command through the store and answers it.
  func commit(_ command: StoreCommand, key: String?) async throws -> Response {
    let start = ContinuousClock.now
    let answer: CommandAnswer?
    do {
      answer = try await store.execute(command, idempotencyKey: key)
    } catch StoreError.invalidCommand(let reason) {
      throw RequestRefusal(.badRequest, reason)
    } catch let error as StoreError {
      logger.error("command failed", metadata: ["kind": "\(command.kindName)", "error": "\(error)"])
      throw RequestRefusal(.serviceUnavailable, "\(error)")
    } catch let error as ZoneError {
      throw RequestRefusal(.badRequest, "\(error)")
    }
    guard let answer else { throw RequestRefusal(.notFound, "no such zone") }
    metrics.record(answer, duration: ContinuousClock.now - start)
    var headers: HTTPFields = [:]
    if answer.isReplay { headers[HTTPField.Name("Idempotent-Replayed")!] = "true" }
    return JSONBody.response(.ok, answer.json, headers: headers)
  }

  /// Refuses a body whose declared type is not one of `accepted` (no type is accepted).
  func checkContentType(_ request: Request, _ accepted: [String]) throws {
    guard let type = request.headers[.contentType] else { return }
    let base = type.split(separator: ";").first.map {
      $0.trimmingCharacters(in: .whitespaces).lowercased()
    } ?? ""
    guard accepted.contains(base) else {
      throw RequestRefusal(
        .unsupportedMediaType,
        "Content-Type \(type.prefix(80)) is not accepted here; use one of \(accepted.joined(separator: ", "))")
    }
  }

  static let fixTypes = [
    "application/x-ndjson", "application/ndjson", "application/jsonl", "application/json",
    "text/plain",
  ]
  static let zoneTypes = ["application/geo+json", "application/json", "text/plain"]

  func ingest(_ request: Request) async throws -> Response {
    try checkContentType(request, Self.fixTypes)
    let key = try idempotencyKey(request)
    let body = try await bodyReader.read(request)
    let fixes: [LocationFix]
    do {
      fixes = try FixBatchReader.fixes(in: body)
    } catch {
      metrics.batchesRefused.increment()
      let list = error.problems.map { problem -> JSONValue in
        .object(["line": .number(Double(problem.line)), "reason": .string(problem.reason)])
      }
      let count = error.problemCount
      throw RequestRefusal(
        .badRequest,
        "\(count) \(error.isJSONArray ? "element" : "line")\(count == 1 ? "" : "s") of the body cannot be read as fixes; nothing was applied",
        extra: [("problems", .array(list))])
    }
    return try await commit(.fixes(fixes), key: key)
  }

  func advance(_ request: Request) async throws -> Response {
    try checkContentType(request, ["application/json", "text/plain"])
    let key = try idempotencyKey(request)
    let body = try await bodyReader.read(request)
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
      let text = object["time"] as? String
    else {
      throw RequestRefusal(.badRequest, "expected {\"time\":\"RFC 3339 time\"}")
    }
    guard let time = TimestampParser.parse(text) else {
      throw RequestRefusal(.badRequest, "\"time\": not an RFC 3339 time: \(text.prefix(80))")
    }
    return try await commit(.advance(time), key: key)
  }

  // MARK: - Zones

  func zonesResponse(_ zones: [Zone]) throws -> Response {
    geoJSONResponse(try ZoneSetWriter.bytes(zones))
  }

  func geoJSONResponse(_ bytes: [UInt8]) -> Response {
    Response(
      status: .ok, headers: [.contentType: "application/geo+json"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  func changeZones(_ request: Request, replacingAll: Bool) async throws -> Response {
    try checkContentType(request, Self.zoneTypes)
    let key = try idempotencyKey(request)
    let body = try await bodyReader.read(request)
    var options = settings.zoneLoadOptions
    if let repair = request.uri.queryParameters.get("repair") {
      guard let value = Bool(String(repair)) else {
        throw RequestRefusal(.badRequest, "repair must be true or false")
      }
      options.repair = value
    }
    let zones: [Zone]
    do {
      zones = try ZoneLoader.loadZones(from: body, file: "request body", options: options)
    } catch {
      throw RequestRefusal(.badRequest, "\(error)")
    }
    let response = try await commit(replacingAll ? .replaceAllZones(zones) : .addZones(zones), key: key)
    logger.notice(
      "zones changed",
      metadata: ["change": "\(replacingAll ? "replace all" : "add")", "zones": "\(zones.count)"])
    return response
  }

  func removeZone(_ id: String, _ request: Request) async throws -> Response {
    let response = try await commit(.removeZone(id), key: try idempotencyKey(request))
    logger.notice("zone removed", metadata: ["zone": "\(id)"])
    return response
  }

  // MARK: - Devices

  /// `GET /v1/devices/{id}/explain?from=&to=&limit=`: one NDJSON line per fix of the device in
  /// the range (RFC 3339 times, both optional; at most `limit`, default 1000, up to 10,000),
  /// made by replaying the command log (see ``FenceStore/explain(device:from:to:limit:)``).
  func explainDevice(_ device: String, _ request: Request) async throws -> Response {
    func time(_ name: String) throws -> Timestamp? {
      guard let text = request.uri.queryParameters.get(name) else { return nil }
      guard let time = TimestampParser.parse(String(text)) else {
        throw RequestRefusal(.badRequest, "\(name) must be an RFC 3339 time, got \(text.prefix(80))")
      }
      return time
    }
    var limit = 1000
    if let text = request.uri.queryParameters.get("limit") {
      guard let value = Int(String(text)), (1...10_000).contains(value) else {
        throw RequestRefusal(.badRequest, "limit must be a whole number from 1 to 10000")
      }
      limit = value
    }
    let explanations = try await store.explain(
      device: device, from: try time("from"), to: try time("to"), limit: limit)
    var body = ""
    for explanation in explanations { body += explanation.ndjsonLine + "\n" }
    return Response(
      status: .ok, headers: [.contentType: JSONBody.ndjsonContentType],
      body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
  }

  /// `PUT /v1/devices/{id}/tags` with `{"tags": ["ferry", …]}`: the device's tags for zones'
  /// `deviceTags` conditions (rules v2), replacing its previous ones; durable like any command.
  func setDeviceTags(_ device: String, _ request: Request) async throws -> Response {
    try checkContentType(request, ["application/json", "text/plain"])
    let key = try idempotencyKey(request)
    let body = try await bodyReader.read(request)
    let expected = "expected {\"tags\": [non-empty strings]}"
    guard case .object(let object)? = try? JSONReader.parse(String(decoding: body, as: UTF8.self)),
      object.count == 1, case .array(let items)? = object["tags"]
    else { throw RequestRefusal(.badRequest, expected) }
    var tags: [String] = []
    for item in items {
      guard case .string(let tag) = item, !tag.isEmpty else {
        throw RequestRefusal(.badRequest, expected)
      }
      tags.append(tag)
    }
    return try await commit(.setDeviceTags(device: device, tags: Array(Set(tags)).sorted()), key: key)
  }

  static func json(_ status: DeviceStatus) -> JSONValue {
    var object: JSONObject = ["device": .string(status.device)]
    if let fix = status.lastFix {
      object["lastFix"] = .object([
        "time": JSONBody.time(fix.time), "lat": .number(fix.latitude), "lon": .number(fix.longitude),
        "speed": JSONBody.number(fix.speed), "course": JSONBody.number(fix.course),
      ])
    } else {
      object["lastFix"] = .null
    }
    object["inside"] = .array(
      status.inside.map { presence in
        .object([
          "zone": .string(presence.zone), "checkedIn": .bool(presence.checkedIn),
          "checkInTime": JSONBody.time(presence.checkInTime),
          "fence": presence.checkInFence.map { .string($0) } ?? .null,
          "exitPending": .bool(presence.exitPending),
        ])
      })
    object["monitored"] = .array(status.monitored.map { .string($0) })
    object["tags"] = .array(status.tags.map { .string($0) })
    return .object(object)
  }
}

/// What the routes need to know about the process: whether it is still serving.
final class DaemonState: Sendable {
  private let serving = LockedValue(true)
  var isServing: Bool { serving.withLock { $0 } }
  func stopServing() { serving.withLock { $0 = false } }
}
