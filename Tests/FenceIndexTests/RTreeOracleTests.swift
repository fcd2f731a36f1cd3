import FenceIndex
import Foundation
import Testing

/// The index against a linear scan on seeded random data, with changes between queries.
///
/// The default sizes keep the suite quick in a debug build, where the linear scan dominates.
/// Set `FENCEKIT_LONG_TESTS=1` to run 100 000 queries of each kind on larger trees.
@Suite struct RTreeOracleTests {
  static let isLong = ProcessInfo.processInfo.environment["FENCEKIT_LONG_TESTS"] == "1"

  static let checks: [OracleCheck] =
    isLong
    ? [
      OracleCheck(
        name: "5k items, node size 16", seed: 11, initialCount: 5_000, rounds: 100,
        changesPerRound: 100, queriesPerRound: 1_000),
      OracleCheck(
        name: "2k items, node size 4, tail 16", seed: 12, initialCount: 2_000, nodeSize: 4,
        tailCapacity: 16, rounds: 100, changesPerRound: 60, queriesPerRound: 1_000),
    ]
    : [
      OracleCheck(
        name: "600 items, node size 4, tail 16, full rebuild at a quarter", seed: 1,
        initialCount: 600, nodeSize: 4, tailCapacity: 16, rebuildDivisor: 4, rounds: 25,
        changesPerRound: 30, queriesPerRound: 800),
      OracleCheck(
        name: "3k items, node size 16", seed: 2, initialCount: 3_000, rounds: 8,
        changesPerRound: 150, queriesPerRound: 500),
    ]

  @Test(arguments: checks)
  func pointQueriesMatchBruteForce(_ check: OracleCheck) {
    #expect(check.run(.point) == check.rounds * check.queriesPerRound)
  }

  @Test(arguments: checks)
  func boxQueriesMatchBruteForce(_ check: OracleCheck) {
    #expect(check.run(.box) == check.rounds * check.queriesPerRound)
  }

  @Test(arguments: checks)
  func radiusQueriesMatchBruteForce(_ check: OracleCheck) {
    #expect(check.run(.radius) == check.rounds * check.queriesPerRound)
  }

  @Test(arguments: checks)
  func nearestQueriesMatchBruteForce(_ check: OracleCheck) {
    #expect(check.run(.nearest) == check.rounds * check.queriesPerRound)
  }
}
