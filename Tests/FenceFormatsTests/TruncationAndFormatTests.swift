import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

/// A file cut short or in another format than the one asked for is an error naming the file,
/// never a shorter or empty track; device ids that are not UTF-8 are refused, not merged.
@Suite struct TruncationAndFormatTests {
  static let firstHour = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")

  /// The error reading a whole file gives, or nil (and the fix count) when it reads.
  func readError(_ path: String, format: TrackFormat? = nil) -> (fixes: Int, error: TrackReadError?) {
    var count = 0
    do {
      let reader = try TrackReader(path: path, options: TrackReadOptions(format: format))
      while try reader.next() != nil { count += 1 }
      return (count, nil)
    } catch let error as TrackReadError {
      return (count, error)
    } catch {
      Issue.record("unexpected error \(error)")
      return (count, nil)
    }
  }

  @Test func aTruncatedGzipFileIsAnError() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let copy = directory.path + "/hour.csv"
    try FileManager.default.copyItem(atPath: Self.firstHour, toPath: copy)
    try run("/bin/gzip", ["-9", copy])
    let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy + ".gz")))
    #expect(readError(copy + ".gz").error == nil)
    // Cut inside the compressed data, and inside the 8-byte trailer.
    for cut in [whole.count / 2, whole.count - 3] {
      let path = directory.path + "/cut-\(cut).csv.gz"
      try Data(whole.prefix(cut)).write(to: URL(fileURLWithPath: path))
      let result = readError(path)
      let error = try #require(result.error, "cut at \(cut) of \(whole.count)")
      #expect(error.file == path)
      #expect(error.reason.hasPrefix("the gzip data is truncated (unexpected end of file after "))
    }
  }

  static let gpx = """
    <?xml version="1.0"?>
    <gpx version="1.1" creator="test"><trk><name>boat</name><trkseg>
    <trkpt lat="40.6" lon="-74.0"><time>2020-06-30T00:00:00Z</time></trkpt>
    <trkpt lat="40.7" lon="-74.1"><time>2020-06-30T00:01:00Z</time></trkpt>
    </trkseg></trk></gpx>
    """

  @Test func aTruncatedGPXDocumentIsAnError() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    #expect(readError(try directory.write("whole.gpx", Self.gpx)).fixes == 2)
    let cut = String(Self.gpx.prefix(Self.gpx.count - 30))
    let path = try directory.write("cut.gpx", cut)
    let result = readError(path)
    let error = try #require(result.error)
    #expect(result.fixes == 1)
    #expect(error.file == path)
    #expect(error.line == 4)
    #expect(error.reason == "malformed XML: unexpected end of input inside <gpx> <trk> <trkseg> <trkpt> (the file is truncated)")
  }

  @Test func aFileInAnotherFormatIsNotAnEmptyGPXTrack() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let csv = readError(Self.firstHour, format: .gpx)
    #expect(csv.fixes == 0)
    #expect(csv.error?.reason == "not a GPX document: no <gpx> element (is the file in another format?)")
    let html = try directory.write("page.gpx", "<html><body>not a track</body></html>")
    #expect(readError(html).error?.reason == "not a GPX document: the first element is <html>, expected <gpx>")
  }

  @Test func deviceIdsThatAreNotUTF8AreRefusedNotMerged() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    // Two ids that differ only in their invalid bytes; repairing both would give "a\u{FFFD}".
    var bytes = Array("device,time,lat,lon\n".utf8)
    bytes += Array("a".utf8) + [0xFF] + Array(",2020-06-30T00:00:00Z,40.6,-74.0\n".utf8)
    bytes += Array("a".utf8) + [0xFE] + Array(",2020-06-30T00:00:01Z,40.6,-74.0\n".utf8)
    bytes += Array("b,2020-06-30T00:00:02Z,40.6,-74.0\n".utf8)
    let path = directory.path + "/ids.csv"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let reader = try TrackReader(path: path)
    let fixes = try reader.readAll()
    #expect(fixes.map(\.device) == ["b"])
    #expect(reader.issues.map(\.line) == [2, 3])
    #expect(reader.issues.map(\.reason) == Array(repeating: "column \"device\": the device id is not valid UTF-8", count: 2))

    let gpx = Self.gpx.replacingOccurrences(of: "<name>boat</name>", with: "<name>bo\u{1}at</name>")
    var gpxBytes = Array(gpx.utf8)
    gpxBytes[gpxBytes.firstIndex(of: 0x01)!] = 0xC3  // a lead byte with no continuation
    let gpxPath = directory.path + "/ids.gpx"
    try Data(gpxBytes).write(to: URL(fileURLWithPath: gpxPath))
    #expect(readError(gpxPath).error?.reason == "malformed XML: the track <name> is not valid UTF-8")
  }
}
