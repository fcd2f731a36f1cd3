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

  var parsing: RequestParsing { RequestParsing(settings: settings) }

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
    v1.get("zones") { _, _ in Self.geoJSONResponse(try store.zoneSetGeoJSON()) }
    v1.get("zones/{id}") { _, context in
      let id = try context.parameters.require("id")
      guard let zone = store.zone(id: id) else {
        throw RequestRefusal(.notFound, "no zone \"\(id)\"")
      }
      return try Self.zonesResponse([zone])
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
      try await Self.explainDevice(try context.parameters.require("id"), request, in: store)
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

  func ingest(_ request: Request) async throws -> Response {
    try parsing.checkContentType(request, RequestParsing.fixTypes)
    let key = try parsing.idempotencyKey(request)
    let fixes = try await parsing.fixes(request, metrics: metrics)
    return try await commit(.fixes(fixes), key: key)
  }

  func advance(_ request: Request) async throws -> Response {
    try parsing.checkContentType(request, RequestParsing.jsonTypes)
    let key = try parsing.idempotencyKey(request)
    return try await commit(.advance(try await parsing.advanceTime(request)), key: key)
  }

  // MARK: - Zones

  static func zonesResponse(_ zones: [Zone]) throws -> Response {
    geoJSONResponse(try ZoneSetWriter.bytes(zones))
  }

  static func geoJSONResponse(_ bytes: [UInt8]) -> Response {
    Response(
      status: .ok, headers: [.contentType: "application/geo+json"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  func changeZones(_ request: Request, replacingAll: Bool) async throws -> Response {
    try parsing.checkContentType(request, RequestParsing.zoneTypes)
    let key = try parsing.idempotencyKey(request)
    let zones = try await parsing.zones(request)
    let response = try await commit(replacingAll ? .replaceAllZones(zones) : .addZones(zones), key: key)
    logger.notice(
      "zones changed",
      metadata: ["change": "\(replacingAll ? "replace all" : "add")", "zones": "\(zones.count)"])
    return response
  }

  func removeZone(_ id: String, _ request: Request) async throws -> Response {
    let response = try await commit(.removeZone(id), key: try parsing.idempotencyKey(request))
    logger.notice("zone removed", metadata: ["zone": "\(id)"])
    return response
  }

  // MARK: - Devices

  /// `GET /v1/devices/{id}/explain?from=&to=&limit=`: one NDJSON line per fix of the device in
  /// the range (RFC 3339 times, both optional; at most `limit`, default 1000, up to 10,000),
  /// made by replaying the command log (see ``FenceStore/explain(device:from:to:limit:)``).
  static func explainDevice(_ device: String, _ request: Request, in store: FenceStore) async throws
    -> Response
  {
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
    try parsing.checkContentType(request, RequestParsing.jsonTypes)
    let key = try parsing.idempotencyKey(request)
    return try await commit(.setDeviceTags(device: device, tags: try await parsing.tags(request)), key: key)
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
