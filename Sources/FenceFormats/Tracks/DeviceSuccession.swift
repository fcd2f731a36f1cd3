/// Which device's row followed each device's last time: a guess of the next row's device that
/// saves the name's hash lookup when rows keep coming in the same device order.
///
/// Feeds that poll a fleet write one row per device per round, in the same order every round
/// (a million devices × 5 rounds: four rows in five are guessed, each saving a probe of a
/// table of a million names, mostly out of the processor's caches). When rows come in no
/// repeating order (AIS: vessels report at their own pace), guessing costs a look at the
/// guessed name for nothing: after a window of rows with few hits, guessing stops for a while,
/// then gets another window. Counts only, no clock; a guess is only taken after comparing the
/// names, so the table is the same either way.
struct DeviceSuccession {
  /// Rows per window over which guessing is judged.
  static let window = 16_384
  /// Windows without guessing after one with fewer than a quarter of its guesses right.
  static let pause = 16

  /// The device that followed each device last time (-1: none yet).
  private var successor: [Int32] = []
  /// Rows left without guessing.
  private var pausedRows = 0
  private var windowGuesses = 0
  private var windowHits = 0

  /// A new device: it has no successor yet.
  mutating func addDevice() { successor.append(-1) }

  /// The device guessed to follow `device`, if any and if guessing is on.
  @inline(__always)
  mutating func guess(after device: Int32) -> Int32? {
    if pausedRows > 0 {
      pausedRows -= 1
      return nil
    }
    let next = successor[Int(device)]
    guard next >= 0 else { return nil }
    windowGuesses += 1
    if windowGuesses >= Self.window {
      if windowHits * 4 < windowGuesses { pausedRows = Self.window * Self.pause }
      windowGuesses = 0
      windowHits = 0
    }
    return next
  }

  /// The guess was right.
  @inline(__always)
  mutating func hit() { windowHits += 1 }

  /// `device` followed `previous` and was not guessed: it is the guess next time.
  @inline(__always)
  mutating func miss(after previous: Int32, came device: Int32) {
    successor[Int(previous)] = device
  }
}
