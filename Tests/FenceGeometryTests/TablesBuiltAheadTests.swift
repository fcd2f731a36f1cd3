import FenceTestSupport
import Testing

@testable import FenceGeometry

/// A shape's tables built ahead (decision 0027) are the tables its first query would build,
/// bit for bit, and leave a packed index packed.
@Suite struct TablesBuiltAheadTests {
  /// Cells of 1/256 degree around the same star.
  func sampleCells(count: Int, seed: UInt64) -> [BoundingBox] {
    pointsAroundStar(count: count, seed: seed).map { latitude, longitude in
      let south = (latitude * 256).rounded(.down) / 256
      let west = (longitude * 256).rounded(.down) / 256
      return BoundingBox(south: south, west: west, north: south + 1.0 / 256, east: west + 1.0 / 256)
    }
  }

  func expectSameTables(_ ahead: EdgeIndex, _ queried: EdgeIndex) {
    #expect(ahead.hasFiledStripes && queried.hasFiledStripes)
    ahead.withStripes { a in
      queried.withStripes { q in
        #expect(a.count == q.count)
        #expect(a.scale.bitPattern == q.scale.bitPattern)
        #expect(a.offsets == q.offsets)
        #expect(a.edgeNumbers == q.edgeNumbers)
      }
    }
  }

  @Test func aPackedPolygonGetsTheTablesItsFirstQueriesWouldBuildAndStaysPacked() throws {
    let ahead = try decimalStarPolygon(
      count: 6_000, longitude: 10, latitude: 20, radius: 1, decimals: 5, seed: 31)
    let queried = try decimalStarPolygon(
      count: 6_000, longitude: 10, latitude: 20, radius: 1, decimals: 5, seed: 31)
    #expect(ahead.index.isPacked && ahead.index.treeStorage == .stored)
    #expect(!ahead.index.hasFiledStripes && !ahead.index.hasBuiltTree)

    let shape = MultiPolygon(ahead)
    #expect(shape.edgeCount == 6_000)
    shape.buildTablesAhead()
    #expect(ahead.index.hasFiledStripes)
    #expect(ahead.index.hasBuiltTree)
    // The build read the values from a temporary unpacking: they stay packed until a query.
    #expect(!ahead.index.hasUnpackedEdges)

    let points = pointsAroundStar(count: 400, seed: 32)
    let cells = sampleCells(count: 400, seed: 33)
    let expected = points.map { queried.contains(latitude: $0.0, longitude: $0.1) }
    let expectedRelations = cells.map { MultiPolygon(queried).relation(toCell: $0) }
    #expect(expected.contains(true) && expected.contains(false))
    #expect(expectedRelations.contains(.mixed) && expectedRelations.contains(.inside))
    #expect(points.map { ahead.contains(latitude: $0.0, longitude: $0.1) } == expected)
    #expect(cells.map { shape.relation(toCell: $0) } == expectedRelations)
    expectSameTables(ahead.index, queried.index)
    #expect(ahead.index.tree.storedNodes == queried.index.tree.storedNodes)
    #expect(!ahead.index.tree.storedNodes.isEmpty)
  }

  @Test func aMultipolygonGetsItsJoinedStripesAndItsPartsTrees() throws {
    var generator = SeededGenerator(seed: 41)
    let star = try starPolygon(
      count: 2_000, longitude: 10, latitude: 20, radius: 1, jagged: true, generator: &generator)
    let small = try starPolygon(
      count: 16, longitude: 14, latitude: 20, radius: 1, jagged: false, generator: &generator)
    let both = try MultiPolygon([star, small])
    #expect(both.edgeCount == 2_016)
    #expect(both.stripes?.hasFiledStripes == false)
    #expect(!both.partIndex(0).hasBuiltTree)
    both.buildTablesAhead()
    #expect(both.stripes?.hasFiledStripes == true)
    // A multipolygon's parts store their trees, however small (`storingTreeNodes()`).
    #expect(both.partIndex(0).hasBuiltTree)
    #expect(both.partIndex(1).treeStorage == .stored)
    #expect(both.partIndex(1).hasBuiltTree)
    // Building again changes nothing.
    let stripes = both.stripes?.stripeSlot.value
    let tree = both.partIndex(0).treeSlot.value
    both.buildTablesAhead()
    #expect(both.stripes?.stripeSlot.value == stripes)
    #expect(both.partIndex(0).treeSlot.value == tree)

    let queried = try MultiPolygon([star, small])
    let points = pointsAroundStar(count: 300, seed: 42)
    #expect(
      points.map { both.contains(latitude: $0.0, longitude: $0.1) }
        == points.map { queried.contains(latitude: $0.0, longitude: $0.1) })
    if let ahead = both.stripes, let first = queried.stripes { expectSameTables(ahead, first) }
  }

  @Test func partsThatCannotBeJoinedGetTheirOwnStripes() throws {
    var generator = SeededGenerator(seed: 43)
    // One part across the antimeridian (its frame unwrapped), one not: no joined index.
    let across = try starPolygon(
      count: 400, longitude: 179.8, latitude: 20, radius: 1, jagged: true, generator: &generator)
    let west = try starPolygon(
      count: 400, longitude: 170, latitude: 20, radius: 1, jagged: true, generator: &generator)
    #expect(across.crossesAntimeridian && !west.crossesAntimeridian)
    let both = try MultiPolygon([across, west])
    #expect(both.stripes == nil)
    #expect(!both.partIndex(0).hasFiledStripes && !both.partIndex(1).hasFiledStripes)
    both.buildTablesAhead()
    #expect(both.partIndex(0).hasFiledStripes && both.partIndex(1).hasFiledStripes)
    #expect(both.partIndex(0).hasBuiltTree && both.partIndex(1).hasBuiltTree)
    #expect(both.contains(latitude: 20, longitude: 170))
    #expect(both.contains(latitude: 20, longitude: 179.9))
    #expect(both.contains(latitude: 20, longitude: -179.9))
    #expect(!both.contains(latitude: 20, longitude: 175))
  }
}
