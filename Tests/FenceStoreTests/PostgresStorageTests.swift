import FenceEngine
import FenceFormats
@testable import FenceStore
import FenceStorePostgres
import FenceTestSupport
import FenceTesting
import Foundation
import Testing

/// Runs `body` with the settings of a fresh database on the tests' server, dropped afterwards.
func withPostgresDatabase<T>(_ label: String, _ body: (PostgresSettings) throws -> T) throws -> T {
  let database = try TestPostgres.createDatabase(label)
  defer { TestPostgres.dropDatabase(database.name) }
  return try body(try PostgresSettings(url: database.url))
}

/// `PostgresStorage` against a real PostgreSQL server (``TestPostgres``): each test in a
/// database of its own. The reference is `SQLiteStorage`, given the same calls, and the
/// library for a whole store.
@Suite(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct PostgresStorageTests {

  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// The same calls on any storage; what each read gave, as text, in order.
  static func exercise(_ storage: any FenceStorage) throws -> [String] {
    var log: [String] = []
    try storage.setMetadata("a", "1")
    try storage.setMetadata("b", "2")
    try storage.setMetadata("a", "3")
    log.append("meta \(try storage.metadata("a") ?? "-") \(try storage.metadata("b") ?? "-") \(try storage.metadata("c") ?? "-")")
    log.append("empty head \(try storage.head())")
    var eventSeq: Int64 = 0
    for seq in Int64(1)...6 {
      let lines = (0..<Int(seq % 3) * 2).map { #"{"seq":\#(eventSeq + Int64($0) + 1),"n":"é\#(seq)"}"# }
      try storage.append(
        CommandCommit(
          seq: seq, kindCode: Int(seq % 4), payload: Array(0..<UInt8(seq * 40)),
          firstEventSeq: eventSeq + 1, eventLines: lines,
          answer: #"{"command":\#(seq)}"#, idempotencyKey: seq % 2 == 0 ? "key-\(seq)" : nil,
          recordedAt: start.addingTimeInterval(Double(seq) * 60)))
      eventSeq += Int64(lines.count)
    }
    for key in ["key-2", "key-4", "key-5"] {
      log.append("answer \(key) \(String(describing: try storage.answer(forIdempotencyKey: key)))")
    }
    for (after, limit) in [(0, 100), (2, 2), (6, 10)] {
      log.append(
        "commands \(after) \(limit) "
          + (try storage.commands(after: Int64(after), limit: limit).map {
            "\($0.seq)/\($0.kindCode)/\($0.payload.count)/\($0.payload.last ?? 0)/\($0.firstEventSeq)/\($0.eventCount)"
          }).joined(separator: " "))
    }
    log.append("head \(try storage.head())")
    for (after, limit) in [(0, 100), (3, 2)] {
      log.append(
        "events \(after) \(limit) "
          + (try storage.events(after: Int64(after), limit: limit).map { "\($0.seq)=\($0.line)" })
          .joined(separator: " "))
    }
    let zoneSet = Array("{\"type\":\"FeatureCollection\",\"features\":[]}".utf8)
    for commandSeq in [Int64(3), 5] {
      try storage.writeSnapshot(
        SnapshotRecord(
          commandSeq: commandSeq, lastEventSeq: commandSeq * 2, zoneFingerprint: UInt64.max - 7,
          zoneSet: zoneSet, evaluator: Array(repeating: UInt8(commandSeq), count: 100),
          takenAt: start.addingTimeInterval(Double(commandSeq))))
    }
    if let latest = try storage.latestSnapshot() {
      log.append(
        "snapshot \(latest.commandSeq) \(latest.lastEventSeq) \(latest.zoneFingerprint) \(latest.zoneSet == zoneSet) \(latest.zoneSetHash.map(String.init) ?? "-") \(latest.evaluator.count) \(latest.evaluator.first ?? 0) \(latest.takenAt.timeIntervalSince1970)")
    }
    try storage.setCursor("webhook-1", to: 4)
    try storage.setCursor("webhook-2", to: 1)
    try storage.setCursor("webhook-1", to: 9)
    log.append("cursor \(try storage.cursor("webhook-1") ?? -1) \(try storage.cursor("none") ?? -1) \(try storage.cursors().sorted { $0.key < $1.key })")
    let report = try storage.compact(
      CompactionPlan(
        commandsThrough: 5, eventsThrough: 4, recordedBefore: start.addingTimeInterval(5 * 60)))
    log.append("compacted \(report)")
    log.append("after compaction \(try storage.head()) \(try storage.commands(after: 0, limit: 10).map(\.seq)) \(try storage.events(after: 0, limit: 100).map(\.seq)) \(String(describing: try storage.answer(forIdempotencyKey: "key-2"))) \(String(describing: try storage.answer(forIdempotencyKey: "key-6")))")
    return log
  }

  @Test func theSameCallsReadBackAsFromSQLite() throws {
    let expected = try withTemporaryDirectory("reference") { directory in
      let sqlite = try SQLiteStorage(path: directory.sub("fence.sqlite"))
      defer { try? sqlite.close() }
      return try Self.exercise(sqlite)
    }
    // The reference's own figures, so that a wrong reference cannot pass both.
    #expect(expected[0] == "meta 3 2 -")
    #expect(expected[1] == "empty head (commandSeq: 0, eventSeq: 0)")
    #expect(expected.contains("head (commandSeq: 6, eventSeq: 12)"))
    #expect(expected.contains("commands 2 2 3/3/120/119/7/0 4/0/160/159/7/2"))
    #expect(expected.last == "after compaction (commandSeq: 6, eventSeq: 12) [6] [5, 6, 7, 8, 9, 10, 11, 12] nil Optional((commandSeq: 6, answer: \"{\\\"command\\\":6}\"))")
    let actual = try withPostgresDatabase("contract") { settings in
      let storage = try PostgresStorage(settings: settings)
      defer { try? storage.close() }
      return try Self.exercise(storage)
    }
    #expect(actual == expected)
  }

  @Test func partitionsOfOneDatabaseSeeOnlyTheirRows() throws {
    try withPostgresDatabase("partitions") { settings in
      let first = try PostgresStorage(settings: settings, partition: 0)
      let second = try PostgresStorage(settings: settings, partition: 7)
      defer {
        try? first.close()
        try? second.close()
      }
      try first.append(
        CommandCommit(
          seq: 1, kindCode: 1, payload: [1], firstEventSeq: 1, eventLines: ["{\"seq\":1}"],
          answer: "{}", idempotencyKey: "k", recordedAt: Self.start))
      try second.setCursor("c", to: 3)
      #expect(try first.head() == (1, 1))
      #expect(try second.head() == (0, 0))
      #expect(try second.events(after: 0, limit: 10).isEmpty)
      #expect(try second.answer(forIdempotencyKey: "k") == nil)
      #expect(try first.cursors().isEmpty)
      #expect(try second.cursors() == ["c": 3])
      // The same seq in another partition is another row.
      try second.append(
        CommandCommit(
          seq: 1, kindCode: 1, payload: [2], firstEventSeq: 1, eventLines: [],
          answer: "{}", idempotencyKey: "k", recordedAt: Self.start))
      #expect(try second.commands(after: 0, limit: 5).map(\.payload) == [[2]])
    }
  }

  @Test func aStoreOnPostgreSQLGivesTheLibrarysEventsAndRecovers() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 500)
      let reference = try Reference.run(commands)
      #expect(reference.lines.count == 57)
      try withPostgresDatabase("harbor") { settings in
        let store = try FenceStore(
          storage: try PostgresStorage(settings: settings),
          options: FenceStore.Options(snapshotEvery: 7))
        #expect(store.recovery.isNew)
        for (index, command) in commands.enumerated() {
          expectAnswer(
            try store.execute(command, idempotencyKey: "batch-\(index)"), reference.answers[index])
        }
        #expect(try allLines(store) == reference.lines)
        // A batch sent again with its key: the first answer, nothing applied.
        let again = try store.execute(commands[3], idempotencyKey: "batch-3")
        expectAnswer(again, reference.answers[3], replay: true)
        #expect(store.lastEventSeq == 57)
        try store.close()

        // Reopened on the same database: the snapshot of the close, the same log.
        let reopened = try FenceStore(storage: try PostgresStorage(settings: settings))
        #expect(reopened.recovery.snapshotCommandSeq == 20)
        #expect(reopened.recovery.commandsReplayed == 0)
        #expect(reopened.recovery.eventSeq == 57)
        #expect(try allLines(reopened) == reference.lines)
        try reopened.close()
      }
    }
  }

  @Test func withoutTheCloseSnapshotRecoveryReplaysTheCommandsAfterTheLastSnapshot() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 500)
      let reference = try Reference.run(commands)
      try withPostgresDatabase("replay") { settings in
        // A store that is never closed (as after kill -9): its connections are simply dropped.
        let storage = try PostgresStorage(settings: settings)
        let store = try FenceStore(storage: storage, options: FenceStore.Options(snapshotEvery: 7))
        for command in commands {
          _ = try store.execute(command)
          // Each snapshot written before the next command (one in flight delays the next due).
          store.waitForSnapshots()
        }
        try storage.close()

        let recovered = try FenceStore(storage: try PostgresStorage(settings: settings))
        // Snapshots after commands 7 and 14; 6 commands replayed and checked.
        #expect(recovered.recovery.snapshotCommandSeq == 14)
        #expect(recovered.recovery.commandsReplayed == 6)
        #expect(recovered.recovery.commandSeq == 20)
        #expect(try allLines(recovered) == reference.lines)
        try recovered.close()
      }
    }
  }

  @Test func theSchemaIsMigratedOnceAndANewerOneIsRefused() throws {
    try withPostgresDatabase("schema") { settings in
      let url = "postgres://\(settings.username)@\(settings.host):\(settings.port)/\(settings.database)"
      try PostgresStorage(settings: settings).close()
      try PostgresStorage(settings: settings).close()
      #expect(try TestPostgres.psql(url, "SELECT string_agg(version::text, ',') FROM fk_schema_versions") == "1,2,3,4,5")
      try TestPostgres.psql(url, "INSERT INTO fk_schema_versions(version) VALUES (99)")
      #expect {
        try PostgresStorage(settings: settings)
      } throws: { error in
        "\(error)".contains("the PostgreSQL schema is at version 99; this version of FenceStore reads up to 5")
      }
    }
  }

  @Test func badURLsAndUnreachableServersAreClearErrors() throws {
    for (url, message) in [
      ("mysql://u@h/d", "not a PostgreSQL URL"),
      ("postgres://u@/d", "has no host"),
      ("postgres://h:5432/d", "has no user"),
      ("postgres://u:secret@h:5432/", "names no database"),
    ] {
      #expect {
        try PostgresSettings(url: url)
      } throws: { error in
        "\(error)".contains(message) && !"\(error)".contains("secret")
      }
    }
    let settings = try PostgresSettings(url: "postgresql://fk:p%40ss@127.0.0.1:1/fencekit")
    #expect(settings == PostgresSettings(host: "127.0.0.1", port: 1, username: "fk", password: "p@ss", database: "fencekit"))
    #expect(settings.redacted == "postgres://fk:***@127.0.0.1:1/fencekit")
    #expect {
      try PostgresStorage(settings: settings)
    } throws: { error in
      "\(error)".contains("cannot connect to PostgreSQL at postgres://fk:***@127.0.0.1:1/fencekit")
    }
  }
}

/// `PartitionLeases` and the fencing of `PostgresStorage`'s writes: once another process took a
/// partition over, the old owner's writes fail with `leaseLost` and leave nothing behind
/// (`fenced.md`, "Scale-out": a paused old owner must never write after a new one took over).
@Suite(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct PartitionLeaseTests {

  func commit(_ seq: Int64) -> CommandCommit {
    CommandCommit(
      seq: seq, kindCode: 1, payload: [UInt8(seq)], firstEventSeq: seq,
      eventLines: ["{\"seq\":\(seq)}"], answer: "{}", idempotencyKey: nil,
      recordedAt: Date(timeIntervalSince1970: 1_800_000_000))
  }

  @Test func aLeaseIsHeldByOneOwnerUntilItExpiresOrIsReleasedAndEveryTakeoverRaisesTheToken() throws {
    try withPostgresDatabase("leases") { settings in
      let leases = try PartitionLeases(settings: settings)
      defer { leases.close() }
      let first = try #require(try leases.acquire(3, owner: "a", seconds: 60))
      #expect(first == PartitionLeases.Lease(partition: 3, owner: "a", token: 1))
      #expect(try leases.acquire(3, owner: "b", seconds: 60) == nil)
      #expect(try leases.renew(first, seconds: 60))
      // Another partition is another lease.
      #expect(try leases.acquire(4, owner: "b", seconds: 60)?.token == 1)
      // Released: taken at once, with the next token; the old one renews no more.
      try leases.release(first)
      let second = try #require(try leases.acquire(3, owner: "b", seconds: 60))
      #expect(second.token == 2)
      #expect(try !leases.renew(first, seconds: 60))
      // Expired (a time to live of 0): taken over too.
      let third = try #require(try leases.acquire(4, owner: "c", seconds: 60) ?? leases.acquire(4, owner: "b", seconds: 0))
      #expect(third == PartitionLeases.Lease(partition: 4, owner: "b", token: 2))
      let fourth = try #require(try leases.acquire(4, owner: "c", seconds: 60))
      #expect(fourth.token == 3)
      // The owner itself taking its lease again gets a new token (a restarted process).
      #expect(try leases.acquire(4, owner: "c", seconds: 60)?.token == 4)
      let all = try leases.leases()
      #expect(all[3]?.owner == "b" && all[3]?.token == 2 && all[3]?.isLive == true)
      #expect(all[4]?.owner == "c" && all[4]?.token == 4)
    }
  }

  @Test func anOwnerWhosePartitionWasTakenOverWritesNothingAndItsStoreCloses() throws {
    try withPostgresDatabase("fencing") { settings in
      let leases = try PartitionLeases(settings: settings)
      defer { leases.close() }
      let old = try #require(try leases.acquire(0, owner: "a", seconds: 0))
      let oldStorage = try PostgresStorage(settings: settings, partition: 0, fencingToken: old.token)
      defer { try? oldStorage.close() }
      try oldStorage.append(commit(1))
      // Owner a is paused past its (zero-second) lease; b takes the partition over.
      let new = try #require(try leases.acquire(0, owner: "b", seconds: 60))
      #expect(new.token == old.token + 1)
      #expect(throws: StoreError.leaseLost(partition: 0)) { try oldStorage.append(commit(2)) }
      #expect(throws: StoreError.leaseLost(partition: 0)) { try oldStorage.setCursor("w", to: 1) }
      #expect(throws: StoreError.leaseLost(partition: 0)) { try oldStorage.setMetadata("k", "v") }
      // Nothing of those writes is there; the new owner goes on from command 1.
      let newStorage = try PostgresStorage(settings: settings, partition: 0, fencingToken: new.token)
      defer { try? newStorage.close() }
      #expect(try newStorage.head() == (1, 1))
      #expect(try newStorage.cursors().isEmpty)
      try newStorage.append(commit(2))
      #expect(try newStorage.head() == (2, 2))
      // Reads need no lease: the old owner still reads what the new one wrote.
      #expect(try oldStorage.events(after: 0, limit: 10).map(\.seq) == [1, 2])
    }
  }

  @Test func aStoreOnALostLeaseAnswersLeaseLostAndThenIsClosed() async throws {
    try await offThePool {
      try withPostgresDatabase("store-fencing") { settings in
        let leases = try PartitionLeases(settings: settings)
        defer { leases.close() }
        let lease = try #require(try leases.acquire(5, owner: "a", seconds: 0))
        let store = try FenceStore(
          storage: try PostgresStorage(settings: settings, partition: 5, fencingToken: lease.token))
        _ = try store.execute(.addZones([Story.depot]))
        #expect(try leases.acquire(5, owner: "b", seconds: 60) != nil)
        #expect(throws: StoreError.leaseLost(partition: 5)) {
          try store.execute(.fixes([fix("tug", 0, base)]))
        }
        #expect(throws: StoreError.closed) { try store.execute(.fixes([fix("tug", 1, base)])) }
        // The log holds the zone command only.
        let reader = try PostgresStorage(settings: settings, partition: 5)
        defer { try? reader.close() }
        #expect(try reader.head() == (1, 0))
      }
    }
  }
}

/// `PartitionInbox`: a command split by partition, each partition's inbox gapless and in commit
/// order, zone changes in every partition, idempotency across processes, the partition count
/// fixed at creation.
@Suite(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct PartitionInboxTests {

  @Test func devicesHashToFixedPartitions() {
    // FNV-1a of the UTF-8, modulo the count: the same in every process and release.
    let partitioning = DevicePartitioning(count: 64)
    #expect(["tug", "barge", "367073680", "ferry-1", ""].map(partitioning.partition(of:)) == [
      Int32(ContentHash.of(Array("tug".utf8)) % 64), Int32(ContentHash.of(Array("barge".utf8)) % 64),
      Int32(ContentHash.of(Array("367073680".utf8)) % 64), Int32(ContentHash.of(Array("ferry-1".utf8)) % 64),
      Int32(0xcbf2_9ce4_8422_2325 as UInt64 % 64),
    ])
    #expect(ContentHash.of(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)  // FNV-1a's published value
    #expect(DevicePartitioning(count: 1).partition(of: "anything") == 0)
  }

  @Test func aCommandIsSplitByPartitionInOrderAndZoneChangesReachEveryPartition() throws {
    try withPostgresDatabase("inbox") { settings in
      let inbox = try PartitionInbox(settings: settings, partitions: 4)
      defer { inbox.close() }
      let devices = (0..<12).map { "vessel-\($0)" }
      let fixes = (0..<48).map { fix(devices[$0 % 12], Double($0), base.moved(north: Double($0))) }
      let first = try inbox.submit(.fixes(Array(fixes[..<24])), idempotencyKey: "b1")
      let zones = try inbox.submit(.addZones([Story.depot]))
      let second = try inbox.submit(.fixes(Array(fixes[24...])), idempotencyKey: "b2")
      #expect(zones.parts.map(\.partition) == [0, 1, 2, 3])
      for partition in Int32(0)..<4 {
        let mine = fixes.filter { inbox.partitioning.partition(of: $0.device) == partition }
        let half = mine.filter { $0.time < fixes[24].time }
        let commands = try inbox.commands(partition: partition, after: 0, limit: 10)
        // Gapless from 1: the first batch's part, the zone change, the second batch's part.
        #expect(commands.map(\.seq) == Array(1...Int64(commands.count)))
        var expected: [StoreCommand] = []
        if !half.isEmpty { expected.append(.fixes(half)) }
        expected.append(.addZones([Story.depot]))
        if mine.count > half.count { expected.append(.fixes(Array(mine[half.count...]))) }
        #expect(commands.map(\.command) == expected, "partition \(partition)")
        #expect(first.parts.contains { $0.partition == partition } == !half.isEmpty)
        #expect(second.parts.contains { $0.partition == partition } == (mine.count > half.count))
      }
      // Every partition got some of the twelve devices' fixes.
      #expect(first.parts.count == 4)
      // Sent again under its key: the first receipt, nothing appended.
      var replay = try inbox.submit(.fixes(Array(fixes[..<24])), idempotencyKey: "b1")
      #expect(replay.isReplay)
      replay.isReplay = false
      #expect(replay == first)
      #expect(try (0..<4).map { try inbox.commands(partition: $0, after: 0, limit: 10).count }.reduce(0, +) == 12)
    }
  }

  @Test func thePartitionCountIsFixedAtCreation() throws {
    try withPostgresDatabase("partition-count") { settings in
      try PartitionInbox(settings: settings, partitions: 8).close()
      try PartitionInbox(settings: settings, partitions: 8).close()
      #expect(throws: StoreError.invalidCommand("the store was created with 8 partitions; it cannot be started with 16")) {
        try PartitionInbox(settings: settings, partitions: 16)
      }
      #expect(throws: StoreError.invalidCommand("a partition count is from 1 to 65536, got 0")) {
        try PartitionInbox(settings: settings, partitions: 0)
      }
    }
  }

  @Test func concurrentSubmitsFromSeveralConnectionsKeepEveryInboxGapless() async throws {
    try await offThePool {
      try withPostgresDatabase("inbox-concurrent") { settings in
        let inboxes = try (0..<3).map { _ in try PartitionInbox(settings: settings, partitions: 2) }
        defer { inboxes.forEach { $0.close() } }
        // Three "processes" submit 20 batches each (with a zone change now and then) at once.
        DispatchQueue.concurrentPerform(iterations: 3) { process in
          for batch in 0..<20 {
            let command: StoreCommand =
              batch % 7 == 3
              ? .advance(at(Double(batch)))
              : .fixes((0..<6).map { fix("p\(process)-d\($0)", Double(batch), base) })
            _ = try? inboxes[process].submit(command, idempotencyKey: "p\(process)-b\(batch)")
          }
        }
        var total = 0
        for partition in Int32(0)..<2 {
          let commands = try inboxes[0].commands(partition: partition, after: 0, limit: 1000)
          #expect(commands.map(\.seq) == Array(1...Int64(commands.count)))
          total += commands.count
        }
        // 3 × 17 fix batches, each in both partitions (6 devices), and 3 × 3 advances in both.
        #expect(total == 3 * 17 * 2 + 3 * 3 * 2)
      }
    }
  }
}
