import FenceEngine
import FenceFormats
import FenceStore
import Foundation
import HTTPTypes
import Hummingbird

/// What both kinds of `fenced` (one process, or scaled out on PostgreSQL) read from a command
/// request the same way: the idempotency key, the content type, and the body as fixes, a time,
/// zones or tags, each refused with a reason (``RequestRefusal``) when it does not read.
struct RequestParsing: Sendable {
  let settings: DaemonSettings

  var bodyReader: RequestBodyReader {
    RequestBodyReader(limit: settings.maximumBodyBytes, timeout: settings.bodyTimeoutSeconds)
  }

  static let fixTypes = [
    "application/x-ndjson", "application/ndjson", "application/jsonl", "application/json",
    "text/plain",
  ]
  static let zoneTypes = ["application/geo+json", "application/json", "text/plain"]
  static let jsonTypes = ["application/json", "text/plain"]

  /// The request's idempotency key, checked.
  func idempotencyKey(_ request: Request) throws -> String? {
    guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
    guard !key.isEmpty, key.utf8.count <= FenceStore.Options.maximumIdempotencyKeyLength else {
      throw RequestRefusal(.badRequest, "Idempotency-Key must be 1 to 200 bytes")
    }
    return key
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

  /// The body's fixes (NDJSON or a JSON array); a body with any problem is refused whole, its
  /// first problems listed.
  func fixes(_ request: Request, metrics: DaemonMetrics) async throws -> [LocationFix] {
    let body = try await bodyReader.read(request)
    do {
      return try FixBatchReader.fixes(in: body)
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
  }

  /// The time of a `{"time":"RFC 3339"}` body.
  func advanceTime(_ request: Request) async throws -> Timestamp {
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
    return time
  }

  /// The zones of a GeoJSON body, loaded as the zone files are (`?repair=` overrides
  /// `--repair`).
  func zones(_ request: Request) async throws -> [Zone] {
    let body = try await bodyReader.read(request)
    var options = settings.zoneLoadOptions
    if let repair = request.uri.queryParameters.get("repair") {
      guard let value = Bool(String(repair)) else {
        throw RequestRefusal(.badRequest, "repair must be true or false")
      }
      options.repair = value
    }
    do {
      return try ZoneLoader.loadZones(from: body, file: "request body", options: options)
    } catch {
      throw RequestRefusal(.badRequest, "\(error)")
    }
  }

  /// The tags of a `{"tags": [non-empty strings]}` body, without repeats, sorted.
  func tags(_ request: Request) async throws -> [String] {
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
    return Array(Set(tags)).sorted()
  }
}
