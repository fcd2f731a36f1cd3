import Foundation
import Testing

@testable import FenceFormats

/// ``ByteInput/readAll()`` gives its result room for the whole input at once when the size is
/// known (a plain file's size, a gzip file's trailer), instead of doubling as it reads; the
/// size is only a hint, so input longer than the trailer says still reads whole.
@Suite struct ReadAllSizingTests {
  /// 300,000 bytes of text that compress well, read 4 KiB at a time.
  let text: [UInt8] = Array(
    String(repeating: "fence 12 at 40.7012345, -74.0123456; zone harbor\n", count: 6_000).utf8)
  let settings = ByteInput.Settings(chunkSize: 4_096)

  func write(_ bytes: [UInt8], to path: String) {
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
  }

  @Test func plainAndGzipFilesAreReadIntoOneAllocationOfTheirSize() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let plain = directory.path + "/zones.geojson"
    write(text, to: plain)
    try run("/bin/cp", [plain, directory.path + "/copy.geojson"])
    try run("/bin/gzip", ["-n", "-9", directory.path + "/copy.geojson"])
    for path in [plain, directory.path + "/copy.geojson.gz"] {
      let bytes = try ByteInput(path: path, settings: settings).readAll()
      #expect(bytes == text)
      // Doubling from 4 KiB would leave at least 393,216 bytes of room; reserved, one more
      // than the size, rounded up to the allocator's granule.
      #expect(bytes.capacity >= text.count)
      #expect(bytes.capacity <= text.count + 64)
    }
  }

  /// Concatenated gzip members: the trailer gives the last member's size only (50 bytes here),
  /// and the rest still reads, growing past the hint.
  @Test func aTrailerSmallerThanTheInputIsOnlyAHint() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let first = directory.path + "/first"
    let second = directory.path + "/second"
    write(text, to: first)
    let tail = Array(text.prefix(50))
    write(tail, to: second)
    try run("/bin/gzip", ["-n", first])
    try run("/bin/gzip", ["-n", second])
    let joined = directory.path + "/joined.gz"
    write(
      try [UInt8](Data(contentsOf: URL(fileURLWithPath: first + ".gz")))
        + [UInt8](Data(contentsOf: URL(fileURLWithPath: second + ".gz"))), to: joined)
    let bytes = try ByteInput(path: joined, settings: settings).readAll()
    #expect(bytes == text + tail)
  }

  /// A file that is empty, or gzip data of nothing, reads as no bytes.
  @Test func emptyInputsReadAsNothing() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let empty = directory.path + "/empty"
    write([], to: empty)
    #expect(try ByteInput(path: empty, settings: settings).readAll() == [])
    try run("/bin/cp", [empty, directory.path + "/nothing"])
    try run("/bin/gzip", ["-n", directory.path + "/nothing"])
    #expect(try ByteInput(path: directory.path + "/nothing.gz", settings: settings).readAll() == [])
  }
}
