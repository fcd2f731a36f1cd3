import AsyncHTTPClient
import FenceEngine
import FenceFormats
import FenceTestSupport
import Foundation
import NIOCore
import NIOHTTP1

/// An answer from the daemon, read whole.
struct HTTPAnswer {
  var status: Int
  var headers: HTTPHeaders
  var body: String

  func header(_ name: String) -> String? { headers.first(name: name) }
}

/// Requests to one daemon through AsyncHTTPClient.
struct DaemonClient {
  var baseURL: String
  var token: String?

  func request(
    _ method: HTTPMethod, _ path: String, body: [UInt8]? = nil,
    headers: [(String, String)] = [], timeout: TimeAmount = .seconds(60)
  ) async throws -> HTTPAnswer {
    var request = HTTPClientRequest(url: baseURL + path)
    request.method = method
    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
    let response = try await HTTPClient.shared.execute(request, timeout: timeout)
    let bytes = try await response.body.collect(upTo: 256 << 20)
    return HTTPAnswer(
      status: Int(response.status.code), headers: response.headers,
      body: String(buffer: bytes))
  }

  func postFixes(_ ndjson: String, key: String? = nil) async throws -> HTTPAnswer {
    try await request(
      .POST, "/v1/fixes", body: Array(ndjson.utf8),
      headers: key.map { [("Idempotency-Key", $0)] } ?? [])
  }

  func advance(to time: Timestamp) async throws -> HTTPAnswer {
    try await request(.POST, "/v1/advance", body: Array("{\"time\":\"\(RFC3339.format(time))\"}".utf8))
  }

  /// Every event line of the log, read page by page with the cursor header.
  func allEvents() async throws -> [String] {
    var lines: [String] = []
    var cursor = "0"
    while true {
      let answer = try await request(.GET, "/v1/events?after=\(cursor)&limit=5000")
      guard answer.status == 200 else { throw DaemonFailure("events: \(answer.status) \(answer.body)") }
      let page = answer.body.split(separator: "\n").map(String.init)
      if page.isEmpty { return lines }
      lines += page
      cursor = answer.header("Fence-Cursor") ?? ""
    }
  }
}

/// Fixes for the daemon tests: the harbor's first hour, sorted by time as `fencebench run` sorts.
enum TestFixes {
  static let harborZones = "Fixtures/zones/nyharbor-zones.geojson"

  static func harborHour() throws -> [LocationFix] {
    let fixes = try TrackReader(path: fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")).readAll()
    return fixes.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }.map(\.element)
  }

  /// One fix as a daemon NDJSON line (every number exact).
  static func line(_ fix: LocationFix) -> String {
    var object: JSONObject = [
      "device": .string(fix.device), "time": .string(RFC3339.format(fix.time)),
      "lat": .number(fix.latitude), "lon": .number(fix.longitude),
    ]
    if let accuracy = fix.accuracy { object["accuracy"] = .number(accuracy) }
    if let speed = fix.speed { object["speed"] = .number(speed) }
    if let course = fix.course { object["course"] = .number(course) }
    return JSONWriter.string(.object(object))
  }

  static func ndjson(_ fixes: some Sequence<LocationFix>) -> String {
    fixes.map { line($0) + "\n" }.joined()
  }

  /// `fixes` cut into batches of `size`.
  static func batches(_ fixes: [LocationFix], size: Int) -> [String] {
    stride(from: 0, to: fixes.count, by: size).map {
      ndjson(fixes[$0..<min($0 + size, fixes.count)])
    }
  }

  /// An event line without its `"seq":N,` member: the line `fencebench` writes.
  static func withoutSeq(_ line: String) -> String {
    guard line.hasPrefix("{\"seq\":"), let comma = line.firstIndex(of: ",") else { return line }
    return "{" + line[line.index(after: comma)...]
  }
}
