import FenceEngine

/// A uniform random sample of at most ``capacity`` events out of a stream of any length, kept
/// while the run goes on (reservoir sampling, Vitter's algorithm R), so a map of a long run does
/// not hold every event in memory.
///
/// The generator is seeded, so the same events give the same sample on every run and platform.
/// Every event is counted by kind, sampled or not, for the map's legend.
///
/// - Complexity: O(1) per event; memory O(``capacity``).
struct EventReservoir {
  /// The most events kept.
  let capacity: Int
  /// Events offered so far, by kind.
  private(set) var counts: [ZoneEvent.Kind: Int] = [:]
  /// Events offered so far.
  private(set) var total = 0
  private var kept: [(sequence: Int, event: ZoneEvent)] = []
  private var generator: SplitMix64

  /// An empty reservoir of `capacity` events (0 keeps none), sampling with `seed`.
  init(capacity: Int, seed: UInt64 = 1) {
    precondition(capacity >= 0, "EventReservoir capacity \(capacity) must be 0 or more")
    self.capacity = capacity
    generator = SplitMix64(seed: seed)
  }

  /// Offers one event: kept with probability capacity / (events offered so far).
  mutating func offer(_ event: ZoneEvent) {
    counts[event.kind, default: 0] += 1
    let sequence = total
    total += 1
    if kept.count < capacity {
      kept.append((sequence, event))
      return
    }
    guard capacity > 0 else { return }
    let slot = Int(generator.next() % UInt64(total))
    if slot < capacity { kept[slot] = (sequence, event) }
  }

  /// The sampled events, in the order they were offered.
  var sample: [ZoneEvent] {
    kept.sorted { $0.sequence < $1.sequence }.map(\.event)
  }
}
