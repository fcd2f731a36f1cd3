import FenceEngine
import FenceTestSupport
import Foundation
import Testing

@testable import FenceFormats

/// Bad input of every kind (random bytes, truncated and mutated real files, very long lines)
/// gives row issues or a thrown error naming the file, never a crash. Seeded, so a failure
/// reproduces.
@Suite struct MalformedInputTests {
  static let firstHour = fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")
  static let zones = fixturePath("zones/nyharbor-zones.geojson")

  /// Reads a whole track file; returns the fixes and issues, or the error it threw (which must
  /// be a `TrackReadError` naming the file).
  func readTrack(_ path: String, format: TrackFormat, input: ByteInput.Settings = .init())
    -> (fixes: Int, skipped: Int, error: TrackReadError?)
  {
    var fixes = 0
    var reader: TrackReader?
    do {
      let opened = try TrackReader(path: path, options: TrackReadOptions(format: format), input: input)
      reader = opened
      while try opened.next() != nil { fixes += 1 }
      return (fixes, opened.skippedRowCount, nil)
    } catch let error as TrackReadError {
      #expect(error.file == path)
      return (fixes, reader?.skippedRowCount ?? 0, error)
    } catch {
      Issue.record("\(path): unexpected error type \(type(of: error)): \(error)")
      return (fixes, 0, nil)
    }
  }

  func randomBytes(_ count: Int, _ generator: inout SeededGenerator, alphabet: [UInt8]? = nil)
    -> [UInt8]
  {
    (0..<count).map { _ in
      if let alphabet { return alphabet[generator.int(below: alphabet.count)] }
      return UInt8(truncatingIfNeeded: generator.next())
    }
  }

  @Test func randomBytesInEveryTrackFormatGiveIssuesOrErrors() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var generator = SeededGenerator(seed: 0x5EED_F00D)
    // Bytes that matter to the parsers, so the garbage reaches deep into them.
    let syntax = Array(",\"\r\n\t :{}[]<>/=&;#!?-.0123456789eETZaz\\'".utf8) + [0x00, 0xFF, 0xC3]
    var thrown = 0
    for round in 0..<60 {
      let count = generator.int(below: 3000)
      let bytes = round.isMultiple(of: 2)
        ? randomBytes(count, &generator) : randomBytes(count, &generator, alphabet: syntax)
      let path = directory.path + "/garbage-\(round)"
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      for format in [TrackFormat.csv, .ndjson, .gpx] {
        var settings = ByteInput.Settings()
        settings.chunkSize = 1 + generator.int(below: 64)
        if readTrack(path, format: format, input: settings).error != nil { thrown += 1 }
      }
      // As a header-led CSV too, so the rows are parsed rather than the header rejected.
      let csvPath = path + ".csv"
      try Data(Array("device,time,lat,lon,speed\n".utf8) + bytes).write(to: URL(fileURLWithPath: csvPath))
      #expect(readTrack(csvPath, format: .csv).error == nil)
      // As zones and as events.
      #expect(throws: ZoneLoadError.self) { try ZoneLoader.loadZones(contentsOf: path) }
      do {
        let reader = try EventReader(path: path)
        while try reader.next() != nil {}
      } catch let error as EventReadError {
        #expect(error.file == path)
      } catch {
        Issue.record("\(path): unexpected error type \(type(of: error)): \(error)")
      }
    }
    #expect(thrown > 0)
  }

  @Test func truncatedHarborFilesLoseOnlyTheirCutRow() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.firstHour)))
    let all = try TrackReader(path: Self.firstHour).readAll()
    var generator = SeededGenerator(seed: 42)
    for round in 0..<40 {
      let cut = round == 0 ? bytes.count - 1 : generator.int(below: bytes.count)
      let prefix = Array(bytes[..<cut])
      let path = directory.path + "/cut-\(round).csv"
      try Data(prefix).write(to: URL(fileURLWithPath: path))
      // Rows complete before the cut (the header is line 0 of this count).
      let completeRows = prefix.filter { $0 == 0x0A }.count - 1
      let result = readTrack(path, format: .csv)
      guard completeRows >= 0 else {
        #expect(result.fixes == 0)  // the header itself is cut
        continue
      }
      #expect(result.error == nil)
      // The cut row is either still a valid row (cut inside its trailing columns) or skipped.
      #expect(result.fixes == completeRows || result.fixes == completeRows + 1, "cut at \(cut)")
      #expect(result.fixes + result.skipped == completeRows + (prefix.last == 0x0A ? 0 : 1))
      let fixes = try TrackReader(path: path).readAll()
      #expect(Array(fixes.prefix(completeRows)) == Array(all.prefix(completeRows)))
    }
  }

  @Test func mutatedGeoJSONGivesZonesOrALoadError() throws {
    let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.zones)))
    var generator = SeededGenerator(seed: 7)
    let replacements = Array("0123456789.-,:[]{}\"eE ntfx".utf8) + [0x00, 0xFF]
    var loaded = 0
    var rejected = 0
    for round in 0..<250 {
      var bytes = original
      for _ in 0..<(1 + round % 4) {
        let position = generator.int(below: bytes.count)
        switch generator.int(below: 3) {
        case 0: bytes[position] = replacements[generator.int(below: replacements.count)]
        case 1: bytes.remove(at: position)
        default: bytes.insert(replacements[generator.int(below: replacements.count)], at: position)
        }
      }
      if round.isMultiple(of: 10) { bytes = Array(bytes.prefix(generator.int(below: bytes.count))) }
      do {
        _ = try ZoneLoader.loadZones(from: bytes, file: "mutated-\(round)")
        loaded += 1
      } catch let error as ZoneLoadError {
        #expect(error.file == "mutated-\(round)")
        #expect(!error.message.isEmpty)
        rejected += 1
      } catch {
        Issue.record("round \(round): unexpected error type \(type(of: error)): \(error)")
      }
    }
    #expect(loaded + rejected == 250)
    #expect(rejected > 100)
  }

  @Test func deeplyNestedJSONIsAnErrorNotAStackOverflow() throws {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: ZoneLoadError.self) { try ZoneLoader.loadZones(from: Array(deep.utf8)) }
    let line = #"{"device":"a","time":0,"lat":1,"lon":2,"x":"# + deep + "}"
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("deep.ndjson", line + "\n" + #"{"device":"a","time":0,"lat":1,"lon":2}"#)
    let result = readTrack(path, format: .ndjson)
    #expect(result.fixes == 1 && result.skipped == 1 && result.error == nil)
  }

  @Test func veryLongLinesAreReadOrRejectedByLength() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let long = String(repeating: "x", count: 3_000_000)
    let path = try directory.write(
      "long.csv", "device,time,lat,lon\n\(long),0,1,2\na,1,1,2\n\(long)")
    // Within the limit: the long device is read, the unterminated last line is a short row.
    let reader = try TrackReader(path: path)
    let fixes = try reader.readAll()
    #expect(fixes.map(\.device.count) == [3_000_000, 1])
    #expect(reader.issues.map(\.line) == [4])
    // Past a limit: an error naming the file and the line.
    var settings = ByteInput.Settings()
    settings.maximumRecordLength = 1 << 20
    settings.chunkSize = 1 << 16
    let limited = try TrackReader(path: path, options: TrackReadOptions(), input: settings)
    do {
      _ = try limited.readAll()
      Issue.record("a 3 MB record passed a 1 MiB limit")
    } catch let error as TrackReadError {
      #expect(error.file == path && error.line == 2)
      #expect(error.reason.hasPrefix("a record longer than 1048576 bytes"))
    }
    // An unclosed quote at the start of the data swallows the file into one record; the limit
    // stops it, and without a limit it is one row error, not a silent loss.
    let quoted = try directory.write("quoted.csv", "device,time,lat,lon\n\"a,0,1,2\nb,1,1,2\nc,2,1,2\n")
    let quotedReader = try TrackReader(path: quoted)
    #expect(try quotedReader.readAll().isEmpty)
    #expect(quotedReader.issues.map(\.line) == [2])
    #expect(quotedReader.issues.first?.reason == "a quoted field is not closed before the end of the file")
  }

  @Test func tabSeparatedFilesKeepTheirEmptyFields() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "tabs.tsv", "device\ttime\tspeed\tlat\tlon\na\t0\t\t1\t2\nb\t1\t 3 \t1\t2\n")
    let options = TrackReadOptions(format: .csv, delimiter: 0x09)
    let fixes = try TrackReader(path: path, options: options).readAll()
    #expect(fixes.map(\.speed) == [nil, 3])
    #expect(fixes.map(\.latitude) == [1, 1])
  }
}
