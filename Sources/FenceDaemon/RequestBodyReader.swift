import FenceFormats
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reads a request body whole, within the daemon's limits: at most `limit` bytes as sent and
/// after gzip decompression (`Content-Encoding: gzip`), and within `timeout` seconds.
///
/// Every failure is a ``RequestRefusal`` with the status to answer: 413 for too large, 408 for
/// too slow, 415 for an unknown content encoding, 400 for a broken gzip stream.
struct RequestBodyReader {
  var limit: Int
  var timeout: Double

  func read(_ request: Request) async throws -> [UInt8] {
    if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
      throw RequestRefusal(.contentTooLarge, "the body is \(length) bytes; the limit is \(limit) (--max-body)")
    }
    let encoding = request.headers[.contentEncoding]?.lowercased().trimmingCharacters(in: .whitespaces)
    guard encoding == nil || encoding == "identity" || encoding == "gzip" else {
      throw RequestRefusal(
        .unsupportedMediaType, "Content-Encoding \(encoding!) is not supported (use gzip or none)")
    }
    let limit = self.limit
    let body = request.body
    let raw: [UInt8] = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
      group.addTask {
        var bytes: [UInt8] = []
        for try await chunk in body {
          guard bytes.count + chunk.readableBytes <= limit else {
            throw RequestRefusal(.contentTooLarge, "the body is larger than \(limit) bytes (--max-body)")
          }
          bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
      }
      group.addTask { [timeout] in
        try await Task.sleep(for: .seconds(timeout))
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let bytes = first else {
        throw RequestRefusal(.requestTimeout, "the body did not arrive within \(Int(timeout)) s")
      }
      return bytes
    }
    guard encoding == "gzip" else { return raw }
    do {
      return try Gunzip.inflate(raw, limit: limit)
    } catch {
      if case .largerThanLimit = error {
        throw RequestRefusal(
          .contentTooLarge, "the body is larger than \(limit) bytes once decompressed (--max-body)")
      }
      throw RequestRefusal(.badRequest, "the gzip body does not decompress: \(error.reason)")
    }
  }
}
