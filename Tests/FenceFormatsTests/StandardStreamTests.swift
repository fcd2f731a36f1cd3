import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `-` as a path: standard input for readers, standard output for the event writer. The tests
/// hand the readers a descriptor of their own in place of descriptor 0 (or 1), so they run in
/// parallel with everything else and do not touch the test process's real streams.
@Suite struct StandardStreamTests {
  /// Whether a descriptor is still open.
  func isOpen(_ descriptor: Int32) -> Bool { fcntl(descriptor, F_GETFD) != -1 }

  func openForReading(_ path: String) throws -> Int32 {
    let descriptor = open(path, O_RDONLY)
    try #require(descriptor >= 0)
    return descriptor
  }

  @Test func tracksAndZonesReadFromStandardInputAndLeaveItOpen() throws {
    let csv = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")
    let descriptor = try openForReading(csv)
    defer { close(descriptor) }
    var settings = ByteInput.Settings()
    settings.standardInput = descriptor
    let reader = try TrackReader(
      path: "-", options: TrackReadOptions(format: .csv), input: settings)
    let fixes = try reader.readAll()
    #expect(fixes.count == 8_689)
    #expect(fixes == (try TrackReader(path: csv).readAll()))
    #expect(reader.issues.isEmpty)
    #expect(isOpen(descriptor))  // the reader closed its duplicate only

    let zonesPath = fixturePath("zones/nyharbor-zones.geojson")
    let zonesDescriptor = try openForReading(zonesPath)
    defer { close(zonesDescriptor) }
    settings.standardInput = zonesDescriptor
    let zones = try ZoneLoader.loadZones(contentsOf: "-", options: ZoneLoadOptions(), input: settings)
    #expect(zones == (try ZoneLoader.loadZones(contentsOf: zonesPath)))
    #expect(isOpen(zonesDescriptor))
  }

  @Test func gzipArrivesThroughStandardInputToo() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let golden = fixturePath("golden/nyharbor-first-hour.ndjson")
    let events = try EventReader(path: golden).readAll()
    let gzipped = directory.path + "/events.ndjson.gz"
    let writer = try EventWriter(path: gzipped)
    try writer.write(contentsOf: events)
    try writer.close()
    let descriptor = try openForReading(gzipped)
    defer { close(descriptor) }
    var settings = ByteInput.Settings()
    settings.standardInput = descriptor
    #expect(try EventReader(path: "-", input: settings).readAll() == events)
  }

  @Test func eventsWrittenToStandardOutputReadBack() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let events = try EventReader(path: fixturePath("golden/nyharbor-first-hour.ndjson")).readAll()
    let output = directory.path + "/stdout.ndjson"
    let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    for _ in 0..<3 {
      // Several writers in turn on one standard output: each flushes and releases its own
      // stream, and the descriptor stays open.
      let writer = try EventWriter(path: "-", standardOutput: descriptor)
      try writer.write(contentsOf: events)
      try writer.close()
      #expect(writer.eventCount == events.count)
    }
    #expect(isOpen(descriptor))
    #expect(try EventReader(path: output).readAll() == events + events + events)
  }
}
