import FenceGeometry
import Testing

@testable import FenceEngine

/// The cell cache steps aside, by counts alone, where it does not pay: two windows in a row
/// with under a quarter hits over a small fence set; and the events stay exactly those of an
/// evaluator without a cache.
@Suite struct CellCacheBypassTests {
  let window = ContainmentCellCache.bypassWindow
  let trial = ContainmentCellCache.trialWindow

  /// Feeds `windows` windows of fixes to the bypass decision, `hitsPerWindow` of each
  /// window's fixes counted as hits and `fillsPerWindow` as cells filed; returns how many were
  /// bypassed.
  func run(
    _ cache: inout ContainmentCellCache, windows: Int, hitsPerWindow: Int, fences: Int,
    fillsPerWindow: Int = 0, circles: Bool = false, fixesPerWindow: Int? = nil
  ) -> Int {
    var bypassed = 0
    for _ in 0..<windows {
      for fix in 0..<(fixesPerWindow ?? window) {
        if cache.bypasses(
          searchIsCheap: fences <= ContainmentCellCache.bypassableFences, fencesAreCircles: circles)
        {
          bypassed += 1
        } else {
          if fix < hitsPerWindow { cache.hits += 1 }
          if fix < fillsPerWindow { cache.fills += 1 }
        }
      }
    }
    return bypassed
  }

  @Test func twoWindowsWithFewHitsBypassTheNextSixteen() {
    var cache = ContainmentCellCache(capacity: 1_024)
    // Two windows just under a quarter hits: the next 16 windows bypass.
    #expect(run(&cache, windows: 2, hitsPerWindow: window / 4 - 1, fences: 100) == 0)
    #expect(run(&cache, windows: 16, hitsPerWindow: window, fences: 100) == 16 * window)
    #expect(cache.bypassedFixes == 16 * window)
    // A trial window (a quarter of a window), still few hits: bypassed again at once.
    #expect(run(&cache, windows: 1, hitsPerWindow: 0, fences: 100, fixesPerWindow: trial) == 0)
    #expect(run(&cache, windows: 1, hitsPerWindow: 0, fences: 100) == window)
  }

  @Test func aWindowWithAQuarterHitsKeepsTheCache() {
    var cache = ContainmentCellCache(capacity: 1_024)
    // Low, then exactly a quarter, then low: never two low windows in a row.
    #expect(run(&cache, windows: 1, hitsPerWindow: 0, fences: 100) == 0)
    #expect(run(&cache, windows: 1, hitsPerWindow: window / 4, fences: 100) == 0)
    #expect(run(&cache, windows: 1, hitsPerWindow: 0, fences: 100) == 0)
    #expect(run(&cache, windows: 1, hitsPerWindow: window / 4, fences: 100) == 0)
    #expect(cache.bypassedFixes == 0)
  }

  /// Over circles alone, four windows in a row filing more than one fix's cell in 16 bypass
  /// the cache even when nearly every fix hits; one window fewer, or exactly one in 16, does
  /// not.
  @Test func frequentFilingOverCirclesBypassesAfterFourWindows() {
    let many = window / ContainmentCellCache.fillShare + 1
    var cache = ContainmentCellCache(capacity: 1_024)
    #expect(run(&cache, windows: 3, hitsPerWindow: window, fences: 100, fillsPerWindow: many, circles: true) == 0)
    #expect(run(&cache, windows: 1, hitsPerWindow: window, fences: 100, fillsPerWindow: many - 1, circles: true) == 0)
    #expect(run(&cache, windows: 3, hitsPerWindow: window, fences: 100, fillsPerWindow: many, circles: true) == 0)
    #expect(cache.bypassedFixes == 0)
    #expect(run(&cache, windows: 1, hitsPerWindow: window, fences: 100, fillsPerWindow: many, circles: true) == 0)
    #expect(run(&cache, windows: 16, hitsPerWindow: window, fences: 100, fillsPerWindow: many, circles: true) == 16 * window)
  }

  /// With polygons among the fences the filing counts do not matter: their cell tests are what
  /// the cache is for.
  @Test func frequentFilingWithPolygonsKeepsTheCache() {
    var cache = ContainmentCellCache(capacity: 1_024)
    #expect(run(&cache, windows: 8, hitsPerWindow: window, fences: 100, fillsPerWindow: window, circles: false) == 0)
    #expect(cache.bypassedFixes == 0)
  }

  /// A try that does not pay either bypasses twice as long as the run before, up to 256
  /// windows; a window that pays starts over at 16. (Each run is read from the fixes left to
  /// bypass and then ended, rather than fed fix by fix.)
  @Test func runsOfBypassDoubleUntilAWindowPays() {
    var cache = ContainmentCellCache(capacity: 1_024)
    #expect(run(&cache, windows: 2, hitsPerWindow: 0, fences: 100) == 0)
    var expected = ContainmentCellCache.bypassWindows
    for _ in 0..<6 {
      #expect(cache.bypassLeft == expected * window)
      cache.bypassLeft = 0
      // The one trial window, which does not pay either.
      #expect(run(&cache, windows: 1, hitsPerWindow: 0, fences: 100, fixesPerWindow: trial) == 0)
      expected = min(2 * expected, ContainmentCellCache.longestBypass)
    }
    #expect(expected == ContainmentCellCache.longestBypass)
    #expect(cache.bypassLeft == expected * window)
    #expect(run(&cache, windows: 1, hitsPerWindow: 0, fences: 100) == window)
    cache.bypassLeft = 0
    // A trial window that pays, then two full windows that do not: back to 16.
    #expect(run(&cache, windows: 1, hitsPerWindow: trial, fences: 100, fixesPerWindow: trial) == 0)
    #expect(run(&cache, windows: 2, hitsPerWindow: 0, fences: 100) == 0)
    #expect(cache.bypassLeft == ContainmentCellCache.bypassWindows * window)
  }

  @Test func aLargeIndexAlwaysUsesTheCache() {
    var cache = ContainmentCellCache(capacity: 1_024)
    let large = ContainmentCellCache.bypassableFences + 1
    #expect(run(&cache, windows: 4, hitsPerWindow: 0, fences: large) == 0)
    #expect(run(&cache, windows: 2, hitsPerWindow: 0, fences: ContainmentCellCache.bypassableFences) == 0)
    #expect(run(&cache, windows: 1, hitsPerWindow: 0, fences: 100) == window)
  }

  /// Devices that land somewhere new at each fix, over 64 circles of 20 km spread over 1,000
  /// km: the cache stops paying and is bypassed, and every event is the one an evaluator
  /// without a cache gives.
  @Test func devicesOnNewGroundBypassWithTheSameEvents() throws {
    var zones: [Zone] = []
    for row in 0..<8 {
      for column in 0..<8 {
        zones.append(try circleZone(
          "c\(row)-\(column)", north: Double(row) * 125_000, east: Double(column) * 125_000,
          radius: 20_000))
      }
    }
    var fixes: [LocationFix] = []
    var random = SplitMix(seed: 5)
    for step in 0..<(3 * window / 100 + 50) {
      for device in 0..<100 {
        fixes.append(fix(
          Double(step), north: random.next(below: 1_000_000), east: random.next(below: 1_000_000),
          device: "d\(device)"))
      }
    }
    var cached = try ZoneEvaluator(zones: zones)
    var plain = try ZoneEvaluator(configuration: .init(cellCacheCapacity: 0), zones: zones)
    var expected: [ZoneEvent] = []
    var actual: [ZoneEvent] = []
    for f in fixes {
      plain.process(f, into: &expected)
      cached.process(f, into: &actual)
    }
    #expect(actual == expected)
    #expect(expected.count > 1_000)
    // The first two windows judge; everything after them is bypassed (fewer than 16 windows).
    #expect(cached.acceptedFixCount == fixes.count)
    #expect(cached.cellCacheBypassedFixes == fixes.count - 2 * window)
  }

  /// A device that stays in its cells hits its memo: no bypass.
  @Test func devicesDwellingKeepTheCache() throws {
    var evaluator = try ZoneEvaluator(zones: [try circleZone("z", radius: 500)])
    var events: [ZoneEvent] = []
    for step in 0..<(3 * window / 50) {
      for device in 0..<50 {
        evaluator.process(
          fix(Double(step), north: Double(device) * 300, east: Double(step % 5), device: "d\(device)"),
          into: &events)
      }
    }
    #expect(evaluator.cellCacheBypassedFixes == 0)
    #expect(evaluator.cellCacheStatistics.hits > evaluator.acceptedFixCount * 9 / 10)
  }
}

/// A seeded generator for test positions.
private struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next(below limit: Double) -> Double {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return Double(z >> 11) / Double(1 << 53) * limit
  }
}
