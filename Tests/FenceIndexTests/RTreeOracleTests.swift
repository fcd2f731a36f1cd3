import FenceIndex
import Foundation
import Testing

/// The index against a linear scan on seeded random data, with changes between queries.
///
/// The default run compares at least 100 000 queries of each kind on small trees (400 to 1 000
/// items, where the linear scan stays cheap in a debug build), with inserts and removals
/// between rounds that exercise the tail, the delta tree and full rebuilds. One check of each
/// size also builds the point grid on its trees (`pointGridMinimum: 0`). Set `FENCEKIT_LONG_TESTS=1` for larger trees and 200 000 queries of each kind.
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
      OracleCheck(
        name: "5k items with the point grid", seed: 13, initialCount: 5_000, rounds: 100,
        changesPerRound: 100, queriesPerRound: 1_000, pointGridMinimum: 0),
    ]
    : [
      OracleCheck(
        name: "600 items, node size 4, tail 16, full rebuild at a quarter", seed: 1,
        initialCount: 600, nodeSize: 4, tailCapacity: 16, rebuildDivisor: 4, rounds: 60,
        changesPerRound: 25, queriesPerRound: 1_000),
      OracleCheck(
        name: "1k items, node size 16", seed: 2, initialCount: 1_000, rounds: 30,
        changesPerRound: 50, queriesPerRound: 1_000),
      OracleCheck(
        name: "400 items, node size 9, tail 32", seed: 3, initialCount: 400, nodeSize: 9,
        tailCapacity: 32, rounds: 10, changesPerRound: 40, queriesPerRound: 1_000),
      OracleCheck(
        name: "1k items with the point grid, full rebuild at a quarter", seed: 4,
        initialCount: 1_000, tailCapacity: 16, rebuildDivisor: 4, rounds: 30,
        changesPerRound: 25, queriesPerRound: 1_000, pointGridMinimum: 0),
    ]

  @Test func theRunComparesAtLeast100kQueriesOfEachKind() {
    #expect(Self.checks.reduce(0) { $0 + $1.rounds * $1.queriesPerRound } >= 100_000)
  }

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
