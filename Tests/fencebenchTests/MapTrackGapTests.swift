import Foundation
import Testing

/// `--map`: a track is broken where its device is silent for longer than `--map-gap`, so the
/// map draws no line across where it was not seen.
@Suite struct MapTrackGapTests {
  /// Device a: three fixes a minute apart going north, 901 s of silence, two fixes, exactly
  /// 900 s of silence, one fix. Device b: one fix. All far from the harbor zones.
  static let track = """
    device,time,lat,lon
    a,2020-01-01T00:00:00Z,40.50,-73.90
    b,2020-01-01T00:00:30Z,40.50,-73.85
    a,2020-01-01T00:01:00Z,40.51,-73.90
    a,2020-01-01T00:02:00Z,40.52,-73.90
    a,2020-01-01T00:17:01Z,40.52,-73.80
    a,2020-01-01T00:18:01Z,40.51,-73.80
    a,2020-01-01T00:33:01Z,40.50,-73.80

    """

  @Test func defaultGapOfFifteenMinutesSplitsOnlyTheLongerSilence() throws {
    let page = try MapPage.run(
      zones: [RunCommandTests.zones], tracks: [try MapPage.file("gaps.csv", Self.track)])
    #expect(page.data.t0 == 1_577_836_800)  // 2020-01-01T00:00:00Z
    #expect(page.data.span == 1981)
    #expect(page.data.tracks.map(\.device) == ["a", "b"])
    #expect(page.data.tracks[0].parts.map(\.times) == [[0, 60, 120], [1021, 1081, 1981]])
    #expect(page.data.tracks[1].parts.map(\.times) == [[30]])
    #expect(page.data.legend.trackParts == 3)
    #expect(page.data.legend.gapSeconds == 900)
    for part in page.data.tracks.flatMap(\.parts) {
      #expect(part.points.count == 2 * part.times.count)
    }
    // The first part runs north along one meridian (y grows southwards); the second lies east
    // of it.
    let first = page.data.tracks[0].parts[0].points
    let second = page.data.tracks[0].parts[1].points
    #expect(first[0] == first[2] && first[2] == first[4])
    #expect(first[1] > first[3] && first[3] > first[5])
    #expect(second[0] > first[0])
  }

  @Test func mapGapOptionSetsTheThreshold() throws {
    let page = try MapPage.run(
      zones: [RunCommandTests.zones], tracks: [try MapPage.file("gaps.csv", Self.track)],
      options: ["--map-gap", "500"])
    #expect(page.data.tracks[0].parts.map(\.times) == [[0, 60, 120], [1021, 1081], [1981]])
    #expect(page.data.legend.trackParts == 4)
    #expect(page.data.legend.gapSeconds == 500)
  }

  @Test func svgDrawsOnePolylinePerPartOfTwoOrMorePositions() throws {
    let map = FenceBenchProcess.temporaryPath("gaps.svg")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", RunCommandTests.zones, try MapPage.file("gaps.csv", Self.track), "--map", map])
    #expect(result.status == 0)
    let svg = try String(contentsOfFile: map, encoding: .utf8)
    #expect(svg.components(separatedBy: "<polyline stroke=\"hsl(").count - 1 == 2)
  }

  @Test func mapGapMustBePositive() throws {
    let result = try FenceBenchProcess.run(
      ["run", "--zones", RunCommandTests.zones, RunCommandTests.firstHour, "--map-gap", "0"])
    #expect(result.status == 2)
    #expect(result.standardError.split(separator: "\n").first
      == "Error: --map-gap must be a number of seconds greater than 0, got 0.0.")
  }
}
