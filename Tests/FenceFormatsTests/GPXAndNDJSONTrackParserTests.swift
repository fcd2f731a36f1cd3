import FenceEngine
import FenceTestSupport
import Testing

@testable import FenceFormats

@Suite struct GPXTrackParserTests {
  @Test func readsTrackPointsWithNameTimeAndExtensions() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "ferry.gpx",
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- exported -->
      <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
           xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
        <metadata><name>not a track name</name><time>2020-01-01T00:00:00Z</time></metadata>
        <trk>
          <name>Ferry &amp; Co</name>
          <trkseg>
            <trkpt lat="40.6440" lon='-74.0716'><ele>3</ele><time>2020-06-30T00:00:00Z</time></trkpt>
            <trkpt lat="40.6450" lon="-74.0700">
              <time><![CDATA[2020-06-30T00:00:10.5Z]]></time>
              <extensions><gpxtpx:TrackPointExtension>
                <gpxtpx:speed>5.5</gpxtpx:speed><gpxtpx:course>45</gpxtpx:course>
              </gpxtpx:TrackPointExtension></extensions>
            </trkpt>
            <trkpt lat="40.6460" lon="-74.0690"/>
            <trkpt lat="north" lon="-74.0690"><time>2020-06-30T00:00:20Z</time></trkpt>
          </trkseg>
        </trk>
        <trk>
          <trkseg><trkpt lat="1" lon="2"><time>2020-06-30T00:01:00Z</time><speed>2</speed><course>10</course></trkpt></trkseg>
        </trk>
      </gpx>
      """)
    let reader = try TrackReader(path: path)
    let fixes = try reader.readAll()
    #expect(
      fixes == [
        LocationFix(
          device: "Ferry & Co", time: TimestampParser.parse("2020-06-30T00:00:00Z")!,
          latitude: 40.6440, longitude: -74.0716),
        LocationFix(
          device: "Ferry & Co", time: TimestampParser.parse("2020-06-30T00:00:10.5Z")!,
          latitude: 40.6450, longitude: -74.0700, speed: 5.5, course: 45),
        LocationFix(
          device: "ferry", time: TimestampParser.parse("2020-06-30T00:01:00Z")!,
          latitude: 1, longitude: 2, speed: 2, course: 10),
      ])
    #expect(
      reader.issues == [
        TrackIssue(file: path, line: 16, reason: "trkpt: <time>: expected an RFC 3339 time, got nothing"),
        TrackIssue(file: path, line: 17, reason: #"trkpt: attribute "lat": expected a latitude in degrees, got "north""#),
      ])
  }

  @Test func malformedXMLIsAnError() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("broken.gpx", "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"")
    let reader = try TrackReader(path: path)
    #expect(throws: TrackReadError(file: path, line: 1, reason: "malformed XML: unterminated start tag <trkpt")) {
      try reader.next()
    }
  }
}

@Suite struct NDJSONTrackParserTests {
  @Test func readsOneFixPerLine() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "fixes.jsonl",
      """
      {"device":"phone-1","time":"2020-06-30T00:01:10Z","lat":40.6442,"lon":-74.07166,"accuracy":5,"speed":1.5,"course":270,"extra":[1]}
      {"device":367000140,"time":1593475271.5,"lat":40.6443,"lon":-74.0716,"speed":null}

      {"device":"phone-1","time":"noon","lat":1,"lon":2}
      {"device":"phone-1","lat":1,"lon":2}
      [1,2]
      {"device":"phone-1","time":1593475272000,"lat":"40","lon":2}
      {"device":"phone-1","time":1593475272000,"lat":40,"lon":2
      """)
    let reader = try TrackReader(path: path)
    let fixes = try reader.readAll()
    #expect(
      fixes == [
        LocationFix(
          device: "phone-1", time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000),
          latitude: 40.6442, longitude: -74.07166, accuracy: 5, speed: 1.5, course: 270),
        LocationFix(
          device: "367000140", time: Timestamp(microsecondsSinceEpoch: 1_593_475_271_500_000),
          latitude: 40.6443, longitude: -74.0716),
      ])
    #expect(
      reader.issues.map(\.description) == [
        "\(path):4: \"time\": expected an RFC 3339 time, got \"noon\"",
        "\(path):5: missing \"time\"",
        "\(path):6: expected a JSON object, got an array",
        "\(path):7: \"lat\": expected a number, got \"40\"",
        "\(path):8: invalid JSON at column 58: unterminated object: expected ',' or '}'",
      ])
  }
}
