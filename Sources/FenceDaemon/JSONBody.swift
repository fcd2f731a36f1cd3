import FenceEngine
import FenceFormats
import Foundation
import HTTPTypes
import Hummingbird

/// Small helpers that make the daemon's JSON answers.
enum JSONBody {
  static let contentType = "application/json"
  static let ndjsonContentType = "application/x-ndjson"

  /// A response with a JSON text body.
  static func response(
    _ status: HTTPResponse.Status = .ok, _ text: String, headers: HTTPFields = [:]
  ) -> Response {
    var fields = headers
    fields[.contentType] = contentType
    return Response(
      status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
  }

  /// A response with a JSON value.
  static func response(_ status: HTTPResponse.Status = .ok, _ value: JSONValue) -> Response {
    response(status, JSONWriter.string(value))
  }

  /// `{"error": message}` with more members after it.
  static func error(
    _ status: HTTPResponse.Status, _ message: String, extra: [(String, JSONValue)] = []
  ) -> Response {
    var object = JSONObject()
    object["error"] = .string(message)
    for (key, value) in extra { object[key] = value }
    return response(status, .object(object))
  }

  static func time(_ t: Timestamp?) -> JSONValue { t.map { .string(RFC3339.format($0)) } ?? .null }

  static func number(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
}

/// A request the daemon refuses, with the status and the reason to send (as an
/// `HTTPResponseError`, so that request metrics record its status).
struct RequestRefusal: HTTPResponseError {
  var status: HTTPResponse.Status
  var message: String
  var extra: [(String, JSONValue)] = []

  init(_ status: HTTPResponse.Status, _ message: String, extra: [(String, JSONValue)] = []) {
    self.status = status
    self.message = message
    self.extra = extra
  }

  var response: Response { JSONBody.error(status, message, extra: extra) }

  func response(from request: Request, context: some RequestContext) throws -> Response { response }
}
