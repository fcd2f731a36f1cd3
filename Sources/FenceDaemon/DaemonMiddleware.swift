import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Turns every failure into a JSON answer `{"error": reason}` with its status, so that clients
/// always get a reason: refusals from the routes, Hummingbird's own errors (unknown route,
/// body too large) and anything unexpected (500, logged).
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  let logger: Logger

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let refusal as RequestRefusal {
      return refusal.response
    } catch let error as HTTPError {
      let reason: String
      switch error.status {
      case .notFound: reason = "no route \(request.method) \(request.uri.path)"
      case .methodNotAllowed: reason = "method \(request.method) not allowed on \(request.uri.path)"
      default: reason = error.body ?? error.status.reasonPhrase
      }
      return JSONBody.error(error.status, reason)
    } catch let error as any HTTPResponseError {
      return JSONBody.error(error.status, "\(error.status.reasonPhrase)")
    } catch {
      logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
      return JSONBody.error(.internalServerError, "internal error: \(error)")
    }
  }
}

/// Refuses `/v1` requests without `Authorization: Bearer <token>` (401).
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
  let token: String

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard request.uri.path.hasPrefix("/v1") else { return try await next(request, context) }
    guard let header = request.headers[.authorization] else {
      return unauthorized("missing Authorization: Bearer <token>")
    }
    let prefix = "Bearer "
    guard header.hasPrefix(prefix), Self.equal(Array(header.utf8.dropFirst(prefix.utf8.count)), Array(token.utf8))
    else { return unauthorized("wrong bearer token") }
    return try await next(request, context)
  }

  func unauthorized(_ reason: String) -> Response {
    var response = JSONBody.error(.unauthorized, reason)
    response.headers[.wwwAuthenticate] = "Bearer"
    return response
  }

  /// Compares in time that does not depend on where the bytes first differ.
  static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for i in 0..<min(a.count, b.count) { difference |= a[i] ^ b[i] }
    return difference == 0
  }
}
