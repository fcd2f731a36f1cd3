import Foundation
import Testing

@testable import FenceFormats

@Suite struct GunzipTests {
  /// `bytes` compressed by `/bin/gzip -n -9` (no name or time in the header, so the output is
  /// the same on every run).
  func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/data"
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    #expect(try run("/bin/gzip", ["-n", "-9", path]) == 0)
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
  }

  /// The output of a shell pipeline (absolute paths only: `run` passes no environment).
  func shellOutput(_ pipeline: String) throws -> [UInt8] {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/out"
    #expect(try run("/bin/sh", ["-c", pipeline + " > " + path]) == 0)
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
  }

  let text = Array(
    String(repeating: "fence ✓ kit, GEOLINE crossing at 40.6°N\n", count: 200).utf8)

  @Test func roundTripsTextBinaryAndEmptyData() throws {
    #expect(try Gunzip.inflate(try gzip(text), limit: text.count) == text)
    var random = SystemRandomNumberGenerator()
    let binary = (0..<300_000).map { $0 % 7 == 0 ? UInt8.random(in: 0...255, using: &random) : UInt8($0 % 256) }
    #expect(try Gunzip.inflate(try gzip(binary), limit: 1 << 20) == binary)
    #expect(try Gunzip.inflate(try gzip([]), limit: 0) == [])
  }

  @Test func concatenatedMembersInflateToTheirConcatenation() throws {
    let a = Array("first member\n".utf8)
    let b = Array("second member\n".utf8)
    let both = try gzip(a) + gzip([]) + gzip(b)
    #expect(try Gunzip.inflate(both, limit: 100) == a + b)
  }

  @Test func theLimitIsInclusive() throws {
    let compressed = try gzip(text)
    #expect(try Gunzip.inflate(compressed, limit: text.count) == text)
    #expect(throws: GunzipError.largerThanLimit(limit: text.count - 1)) {
      try Gunzip.inflate(compressed, limit: text.count - 1)
    }
    #expect(throws: GunzipError.largerThanLimit(limit: 0)) { try Gunzip.inflate(compressed, limit: 0) }
  }

  @Test func aGzipBombStopsAtTheLimit() throws {
    // 100 MB of zeros in one member: about 100 KB compressed.
    let bomb = try shellOutput("/usr/bin/head -c 100000000 /dev/zero | /bin/gzip -9")
    #expect(bomb.count < 200_000)
    #expect(throws: GunzipError.largerThanLimit(limit: 1_000_000)) {
      try Gunzip.inflate(bomb, limit: 1_000_000)
    }
    // It stops at the first piece past 1 MB of output instead of inflating 100 MB: 16 pieces
    // of 64 KiB (1,048,576 bytes) are the first to pass it.
    let counted = Gunzip.inflateCountingOutput(bomb, limit: 1_000_000)
    #expect(throws: GunzipError.largerThanLimit(limit: 1_000_000)) { try counted.result.get() }
    #expect(counted.inflated == 16 * Gunzip.pieceSize)

    // The same amount as 100 members of 1 MiB each.
    let member = try gzip([UInt8](repeating: 0, count: 1 << 20))
    let members = Array([[UInt8]](repeating: member, count: 100).joined())
    #expect(throws: GunzipError.largerThanLimit(limit: 1_000_000)) {
      try Gunzip.inflate(members, limit: 1_000_000)
    }
    #expect(try Gunzip.inflate(Array(members.prefix(member.count * 2)), limit: 2 << 20).count == 2 << 20)
  }

  @Test func truncatedInputIsAnError() throws {
    let compressed = try gzip(text)
    for length in [0, 1, 2, 5, 10, compressed.count / 2, compressed.count - 8, compressed.count - 1] {
      #expect(throws: GunzipError.truncated, "length \(length)") {
        try Gunzip.inflate(Array(compressed.prefix(length)), limit: 1 << 20)
      }
    }
    // A second member cut short.
    #expect(throws: GunzipError.truncated) {
      try Gunzip.inflate(compressed + compressed.prefix(20), limit: 1 << 20)
    }
  }

  @Test func garbageAndOtherFormatsAreNotGzip() throws {
    #expect(throws: GunzipError.badHeader(detail: "incorrect header check")) {
      try Gunzip.inflate(Array("device,time,lat,lon\n".utf8), limit: 1 << 20)
    }
    // The zlib format (RFC 1950) of "hello": the right algorithm, the wrong wrapper.
    let zlibFormat: [UInt8] = [
      0x78, 0x9C, 0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x06, 0x2C, 0x02, 0x15,
    ]
    #expect(throws: GunzipError.badHeader(detail: "incorrect header check")) {
      try Gunzip.inflate(zlibFormat, limit: 1 << 20)
    }
    // Gzip's magic with an unknown compression method.
    #expect(throws: GunzipError.badHeader(detail: "unknown compression method")) {
      try Gunzip.inflate([0x1F, 0x8B, 0x07, 0x00, 0, 0, 0, 0, 0, 0x03, 0x01, 0x02], limit: 1 << 20)
    }
    let compressed = try gzip(text)
    #expect(throws: GunzipError.badHeader(detail: "2 bytes after gzip member 1 do not start another member")) {
      try Gunzip.inflate(compressed + [0, 0], limit: 1 << 20)
    }
    #expect(throws: GunzipError.badHeader(detail: "member 2: incorrect header check")) {
      try Gunzip.inflate(compressed + [0x1F, 0x00, 0x00], limit: 1 << 20)
    }
  }

  @Test func aBadChecksumOrLengthOrDamagedDataIsCorrupt() throws {
    let compressed = try gzip(text)
    var badCRC = compressed
    badCRC[compressed.count - 8] ^= 0xFF
    #expect(throws: GunzipError.corrupt(detail: "incorrect data check")) {
      try Gunzip.inflate(badCRC, limit: 1 << 20)
    }
    var badLength = compressed
    badLength[compressed.count - 4] ^= 0x01
    #expect(throws: GunzipError.corrupt(detail: "incorrect length check")) {
      try Gunzip.inflate(badLength, limit: 1 << 20)
    }
    #expect(throws: GunzipError.corrupt(detail: "member 2: incorrect data check")) {
      try Gunzip.inflate(compressed + badCRC, limit: 1 << 20)
    }
    // Damage in the deflate data: whatever zlib finds (a bad block, distance or checksum).
    var damaged = compressed
    for index in 12..<(compressed.count - 8) where index % 5 == 0 { damaged[index] ^= 0x5A }
    do {
      _ = try Gunzip.inflate(damaged, limit: 1 << 20)
      Issue.record("damaged data inflated")
    } catch {
      guard case .corrupt = error else {
        Issue.record("expected .corrupt, got \(error)")
        return
      }
    }
  }

  @Test func reasonsAreSentences() {
    #expect(
      GunzipError.largerThanLimit(limit: 1_000_000).reason
        == "the uncompressed data is larger than the limit of 1000000 bytes")
    #expect(GunzipError.truncated.reason == "the gzip data is truncated")
    #expect(GunzipError.badHeader(detail: "incorrect header check").reason == "not gzip data: incorrect header check")
    #expect(GunzipError.corrupt(detail: "incorrect data check").reason == "corrupt gzip data: incorrect data check")
    #expect(GunzipError.zlibFailure(detail: "out of memory").description == "zlib failed: out of memory")
  }
}
