import FenceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `--webhook`: events POSTed as NDJSON in seq order, at least once, retried while the receiver
/// fails, and resumed from the durable cursor after a restart. The receiver is a small Python
/// HTTP server (a real peer, not a mock) that refuses its first requests.
@Suite(.serialized, .offThePool)
struct WebhookTests {
  /// A receiver that answers 500 to its first `failures` requests, then 200, recording every
  /// accepted request's `Fence-Seq` and body lines.
  final class Receiver {
    let process = Process()
    let log: String
    let port: Int

    init(failures: Int) throws {
      log = DaemonProcess.temporaryDirectory("webhook") + ".log"
      let script = """
        import http.server, sys
        failures = [\(failures)]
        log = open(sys.argv[1], "a", buffering=1)
        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                if failures[0] > 0:
                    failures[0] -= 1
                    self.send_response(500); self.end_headers(); return
                for line in body.splitlines():
                    log.write(self.headers["Fence-Seq"] + " " + line + "\\n")
                self.send_response(200); self.end_headers()
            def log_message(self, *args): pass
        server = http.server.HTTPServer(("127.0.0.1", 0), H)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["python3", "-c", script, log]
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      var line = Data()
      while true {
        let byte = output.fileHandleForReading.readData(ofLength: 1)
        if byte.isEmpty || byte == Data("\n".utf8) { break }
        line.append(byte)
      }
      guard let port = Int(String(decoding: line, as: UTF8.self)) else {
        throw DaemonFailure("the webhook receiver did not start")
      }
      self.port = port
    }

    /// The event lines received so far, in arrival order.
    var received: [String] {
      ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map {
        String($0.split(separator: " ", maxSplits: 1)[1])
      }
    }

    deinit {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
      try? FileManager.default.removeItem(atPath: log)
    }
  }

  @Test func deliversEveryEventInOrderThroughFailuresAndRestarts() async throws {
    let receiver = try Receiver(failures: 2)
    let directory = DaemonProcess.temporaryDirectory("webhook-store")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let arguments = [
      "--zones", TestFixes.harborZones, "--webhook", "http://127.0.0.1:\(receiver.port)/hook",
    ]
    var daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments)
    let fixes = try TestFixes.harborHour()
    let half = fixes.count / 2
    _ = try await DaemonClient(baseURL: daemon.baseURL).postFixes(TestFixes.ndjson(fixes[..<half]))
    let firstHalf = try await DaemonClient(baseURL: daemon.baseURL).allEvents()
    #expect(try await eventually { receiver.received.count == firstHalf.count })
    // Killed and restarted: delivery goes on from the durable cursor.
    daemon.kill()
    daemon = try DaemonProcess(dataDirectory: directory, arguments: arguments)
    _ = try await DaemonClient(baseURL: daemon.baseURL).postFixes(TestFixes.ndjson(fixes[half...]))
    let all = try await DaemonClient(baseURL: daemon.baseURL).allEvents()
    #expect(try await eventually { Set(receiver.received) == Set(all) })
    // At least once, in seq order: a resent batch may repeat events, never reorder the first
    // delivery of each.
    var firstDelivery: [String] = []
    var seen = Set<String>()
    for line in receiver.received where seen.insert(line).inserted { firstDelivery.append(line) }
    #expect(firstDelivery == all)
    #expect(daemon.terminate() == 0)
  }
}
