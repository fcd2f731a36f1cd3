import FenceEngine
@testable import FenceStore
import FenceStorePostgres
import FenceTestSupport
import Foundation
import Testing

/// `ZoneSetChunks`: where a zone set's bytes are cut, and what the storages keep of them.
struct ZoneSetChunksTests {
  /// `count` bytes that look random and are the same in every run (SplitMix64 from `seed`).
  static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 8)
    while bytes.count < count {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      z ^= z >> 31
      withUnsafeBytes(of: z.littleEndian) { bytes.append(contentsOf: $0) }
    }
    return Array(bytes.prefix(count))
  }

  /// The chunks' sizes, and a check that they tile the bytes and carry their bytes' hashes.
  static func sizes(_ chunks: ZoneSetChunks, of bytes: [UInt8]) -> [Int] {
    var end = 0
    for chunk in chunks.chunks {
      #expect(chunk.range.lowerBound == end)
      #expect(chunk.hash == ContentHash.of(Array(bytes[chunk.range])))
      end = chunk.range.upperBound
    }
    #expect(end == bytes.count)
    return chunks.chunks.map(\.range.count)
  }

  @Test func theCutsTileTheBytesWithinTheSizeBoundsAndArePinned() {
    let bytes = Self.bytes(1_000_000)
    let chunks = ZoneSetChunks(cutting: bytes)
    #expect(chunks.hash == ContentHash.of(bytes))
    let sizes = Self.sizes(chunks, of: bytes)
    #expect(sizes.dropLast().allSatisfy { (2_048...65_536).contains($0) })
    // Pinned: a change of the table or the constants would share no chunk with the zone sets
    // stored before it (readable still, but stored again whole at the next snapshot).
    #expect(sizes.count == 107)
    #expect(Array(sizes.prefix(6)) == [5_501, 11_565, 3_212, 4_589, 11_705, 11_074])
    #expect(ZoneSetChunks.gear[0] == 0xFC77_2A87_22FA_0D7B)
  }

  @Test func smallAndEmptyZoneSetsAreOneChunkOrNone() {
    #expect(ZoneSetChunks(cutting: []).chunks.isEmpty)
    #expect(ZoneSetChunks(cutting: []).hash == ContentHash.of([]))
    let small = Self.bytes(2_048)
    #expect(ZoneSetChunks(cutting: small).chunks == [.init(range: 0..<2_048, hash: ContentHash.of(small))])
  }

  @Test func bytesThatNeverCallForACutAreCutAtTheMaximum() {
    // Zeros: after 64 of them the rolling hash stays one value, whose low bits are not zero.
    let zeros = [UInt8](repeating: 0, count: 200_000)
    let sizes = Self.sizes(ZoneSetChunks(cutting: zeros), of: zeros)
    #expect(sizes == [65_536, 65_536, 65_536, 3_392])
  }

  @Test func anEditMovesOnlyTheCutsNextToIt() {
    let before = Self.bytes(1_000_000)
    var after = before
    after.insert(contentsOf: Self.bytes(300, seed: 2), at: 500_000)
    after.removeSubrange(700_000..<700_050)
    let old = ZoneSetChunks(cutting: before).chunks
    let new = ZoneSetChunks(cutting: after).chunks
    let oldHashes = Set(old.map(\.hash))
    let fresh = new.filter { !oldHashes.contains($0.hash) }
    // Each edit rewrites the chunk it falls in (and, at most, the next one where the cut moved).
    #expect(fresh.count >= 2 && fresh.count <= 4)
    #expect(fresh.allSatisfy { $0.range.overlaps(480_000..<760_000) })
    #expect(Array(new.prefix(40).map(\.hash)) == Array(old.prefix(40).map(\.hash)))
    #expect(new.suffix(20).map(\.hash) == old.suffix(20).map(\.hash))
  }

  @Test func assemblingChecksTheZoneSetsHash() throws {
    let bytes = Self.bytes(100_000)
    let chunks = ZoneSetChunks(cutting: bytes)
    var parts = chunks.chunks.map { Array(bytes[$0.range]) }
    #expect(try ZoneSetChunks.assemble(parts, zoneSet: ContentHash.of(bytes)) == bytes)
    parts[3][17] ^= 1
    #expect {
      try ZoneSetChunks.assemble(parts, zoneSet: ContentHash.of(bytes))
    } throws: { error in
      guard case StoreError.damaged(let message) = error else { return false }
      return message.contains("zone set \(String(ContentHash.of(bytes), radix: 16))")
        && message.contains("its \(parts.count) chunks (100000 bytes)")
        && message.contains("a chunk is missing or altered")
    }
    parts.remove(at: 5)
    #expect(throws: StoreError.self) { try ZoneSetChunks.assemble(parts, zoneSet: ContentHash.of(bytes)) }
  }
}

/// What a storage holds of its zone sets, counted by a query on its own tables.
struct ZoneSetRows: Equatable, CustomStringConvertible {
  var zoneSets: Int
  var chunks: Int
  var parts: Int
  var description: String { "\(zoneSets) sets, \(chunks) chunks, \(parts) parts" }
}

/// The same story on each storage: a zone set stored in chunks, a changed one that adds only
/// the chunks around its changes, compaction that drops what no snapshot needs, and the bytes
/// read back exactly.
func exerciseZoneSetChunks(
  _ storage: any FenceStorage, rows: () throws -> ZoneSetRows
) throws {
  let first = ZoneSetChunksTests.bytes(600_000)
  var second = first
  second.replaceSubrange(300_000..<300_100, with: ZoneSetChunksTests.bytes(120, seed: 9))
  let firstChunks = Set(ZoneSetChunks(cutting: first).chunks.map(\.hash))
  let secondChunks = Set(ZoneSetChunks(cutting: second).chunks.map(\.hash))
  let secondParts = ZoneSetChunks(cutting: second).chunks.count
  #expect(firstChunks.count >= 40)
  #expect(secondChunks.subtracting(firstChunks).count <= 2)

  func snapshot(_ seq: Int64, _ zoneSet: [UInt8]) -> SnapshotRecord {
    SnapshotRecord(
      commandSeq: seq, lastEventSeq: seq * 10, zoneFingerprint: UInt64(seq), zoneSet: zoneSet,
      evaluator: [UInt8(seq)], takenAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(seq)))
  }
  // Given a key its bytes do not hash to, a new set is refused before anything is stored.
  var mislabelled = snapshot(1, first)
  mislabelled.zoneSetHash = ContentHash.of(second)
  #expect {
    try storage.writeSnapshot(mislabelled)
  } throws: { error in
    guard case StoreError.storageFailed(let message) = error else { return false }
    return message.contains("zone set of 600000 bytes was given the key")
  }
  #expect(try rows() == ZoneSetRows(zoneSets: 0, chunks: 0, parts: 0))
  #expect(try storage.latestSnapshot() == nil)

  try storage.writeSnapshot(snapshot(1, first))
  #expect(try rows() == ZoneSetRows(zoneSets: 1, chunks: firstChunks.count, parts: firstChunks.count))
  #expect(try storage.latestSnapshot()?.zoneSet == first)
  // The same zone set again: nothing more stored.
  try storage.writeSnapshot(snapshot(2, first))
  #expect(try rows() == ZoneSetRows(zoneSets: 1, chunks: firstChunks.count, parts: firstChunks.count))
  try storage.writeSnapshot(snapshot(3, second))
  let union = firstChunks.union(secondChunks).count
  #expect(try rows() == ZoneSetRows(zoneSets: 2, chunks: union, parts: firstChunks.count + secondParts))
  let latest = try #require(try storage.latestSnapshot())
  #expect(latest.commandSeq == 3)
  #expect(latest.zoneSet == second)
  #expect(latest.zoneSetHash == ContentHash.of(second))
  // Compacted through the last snapshot: the first set and the chunks only it held go.
  let report = try storage.compact(
    CompactionPlan(commandsThrough: 3, eventsThrough: 0, recordedBefore: Date(timeIntervalSince1970: 0)))
  #expect(report.snapshots == 2)
  #expect(report.zoneSets == 1)
  #expect(try rows() == ZoneSetRows(zoneSets: 1, chunks: secondChunks.count, parts: secondParts))
  #expect(try storage.latestSnapshot()?.zoneSet == second)
  // The first set stored again shares every chunk the second kept.
  try storage.writeSnapshot(snapshot(4, first))
  #expect(try rows() == ZoneSetRows(zoneSets: 2, chunks: union, parts: firstChunks.count + secondParts))
  #expect(try storage.latestSnapshot()?.zoneSet == first)
}

extension ZoneSetChunksTests {
  @Test func sqliteStoresZoneSetsInChunksOnce() throws {
    try withTemporaryDirectory("chunks") { directory in
      let path = SQLiteStorage.databasePath(in: directory.path)
      // New chunks go in transactions of at most about 64 KB here (4 MB by default).
      let storage = try SQLiteStorage(path: path, durability: .full, chunkBytesPerTransaction: 65_536)
      func rows() throws -> ZoneSetRows {
        let counts = try sqlite3(
          path,
          "SELECT (SELECT count(*) FROM zone_sets) || ' ' || (SELECT count(*) FROM zone_set_chunks) || ' ' || (SELECT count(*) FROM zone_set_parts)"
        ).split(whereSeparator: \.isWhitespace).map { Int($0)! }
        return ZoneSetRows(zoneSets: counts[0], chunks: counts[1], parts: counts[2])
      }
      try exerciseZoneSetChunks(storage, rows: rows)
      // A chunk stored but listed by no set (a kill between a snapshot's chunk transactions and
      // its own) is dropped by the next compaction.
      let before = try rows()
      try sqlite3(path, "INSERT INTO zone_set_chunks(hash, body) VALUES (12345, X'0102')")
      #expect(try rows().chunks == before.chunks + 1)
      _ = try storage.compact(
        CompactionPlan(commandsThrough: 4, eventsThrough: 0, recordedBefore: Date(timeIntervalSince1970: 0)))
      // Through the last snapshot (of the first set): the second set's own chunks go too.
      let first = ZoneSetChunks(cutting: Self.bytes(600_000)).chunks
      #expect(try rows() == ZoneSetRows(zoneSets: 1, chunks: Set(first.map(\.hash)).count, parts: first.count))
      #expect(try rows().chunks < before.chunks)
      #expect(try storage.latestSnapshot()?.zoneSet == Self.bytes(600_000))
      try storage.close()
    }
  }

  /// A zone set stored whole (before schema v2) reads as before; a damaged chunk is an error
  /// that names the zone set, not other zones.
  @Test func sqliteReadsZoneSetsStoredWholeAndReportsADamagedChunk() throws {
    try withTemporaryDirectory("chunks-old") { directory in
      let path = SQLiteStorage.databasePath(in: directory.path)
      let storage = try SQLiteStorage(path: path)
      try expectWholeSetsReadAndDamageReported(
        storage,
        storeWhole: { hash, hex in
          try sqlite3(
            path,
            """
            INSERT INTO zone_sets(hash, body) VALUES (\(hash), X'\(hex)');
            INSERT INTO snapshots(command_seq, last_event_seq, zone_fingerprint, zone_set, evaluator, taken_at)
            VALUES (1, 0, 7, \(hash), X'00', 0);
            """)
        },
        damageThirdChunk: { zoneSet in
          try sqlite3(
            path,
            """
            UPDATE zone_set_chunks SET body = X'00' || body
            WHERE hash = (SELECT chunk FROM zone_set_parts WHERE position = 2 AND zone_set = \(zoneSet));
            """)
        })
      try storage.close()
    }
  }
}

/// A zone set stored whole by `storeWhole` (its key and its bytes in hexadecimal, as a row
/// written before chunks) reads back; one written in chunks reads back until
/// `damageThirdChunk` (given the set's key) alters a chunk, and then is reported as damage.
func expectWholeSetsReadAndDamageReported(
  _ storage: any FenceStorage, storeWhole: (Int64, String) throws -> Void,
  damageThirdChunk: (Int64) throws -> Void
) throws {
  let whole = ZoneSetChunksTests.bytes(50_000, seed: 3)
  try storeWhole(
    Int64(bitPattern: ContentHash.of(whole)), whole.map { String(format: "%02x", $0) }.joined())
  #expect(try storage.latestSnapshot()?.zoneSet == whole)

  let chunked = ZoneSetChunksTests.bytes(100_000, seed: 4)
  try storage.writeSnapshot(
    SnapshotRecord(
      commandSeq: 2, lastEventSeq: 0, zoneFingerprint: 8, zoneSet: chunked, evaluator: [0],
      takenAt: Date(timeIntervalSince1970: 0)))
  #expect(try storage.latestSnapshot()?.zoneSet == chunked)
  try damageThirdChunk(Int64(bitPattern: ContentHash.of(chunked)))
  #expect {
    try storage.latestSnapshot()
  } throws: { error in
    guard case StoreError.damaged(let message) = error else { return false }
    return message.contains("a chunk is missing or altered")
  }
}

@Suite(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct PostgresZoneSetChunksTests {
  @Test func postgresStoresZoneSetsInChunksOnce() throws {
    try withPostgresDatabase("chunks") { settings in
      let url = "postgres://\(settings.username)@\(settings.host):\(settings.port)/\(settings.database)"
      let storage = try PostgresStorage(settings: settings)
      try exerciseZoneSetChunks(storage) {
        let counts = try TestPostgres.psql(
          url,
          "SELECT (SELECT count(*) FROM fk_zone_sets) || ' ' || (SELECT count(*) FROM fk_zone_set_chunks) || ' ' || (SELECT count(*) FROM fk_zone_set_parts)"
        ).split(whereSeparator: \.isWhitespace).map { Int($0)! }
        return ZoneSetRows(zoneSets: counts[0], chunks: counts[1], parts: counts[2])
      }
      try storage.close()
    }
  }

  @Test func postgresReadsZoneSetsStoredWholeAndReportsADamagedChunk() throws {
    try withPostgresDatabase("chunks-old") { settings in
      let url = "postgres://\(settings.username)@\(settings.host):\(settings.port)/\(settings.database)"
      let storage = try PostgresStorage(settings: settings)
      try expectWholeSetsReadAndDamageReported(
        storage,
        storeWhole: { hash, hex in
          try TestPostgres.psql(
            url,
            """
            INSERT INTO fk_zone_sets(hash, body) VALUES (\(hash), '\\x\(hex)');
            INSERT INTO fk_snapshots(partition, command_seq, last_event_seq, zone_fingerprint, zone_set, evaluator, taken_at)
            VALUES (0, 1, 0, 7, \(hash), '\\x00', now());
            """)
        },
        damageThirdChunk: { zoneSet in
          try TestPostgres.psql(
            url,
            """
            UPDATE fk_zone_set_chunks SET body = '\\x00'::bytea || body
            WHERE hash = (SELECT chunk FROM fk_zone_set_parts WHERE position = 2 AND zone_set = \(zoneSet));
            """)
        })
      try storage.close()
    }
  }
}
