/// Polls `condition` every 100 ms until it holds (`true`) or `seconds` pass (`false`): for
/// what a daemon does on its own time (deliveries, a resumed process noticing its lost lease),
/// so that a loaded machine makes a test slower, not wrong.
func eventually(within seconds: Int = 30, _ condition: () -> Bool) async throws -> Bool {
  for _ in 0..<(seconds * 10) {
    if condition() { return true }
    try await Task.sleep(for: .milliseconds(100))
  }
  return condition()
}
