import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

/// Records that straddle refills of the input buffer: with chunks of a few bytes every record
/// is split across reads (and the buffer moves and grows under it), and the result must be
/// exactly what one big chunk gives.
@Suite struct ChunkBoundaryTests {
  static let tinyChunks = [1, 2, 3, 7, 16, 61]

  func settings(chunk: Int) -> ByteInput.Settings {
    var settings = ByteInput.Settings()
    settings.chunkSize = chunk
    return settings
  }

  /// Every CSV record of a file with its line, read through `ByteInput` with `chunk`.
  func csvRecords(_ path: String, chunk: Int) throws -> [(line: Int, text: String, open: Bool)] {
    let input = try ByteInput(path: path, settings: settings(chunk: chunk))
    var records: [(line: Int, text: String, open: Bool)] = []
    while let record = try input.nextCSVRecord(delimiter: UInt8(ascii: ",")) {
      records.append(
        (input.recordLine, String(decoding: record, as: UTF8.self), input.recordHasUnclosedQuote))
    }
    return records
  }

  @Test(arguments: tinyChunks + [1 << 20])
  func csvRecordsAreTheSameForEveryChunkSize(chunk: Int) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    // CRLF, a quoted newline, an escaped quote, a stray quote inside an unquoted field (an
    // ordinary byte), blanks before a quote, a blank line, and a last line without newline.
    let path = try directory.write(
      "records.csv",
      "a,b\r\n\"x\r\ny\",2\r\nsay \"hi,3\n  \"q\"\"\",4\n\nlast,\"open")
    let records = try csvRecords(path, chunk: chunk)
    #expect(records.map(\.line) == [1, 2, 4, 5, 6, 7])
    #expect(records.map(\.text) == ["a,b", "\"x\r\ny\",2", "say \"hi,3", "  \"q\"\"\",4", "", "last,\"open"])
    #expect(records.map(\.open) == [false, false, false, false, false, true])
  }

  @Test(arguments: tinyChunks)
  func linesAreTheSameForEveryChunkSize(chunk: Int) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("lines.txt", "one\r\n\"two\n\nfour\r\r\nfive")
    let input = try ByteInput(path: path, settings: settings(chunk: chunk))
    var lines: [String] = []
    var numbers: [Int] = []
    while let line = try input.nextLine() {
      lines.append(String(decoding: line, as: UTF8.self))
      numbers.append(input.recordLine)
    }
    #expect(lines == ["one", "\"two", "", "four\r", "five"])
    #expect(numbers == [1, 2, 3, 4, 5])
  }

  @Test(arguments: [7, 16])
  func harborFirstHourIsTheSameInTinyChunks(chunk: Int) throws {
    let path = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")
    let expected = try TrackReader(path: path).readAll()
    let reader = try TrackReader(path: path, options: TrackReadOptions(), input: settings(chunk: chunk))
    let fixes = try reader.readAll()
    #expect(fixes.count == 8_689)
    #expect(fixes == expected)
    #expect(reader.skippedRowCount == 0)
  }

  @Test(
    .enabled(
      if: FileManager.default.fileExists(
        atPath: sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv"))))
  func harborWeekIsTheSameInOddChunks() throws {
    // CRLF endings, 8.8 MB: a 1021-byte chunk ends inside a row about every 30 rows, often
    // between the `\r` and the `\n`.
    let path = sharedDataPath("tracks/nyharbor-ais-2020-12-01-to-07.csv")
    let expected = try TrackReader(path: path).readAll()
    let fixes = try TrackReader(path: path, options: TrackReadOptions(), input: settings(chunk: 1021))
      .readAll()
    #expect(fixes.count == 172_679)
    #expect(fixes == expected)
  }

  @Test(arguments: tinyChunks)
  func quotedCSVRowsAndTheirIssuesAreTheSameInTinyChunks(chunk: Int) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "quoted.csv",
      "\u{FEFF}device,time,lat,lon,note\r\n"
        + "\"bus \"\"7\"\"\",2020-06-30T00:00:00Z,40.5,-74.25,\"a\r\nb\"\r\n"
        + "bus 8,bad,40.5,-74.25,x\r\n"
        + "6'2\" tall,2020-06-30T00:00:01Z,40.5,-74.25,x\r\n"
        + "bus 9,2020-06-30T00:00:02Z,40.5,-74.25,\"never closed\r\nbus 10,,,\r\n")
    let reader = try TrackReader(path: path, options: TrackReadOptions(), input: settings(chunk: chunk))
    let fixes = try reader.readAll()
    #expect(fixes.map(\.device) == ["bus \"7\"", "6'2\" tall"])
    #expect(
      reader.issues.map(\.line) == [4, 6] && reader.issues.map(\.reason) == [
        #"column "time": expected a time (RFC 3339 or epoch seconds), got "bad""#,
        "a quoted field is not closed before the end of the file",
      ])
  }

  @Test(arguments: tinyChunks)
  func ndjsonGPXAndEventsAreTheSameInTinyChunks(chunk: Int) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let fixes = Array(
      try TrackReader(path: fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")).readAll()
        .prefix(300))
    // NDJSON, CRLF endings, no final newline.
    let ndjson = fixes.map {
      #"{"device":"\#($0.device)","time":\#(Double($0.time.microsecondsSinceEpoch) / 1e6),"lat":\#($0.latitude),"lon":\#($0.longitude)}"#
    }.joined(separator: "\r\n")
    let ndjsonPath = try directory.write("fixes.ndjson", ndjson)
    let fromNDJSON = try TrackReader(path: ndjsonPath, options: TrackReadOptions(), input: settings(chunk: chunk))
      .readAll()
    #expect(fromNDJSON == fixes.map {
      LocationFix(device: $0.device, time: $0.time, latitude: $0.latitude, longitude: $0.longitude)
    })
    // GPX, one track per fix so the device survives.
    let gpx =
      "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">"
      + fixes.map {
        "<trk><name>\($0.device)</name><trkseg><trkpt lat=\"\($0.latitude)\" lon=\"\($0.longitude)\"><time>\($0.time.microsecondsSinceEpoch / 1_000_000)</time></trkpt></trkseg></trk>\n"
      }.joined() + "</gpx>"
    let gpxPath = try directory.write("fixes.gpx", gpx)
    let fromGPX = try TrackReader(path: gpxPath, options: TrackReadOptions(), input: settings(chunk: chunk))
      .readAll()
    #expect(fromGPX == fromNDJSON)
    // Events: the golden harbor file.
    let golden = fixturePath("golden/nyharbor-first-hour.ndjson")
    let events = try EventReader(path: golden, input: settings(chunk: chunk)).readAll()
    #expect(events == (try EventReader(path: golden).readAll()))
    #expect(events.count > 20)
  }

  @Test(arguments: [1, 7, 4096])
  func zonesAreTheSameInTinyChunks(chunk: Int) throws {
    let path = fixturePath("zones/nyharbor-zones.geojson")
    let zones = try ZoneLoader.loadZones(
      contentsOf: path, options: ZoneLoadOptions(), input: settings(chunk: chunk))
    #expect(zones == (try ZoneLoader.loadZones(contentsOf: path)))
    #expect(zones.count == 6)
  }
}
