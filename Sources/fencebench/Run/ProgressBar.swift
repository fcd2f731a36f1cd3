#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A one-line progress bar on standard error, drawn only when standard error is a terminal
/// (`isatty(2)`) and at most about 10 times a second; otherwise every call does nothing.
struct ProgressBar {
  private let isEnabled: Bool
  private var lastDraw: UInt64 = 0
  private let label: String

  init(label: String, enabled: Bool = isatty(2) != 0) {
    self.isEnabled = enabled
    self.label = label
  }

  /// Redraws the bar for `done` of `total` (an unknown total shows the count alone).
  mutating func update(done: Int, total: Int?) {
    guard isEnabled else { return }
    let now = MonotonicClock.nanoseconds()
    guard now &- lastDraw > 100_000_000 else { return }
    lastDraw = now
    var line = "\r\(label) "
    if let total, total > 0 {
      let fraction = min(1, Double(done) / Double(total))
      let filled = Int(fraction * 30)
      line += "[" + String(repeating: "#", count: filled)
        + String(repeating: ".", count: 30 - filled) + "] "
      line += "\(Int(fraction * 100))% \(done)/\(total) fixes"
    } else {
      line += "\(done) fixes"
    }
    printToStandardErrorWithoutNewline(line + "\u{1B}[K")
  }

  /// Clears the bar's line.
  mutating func finish() {
    guard isEnabled else { return }
    printToStandardErrorWithoutNewline("\r\u{1B}[K")
  }
}
