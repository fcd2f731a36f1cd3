import Foundation
import Testing

/// `--map`: the page opens on the tracks with a 5 % margin, even when a world-wide zones file is
/// loaded; with no track position to draw, on the fences.
@Suite struct MapFrameTests {
  /// One polygon over nearly the whole world.
  static let world = """
    {"type":"FeatureCollection","features":[{"type":"Feature","id":"world","properties":{},
    "geometry":{"type":"Polygon","coordinates":[[[-170,-80],[170,-80],[170,80],[-170,80],[-170,-80]]]}}]}
    """

  @Test func frameFitsTheTracksNotAWorldWideFence() throws {
    let track = try MapPage.file(
      "two.csv",
      "device,time,lat,lon\na,2020-01-01T00:00:00Z,40.0,-74.2\na,2020-01-01T00:01:00Z,40.1,-74.0\n")
    let page = try MapPage.run(
      zones: [try MapPage.file("world.geojson", Self.world), RunCommandTests.zones], tracks: [track])
    // The tracks' box, 0.1° × 0.2°, grown by 5 % of its size on each side.
    #expect(
      page.data.frame
        == MapPage.Frame(fits: "tracks", south: 39.995, west: -74.21, north: 40.105, east: -73.99))
    // The frame is the picture, 1000 units across its longer side.
    #expect(page.data.width == 1000)
    #expect(page.data.fences.contains { $0.id == "world" })
  }

  @Test func withoutTracksTheFrameFitsTheFencesClampedToTheWorld() throws {
    // The only fix is at null island, which the map does not draw.
    let track = try MapPage.file("null.csv", "device,time,lat,lon\na,2020-01-01T00:00:00Z,0,0\n")
    let page = try MapPage.run(
      zones: [try MapPage.file("world.geojson", Self.world)], tracks: [track])
    #expect(page.data.tracks.isEmpty)
    #expect(
      page.data.frame == MapPage.Frame(fits: "fences", south: -88, west: -180, north: 88, east: 180))
  }

  @Test func harborHourIsFramedOnItsTracks() throws {
    let page = try MapPage.run(zones: [RunCommandTests.zones], tracks: [RunCommandTests.firstHour])
    #expect(page.data.frame.fits == "tracks")
    #expect(page.data.t0 == 1_593_475_200)  // 2020-06-30T00:00:00Z
    #expect(page.data.span == 3599)
  }
}
