import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

/// Tracks read from memory read as the same file would, and a reader is an AsyncSequence.
@Suite struct TrackReaderMemoryTests {
  static let firstHour = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")

  @Test func bytesInMemoryReadAsTheFile() throws {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.firstHour)))
    let fromFile = try TrackReader(path: Self.firstHour).readAll()
    let fromMemory = try TrackReader(bytes: bytes, name: "hour.csv").readAll()
    #expect(fromMemory.count == 8689)
    #expect(fromMemory == fromFile)
    // Gzip data in memory is recognised by its magic bytes, whatever the name.
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let copy = directory.path + "/hour.csv"
    try Data(bytes).write(to: URL(fileURLWithPath: copy))
    try run("/bin/gzip", ["-9", copy])
    let gzipped = try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy + ".gz")))
    #expect(try TrackReader(bytes: gzipped, name: "upload.csv").readAll() == fromFile)
    // Cut gzip data is an error naming the input.
    #expect(throws: TrackReadError(file: "cut.csv", reason: "the gzip data is truncated")) {
      try TrackReader(bytes: gzipped.prefix(gzipped.count / 2), name: "cut.csv").readAll()
    }
  }

  @Test func textInMemoryWithIssuesAndFormats() throws {
    let reader = try TrackReader(
      text: "device,time,lat,lon\na,2020-06-30T00:00:00Z,40.6,-74\nb,later,40.6,-74\n", name: "t.csv")
    #expect(try reader.readAll().map(\.device) == ["a"])
    #expect(reader.issues.map(\.line) == [3])
    let ndjson = try TrackReader(
      text: #"{"device":"a","time":"2020-06-30T00:00:00Z","lat":40.6,"lon":-74}"#, name: "upload",
      options: TrackReadOptions(format: .ndjson))
    #expect(try ndjson.readAll().count == 1)
    #expect(throws: TrackReadError.self) { try TrackReader(text: "x", name: "upload") }
  }

  @Test func aReaderIsAnAsyncSequence() async throws {
    let reader = try TrackReader(path: Self.firstHour)
    var count = 0
    var last: LocationFix?
    for try await fix in reader {
      count += 1
      last = fix
    }
    #expect(count == 8689)
    #expect(last == (try TrackReader(path: Self.firstHour).readAll().last))
  }
}
