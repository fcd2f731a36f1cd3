import FenceIndex
import Testing

/// The index against a linear scan on seeded random data, with changes between queries.
@Suite struct RTreeOracleTests {
  static let checks = [
    OracleCheck(
      name: "1k items, node size 16, small tail", seed: 1, initialCount: 1_000, tailCapacity: 16,
      rebuildDivisor: 8, rounds: 20, changesPerRound: 40, queriesPerRound: 500)
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
