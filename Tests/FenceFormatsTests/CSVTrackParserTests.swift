import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

@Suite struct CSVTrackParserTests {
  let firstHour = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")

  @Test func aisFirstHourReadsEveryRowWithNoOptions() throws {
    let reader = try TrackReader(path: firstHour)
    let fixes = try reader.readAll()
    #expect(fixes.count == 8_689)
    #expect(reader.skippedRowCount == 0)
    #expect(reader.issues.isEmpty)
    // BaseDateTime,LON,LAT,MMSI,SOG,COG,Heading,VesselName,...: MMSI is the device (it comes
    // before VesselName's "name" in the candidates), SOG is in knots, COG is the course.
    #expect(
      fixes[0]
        == LocationFix(
          device: "367000140", time: Timestamp(microsecondsSinceEpoch: 1_593_475_200_000_000),
          latitude: 40.64409, longitude: -74.07157, speed: 0, course: -60.6))
    #expect(
      fixes[1]
        == LocationFix(
          device: "366999618", time: Timestamp(microsecondsSinceEpoch: 1_593_475_200_000_000),
          latitude: 40.54291, longitude: -74.02433, speed: 19.0 * 1852 / 3600, course: -61.8))
    #expect(fixes[1].speed == 9.774444444444445)
    #expect(fixes.last?.device == "367179990")
    #expect(fixes.last?.time == TimestampParser.parse("2020-06-30T00:59:59Z"))
    #expect(Set(fixes.map(\.device)).count == 295)
  }

  @Test(
    .enabled(
      if: FileManager.default.fileExists(
        atPath: sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv"))))
  func aisWeekReadsEveryRowWithNoOptions() throws {
    let reader = try TrackReader(path: sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv"))
    var count = 0
    var devices = Set<String>()
    var last: LocationFix?
    while let fix = try reader.next() {
      count += 1
      devices.insert(fix.device)
      last = fix
    }
    #expect(count == 172_679)
    #expect(devices.count == 140)
    #expect(reader.skippedRowCount == 0)
    #expect(
      last
        == LocationFix(
          device: "338361433", time: TimestampParser.parse("2020-12-07T23:29:51Z")!,
          latitude: 40.63844, longitude: -74.15936))
  }

  @Test func badRowsAreSkippedWithFileLineAndReason() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "bad.csv",
      """
      device,time,lat,lon,speed
      a,2020-06-30T00:00:00Z,40.5,-74.1,3
      b,yesterday,40.5,-74.1,3
      c,2020-06-30T00:00:01Z,abc,-74.1,

      d,2020-06-30T00:00:02Z,40.5
      e,2020-06-30T00:00:03Z,40.5,-74.1,fast
      ,2020-06-30T00:00:04Z,40.5,-74.1,1
      f,2020-06-30T00:00:05Z,91,-200,1
      """)
    let reader = try TrackReader(path: path)
    let fixes = try reader.readAll()
    #expect(fixes.map(\.device) == ["a", "f"])
    #expect(fixes[1].latitude == 91)  // coordinates are the engine's to reject
    #expect(reader.skippedRowCount == 5)
    #expect(
      reader.issues == [
        TrackIssue(file: path, line: 3, reason: #"column "time": expected a time (RFC 3339 or epoch seconds), got "yesterday""#),
        TrackIssue(file: path, line: 4, reason: #"column "lat": expected a latitude in degrees, got "abc""#),
        TrackIssue(file: path, line: 6, reason: "expected at least 5 fields, found 3"),
        TrackIssue(file: path, line: 7, reason: #"column "speed": expected a speed, got "fast""#),
        TrackIssue(file: path, line: 8, reason: #"column "device": the device is empty"#),
      ])
    #expect(reader.issues[0].description == "\(path):3: column \"time\": expected a time (RFC 3339 or epoch seconds), got \"yesterday\"")

    let strict = try TrackReader(path: path, options: TrackReadOptions(strict: true))
    #expect(try strict.next()?.device == "a")
    #expect(throws: TrackReadError(file: path, line: 3, reason: #"column "time": expected a time (RFC 3339 or epoch seconds), got "yesterday""#)) {
      try strict.next()
    }
  }

  @Test func quotedFieldsFollowRFC4180() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "quoted.csv",
      "\u{FEFF}\"Vehicle\",\"Timestamp\",\"Latitude\",\"Longitude\",\"note\"\r\n"
        + "\"bus \"\"7\"\", north\",\"2020-06-30 00:00:00\",\"40.5\", -74.25 ,\"two\nlines\"\r\n"
        + "bus 8,1593475201,40.5,-74.25,x\r\n")
    let reader = try TrackReader(path: path)
    let fixes = try reader.readAll()
    #expect(
      fixes == [
        LocationFix(
          device: "bus \"7\", north", time: Timestamp(microsecondsSinceEpoch: 1_593_475_200_000_000),
          latitude: 40.5, longitude: -74.25),
        LocationFix(
          device: "bus 8", time: Timestamp(microsecondsSinceEpoch: 1_593_475_201_000_000),
          latitude: 40.5, longitude: -74.25),
      ])
  }

  @Test func optionsOverrideColumnsAndUnits() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "custom.txt",
      """
      unit;when;y;x;v;hdg;acc
      7;2020-06-30T00:00:00Z;40.5;-74.25;36;90;5
      """)
    let options = TrackReadOptions(
      format: .csv,
      columns: CSVColumns(device: "unit", time: "when", latitude: "y", longitude: "x", speed: "v"),
      speedUnit: .kilometresPerHour, delimiter: UInt8(ascii: ";"))
    let fixes = try TrackReader(path: path, options: options).readAll()
    #expect(
      fixes == [
        LocationFix(
          device: "7", time: Timestamp(microsecondsSinceEpoch: 1_593_475_200_000_000),
          latitude: 40.5, longitude: -74.25, speed: 10)
      ])
    #expect(throws: TrackReadError(file: path, line: 1, reason: #"no column "speed_kmh" for speed in the header (unit;when;y;x;v;hdg;acc)"#)) {
      try TrackReader(
        path: path,
        options: TrackReadOptions(
          format: .csv, columns: CSVColumns(
            device: "unit", time: "when", latitude: "y", longitude: "x", speed: "speed_kmh"),
          delimiter: UInt8(ascii: ";")))
    }
  }

  @Test func aHeaderWithoutATimeColumnIsAnError() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("notime.csv", "device,lat,lon\na,1,2\n")
    #expect(throws: TrackReadError(file: path, line: 1, reason: "no time column: expected one of time|timestamp|datetime|basedatetime|date_time in the header (device,lat,lon)")) {
      try TrackReader(path: path)
    }
    #expect(throws: TrackReadError.self) { try TrackReader(path: directory.path + "/missing.csv") }
    #expect(throws: TrackReadError.self) { try TrackReader(path: directory.path + "/tracks.txt") }
  }

  @Test func gzipFilesReadTransparently() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let copy = directory.path + "/first-hour.csv"
    try FileManager.default.copyItem(atPath: firstHour, toPath: copy)
    try run("/bin/gzip", ["-9", copy])
    let fixes = try TrackReader(path: copy + ".gz").readAll()
    #expect(fixes == (try TrackReader(path: firstHour).readAll()))
  }

  @Test func recordsLongerThanTheChunkSizeAreRead() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let long = String(repeating: "x", count: ByteInput.Settings().chunkSize + 10)
    let path = try directory.write(
      "long.csv", "device,time,lat,lon,note\na,0,1,2,\(long)\nb,1,1,2,y\n")
    let reader = try TrackReader(path: path)
    #expect(try reader.readAll().map(\.device) == ["a", "b"])
  }
}
