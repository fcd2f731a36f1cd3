import FenceEngine
import FenceTestSupport
import Testing

@testable import FenceGeometry

/// `Configuration.tablesAheadEdgeCount`: polygon fences of at least that many edges get their
/// tables when their zone is added (decision 0027), and the events stay exactly those of tables
/// built by the first fix.
@Suite struct TablesAheadTests {
  /// The harbor zones and Manhattan, read afresh (a shape's tables are shared by its copies, so
  /// each evaluator needs its own).
  static func zonesAndManhattan() throws -> (zones: [Zone], manhattan: MultiPolygon) {
    let zones = try CellCacheTests.harborAndManhattanZones()
    let manhattan = try #require(zones.first { $0.id == "manhattan" })
    guard case .polygon(let shape) = manhattan.fences[0].area else {
      throw TablesAheadTestError.notAPolygon
    }
    return (zones, shape)
  }

  enum TablesAheadTestError: Error { case notAPolygon }

  /// Whether Manhattan's joined stripes and its largest part's tree are built.
  static func hasTables(_ shape: MultiPolygon) -> (stripes: Bool, tree: Bool) {
    let largest = (0..<shape.partCount).max { shape.partIndex($0).edgeCount < shape.partIndex($1).edgeCount }!
    return (shape.stripes?.hasFiledStripes == true, shape.partIndex(largest).hasBuiltTree)
  }

  @Test func polygonsFromTheEdgeCountUpGetTheirTablesWhenAdded() throws {
    let edges = try Self.zonesAndManhattan().manhattan.edgeCount
    #expect(edges > 1_000)
    for (threshold, built) in [(0, true), (edges, true), (edges + 1, false), (Int.max, false)] {
      let (zones, manhattan) = try Self.zonesAndManhattan()
      #expect(Self.hasTables(manhattan) == (false, false))
      _ = try ZoneEvaluator(configuration: .init(tablesAheadEdgeCount: threshold), zones: zones)
      #expect(Self.hasTables(manhattan) == (built, built), "threshold \(threshold)")
    }
    // GEOS answers the polygon tests there: nothing is built.
    let (zones, manhattan) = try Self.zonesAndManhattan()
    _ = try ZoneEvaluator(
      configuration: .init(predicateBackend: .geosPrepared, tablesAheadEdgeCount: 0), zones: zones)
    #expect(Self.hasTables(manhattan) == (false, false))
  }

  @Test func theEventsAreThoseOfTablesBuiltByTheFirstFix() throws {
    let fixes = try HarborTests.fixes(fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv"))
    func replay(_ threshold: Int) throws -> [ZoneEvent] {
      var evaluator = try ZoneEvaluator(
        configuration: .init(tablesAheadEdgeCount: threshold),
        zones: try Self.zonesAndManhattan().zones)
      return replayEvents(fixes, through: &evaluator, advancingBy: 3600)
    }
    let ahead = try replay(0)
    #expect(ahead.count == 531)
    #expect(ahead == (try replay(Int.max)))
  }

  @Test func aNegativeEdgeCountIsRefused() {
    #expect(throws: ConfigurationError.self) {
      try ZoneEvaluator.Configuration(tablesAheadEdgeCount: -1).validate()
    }
    #expect(throws: Never.self) { try ZoneEvaluator.Configuration(tablesAheadEdgeCount: 0).validate() }
  }
}
