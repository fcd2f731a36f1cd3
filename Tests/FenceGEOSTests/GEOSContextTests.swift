import FenceGEOS
import Testing

@Suite struct GEOSContextTests {
  @Test func geosParseErrorsCarryTheFunctionAndGEOSMessage() throws {
    let context = try GEOSContext()
    #expect(
      throws: GEOSError(
        function: "GEOSWKTReader_read_r",
        message: "ParseException: Expected word but encountered end of stream")
    ) {
      try GEOSGeometry(wkt: "POLYGON ((0 0, 1 0, 1 1", context: context)
    }
  }

  @Test func errorTextDoesNotLeakIntoTheNextFailure() throws {
    let context = try GEOSContext()
    #expect(throws: GEOSError.self) { try GEOSGeometry(wkt: "POINT (", context: context) }
    #expect(
      throws: GEOSError(
        function: "GEOSWKTReader_read_r", message: "ParseException: Unknown type: 'CIRCLE'")
    ) {
      try GEOSGeometry(wkt: "CIRCLE (0 0)", context: context)
    }
  }

  @Test func descriptionNamesTheFunctionFirst() {
    let error = GEOSError(function: "GEOSPreparedCovers_r", message: "TopologyException: boom")
    #expect(error.description == "GEOSPreparedCovers_r failed: TopologyException: boom")
  }

  @Test func linkedGEOSIsVersion3() throws {
    #expect(try GEOSContext().version.hasPrefix("3."))
  }

  @Test func wktRoundTripsThroughOurPolygon() throws {
    let context = try GEOSContext()
    let wkt = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 2 2))"
    let polygon = try shape(wkt, context: context)
    #expect(polygon.polygons.count == 1)
    #expect(polygon.polygons[0].rings.map(\.count) == [5, 4])
    let written = try GEOSGeometry(polygon.polygons[0], context: context).wkt()
    #expect(written == wkt)
  }
}
