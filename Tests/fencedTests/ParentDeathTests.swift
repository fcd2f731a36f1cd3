import FenceTestSupport
import Foundation
import Testing

/// `--stop-when-stdin-closes`: the daemon stops cleanly (exit 0, as on SIGTERM) when its
/// standard input ends, as it does when the process holding the other end dies; without the
/// flag, the end of standard input changes nothing.
@Suite(.serialized, .offThePool)
struct ParentDeathTests {
  /// Waits up to `seconds` for the process to exit; its status, or nil when it still runs.
  func exitStatus(_ daemon: DaemonProcess, within seconds: Double) -> Int32? {
    let deadline = Date().addingTimeInterval(seconds)
    while daemon.process.isRunning, Date() < deadline { usleep(20_000) }
    if daemon.process.isRunning { return nil }
    return daemon.process.terminationStatus
  }

  /// A daemon started later does not hold the earlier one's pipe open (the other end of each
  /// pipe stays in this process only), so each stops on its own pipe's end.
  @Test func theDaemonStopsWhenItsStandardInputEnds() throws {
    let first = DaemonProcess.temporaryDirectory("parent")
    let second = DaemonProcess.temporaryDirectory("parent")
    defer {
      try? FileManager.default.removeItem(atPath: first)
      try? FileManager.default.removeItem(atPath: second)
    }
    let earlier = try DaemonProcess(dataDirectory: first, arguments: ["--zones", TestFixes.harborZones])
    let later = try DaemonProcess(dataDirectory: second, arguments: ["--zones", TestFixes.harborZones])
    #expect(exitStatus(earlier, within: 0.3) == nil)
    try earlier.standardInput.fileHandleForWriting.close()
    #expect(exitStatus(earlier, within: 60) == 0)
    #expect(earlier.standardError.contains("stopped"))
    #expect(later.process.isRunning)
    try later.standardInput.fileHandleForWriting.close()
    #expect(exitStatus(later, within: 60) == 0)
  }
}
