import FenceEngine
import FenceFormats
import FenceTestSupport
import Foundation
import Testing

/// Guarantee 4 of `fenced.md`: bad input gets a 4xx with a reason, the daemon keeps serving,
/// and nothing is applied. One daemon serves the whole suite; every test checks afterwards
/// that the log and the devices are untouched.
@Suite(.serialized, .offThePool)
final class HostileHTTPTests {
  let directory = DaemonProcess.temporaryDirectory("hostile")
  let daemon: DaemonProcess
  let client: DaemonClient
  let token = "s3cret-token"

  init() throws {
    let tokenFile = directory + ".token"
    try token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
    daemon = try DaemonProcess(
      dataDirectory: directory,
      arguments: [
        "--zones", TestFixes.harborZones, "--token-file", tokenFile, "--max-body", "1048576",
        "--body-timeout", "1",
      ])
    client = DaemonClient(baseURL: daemon.baseURL, token: token)
  }

  deinit {
    daemon.kill()
    try? FileManager.default.removeItem(atPath: directory)
  }

  static let goodLine =
    #"{"device":"ferry","time":"2020-06-30T00:00:00Z","lat":40.70,"lon":-74.01}"#

  /// The answer is the status with a JSON `error`, and nothing changed.
  func expectRefused(_ answer: HTTPAnswer, _ status: Int, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    #expect(answer.status == status, "\(answer.body)", sourceLocation: sourceLocation)
    #expect(answer.body.contains("\"error\""), "\(answer.body)", sourceLocation: sourceLocation)
    #expect(answer.body.contains(text), "expected \(text) in \(answer.body)", sourceLocation: sourceLocation)
    try await expectUntouched(sourceLocation: sourceLocation)
  }

  /// Still serving, no event, no device.
  func expectUntouched(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let health = try await client.request(.GET, "/healthz")
    #expect(health.status == 200, sourceLocation: sourceLocation)
    let events = try await client.request(.GET, "/v1/events")
    #expect(events.status == 200 && events.body.isEmpty, sourceLocation: sourceLocation)
    #expect(events.header("Fence-Cursor") == "0", sourceLocation: sourceLocation)
    let device = try await client.request(.GET, "/v1/devices/ferry")
    #expect(device.status == 404, sourceLocation: sourceLocation)
  }

  @Test func malformedNDJSONNamesEachBadLineAndAppliesNothing() async throws {
    let body = Self.goodLine + "\n{\"device\":\"ferry\",\"time\":\n" + Self.goodLine + "\nnot json\n"
    let answer = try await client.postFixes(body)
    try await expectRefused(answer, 400, containing: "\"problems\"")
    #expect(answer.body.contains("\"line\":2"))
    #expect(answer.body.contains("\"line\":4"))
    #expect(!answer.body.contains("\"line\":1,"))
  }

  @Test func wrongTypesMissingFieldsAndImpossibleValuesAreRefused() async throws {
    let cases: [(String, String)] = [
      (#"{"device":"ferry","time":"2020-06-30T00:00:00Z","lat":"40.7","lon":-74.0}"#, "expected a number"),
      (#"{"device":"ferry","time":"2020-06-30T00:00:00Z","lon":-74.0}"#, "missing \\\"lat\\\""),
      (#"{"device":"ferry","time":"2020-06-30T00:00:00Z","lat":91,"lon":-74.0}"#, "lat"),
      (#"{"device":"ferry","time":"2020-06-30T00:00:00Z","lat":40.7,"lon":-181}"#, "lon"),
      (#"{"device":"ferry","time":"2020-06-30T00:00:00Z","lat":NaN,"lon":-74.0}"#, "invalid JSON"),
      (#"{"device":"ferry","time":"yesterday","lat":40.7,"lon":-74.0}"#, "time"),
      (#"[{"device":"ferry","time":"2020-06-30T00:00:00Z","lat":40.7,"lon":-74.0},3]"#, "element"),
    ]
    for (body, reason) in cases {
      let answer = try await client.postFixes(body + "\n")
      try await expectRefused(answer, 400, containing: reason)
    }
    let advance = try await client.request(.POST, "/v1/advance", body: Array("{\"time\":5}".utf8))
    try await expectRefused(advance, 400, containing: "time")
  }

  @Test func hugeLinesAndBodiesOverTheLimitAreRefused() async throws {
    let hugeLine = "{\"device\":\"" + String(repeating: "x", count: 1_100_000) + "\"}\n"
    try await expectRefused(try await client.postFixes(hugeLine), 413, containing: "limit")
    let many = String(repeating: Self.goodLine + "\n", count: 20_000)  // about 1.5 MB
    try await expectRefused(try await client.postFixes(many), 413, containing: "--max-body")
  }

  @Test func gzipBombsAndBrokenGzipAreRefused() async throws {
    let zeros = [UInt8](repeating: 0x20, count: 50 << 20)
    let bomb = try gzip(zeros)
    #expect(bomb.count < 200_000)
    let answer = try await client.request(
      .POST, "/v1/fixes", body: bomb, headers: [("Content-Encoding", "gzip")])
    try await expectRefused(answer, 413, containing: "decompressed")
    let broken = try await client.request(
      .POST, "/v1/fixes", body: Array("not gzip at all".utf8), headers: [("Content-Encoding", "gzip")])
    try await expectRefused(broken, 400, containing: "gzip")
    let unknown = try await client.request(
      .POST, "/v1/fixes", body: Array(Self.goodLine.utf8), headers: [("Content-Encoding", "br")])
    try await expectRefused(unknown, 415, containing: "Content-Encoding")
  }

  @Test func wrongContentTypesAreRefused() async throws {
    let answer = try await client.request(
      .POST, "/v1/fixes", body: Array(Self.goodLine.utf8), headers: [("Content-Type", "text/html")])
    try await expectRefused(answer, 415, containing: "Content-Type")
  }

  @Test func slowAndHalfClosedClientsDoNotStopTheDaemon() async throws {
    // Slow: promises 1,000 bytes, sends 10, then nothing: answered 408 after --body-timeout.
    let slow = try RawConnection(port: daemon.port)
    slow.send(
      "POST /v1/fixes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 1000\r\n\r\n{\"device\"")
    try await expectUntouched()
    let slowAnswer = slow.readAll()
    #expect(slowAnswer.hasPrefix("HTTP/1.1 408"), "\(slowAnswer)")
    // Half-closed: promises 1,000 bytes, sends 10, closes its sending side.
    let halfClosed = try RawConnection(port: daemon.port)
    halfClosed.send(
      "POST /v1/fixes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 1000\r\n\r\n{\"device\"")
    halfClosed.shutdownWriting()
    _ = halfClosed.readAll()
    // Garbage instead of HTTP.
    let garbage = try RawConnection(port: daemon.port)
    garbage.send("\u{1}\u{2}\u{3} hello\r\n\r\n")
    let garbageAnswer = garbage.readAll()
    #expect(garbageAnswer.isEmpty || garbageAnswer.hasPrefix("HTTP/1.1 4"), "\(garbageAnswer)")
    try await expectUntouched()
  }

  @Test func unknownRoutesAndMethodsGetAReason() async throws {
    try await expectRefused(try await client.request(.GET, "/v1/nothing"), 404, containing: "/v1/nothing")
    let patch = try await client.request(.PATCH, "/v1/fixes", body: Array(Self.goodLine.utf8))
    #expect([404, 405].contains(patch.status))
    #expect(patch.body.contains("\"error\""))
    try await expectRefused(try await client.request(.DELETE, "/v1/zones/no-such-zone"), 404, containing: "zone")
    try await expectRefused(try await client.request(.GET, "/v1/events?after=-1"), 400, containing: "after")
    try await expectRefused(try await client.request(.GET, "/v1/events?wait=31"), 400, containing: "wait")
    try await expectRefused(try await client.request(.GET, "/v1/events?limit=0"), 400, containing: "limit")
  }

  @Test func missingOrWrongTokensGet401() async throws {
    var anonymous = client
    anonymous.token = nil
    try await expectRefused(try await anonymous.postFixes(Self.goodLine), 401, containing: "Authorization")
    var wrong = client
    wrong.token = "s3cret-tokem"
    try await expectRefused(try await wrong.postFixes(Self.goodLine), 401, containing: "token")
    try await expectRefused(try await wrong.request(.GET, "/v1/zones"), 401, containing: "token")
    // Health and metrics need no token.
    #expect(try await anonymous.request(.GET, "/metrics").status == 200)
  }

  @Test func badZoneBodiesGiveTheLoadersMessageAndChangeNothing() async throws {
    let before = try await client.request(.GET, "/v1/zones")
    let bowtie = """
      {"type":"FeatureCollection","features":[{"type":"Feature","id":"bowtie","properties":{},
      "geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}]}
      """
    let answer = try await client.request(.PUT, "/v1/zones", body: Array(bowtie.utf8))
    try await expectRefused(answer, 400, containing: "bowtie")
    let notJSON = try await client.request(.POST, "/v1/zones", body: Array("{".utf8))
    try await expectRefused(notJSON, 400, containing: "JSON")
    let longKey = try await client.request(
      .POST, "/v1/zones", body: Array(bowtie.utf8),
      headers: [("Idempotency-Key", String(repeating: "k", count: 201))])
    try await expectRefused(longKey, 400, containing: "Idempotency-Key")
    #expect(try await client.request(.GET, "/v1/zones").body == before.body)
  }

  /// gzip through the system's `gzip` tool.
  func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let input = DaemonProcess.temporaryDirectory("gz")
    try Data(bytes).write(to: URL(fileURLWithPath: input))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["gzip", "-f", input]
    try process.run()
    process.waitUntilExit()
    defer { try? FileManager.default.removeItem(atPath: input + ".gz") }
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: input + ".gz")))
  }
}
