import FenceEngine
import FenceFormats
import FenceStore
import FenceStorePostgres
import FenceTestSupport
import Foundation
import Testing

/// The owners' loop of the scaled-out store (`PartitionOwner`) and the merged event log
/// (`PartitionedEventLog`), on a real PostgreSQL server. The reference is the library: the
/// harbor hour's commands through the inbox give exactly the library's events, each in its
/// device's partition, numbered 1, 2, 3, … within it.
@Suite(.enabled(if: TestPostgres.isAvailable, "FENCEKIT_POSTGRES_URL names no PostgreSQL server (.ci/run starts one with Scripts/postgres)"))
struct PartitionOwnerTests {

  /// An event line without its `"seq"` and `"partition"`: what the library writes.
  static func withoutNumbering(_ line: String) -> String {
    guard let id = line.range(of: "\"id\":") else { return line }
    return "{" + line[id.lowerBound...]
  }

  /// The `"partition"` and `"seq"` of a line of the partitioned log.
  static func numbering(_ line: String) -> (partition: Int32, seq: Int64)? {
    guard case .object(let object)? = try? JSONReader.parse(line),
      case .number(let seq)? = object["seq"], case .number(let partition)? = object["partition"]
    else { return nil }
    return (Int32(partition), Int64(seq))
  }

  static func device(_ line: String) -> String? {
    guard case .object(let object)? = try? JSONReader.parse(line), case .string(let device)? = object["device"]
    else { return nil }
    return device
  }

  /// Every event of the partitioned log, read `limit` at a time with the cursor.
  static func readAll(_ log: PartitionedEventLog, limit: Int) throws -> [PartitionedEventLog.Event] {
    var cursor = EventCursor(partitions: log.partitions)
    var all: [PartitionedEventLog.Event] = []
    while true {
      let page = try log.events(after: cursor, limit: limit)
      if page.events.isEmpty {
        #expect(page.cursor == cursor)
        return all
      }
      #expect(page.events.count <= limit)
      all += page.events
      cursor = page.cursor
    }
  }

  /// Checks the partitioned log against the library's events for the same commands.
  static func expectLibraryEvents(
    _ events: [PartitionedEventLog.Event], reference: Reference, partitioning: DevicePartitioning
  ) {
    #expect(events.count == reference.lines.count)
    #expect(
      events.map { withoutNumbering($0.line) }.sorted()
        == reference.lines.map(withoutNumbering).sorted())
    var seqs: [Int32: [Int64]] = [:]
    for event in events {
      let numbering = numbering(event.line)
      #expect(numbering?.partition == event.partition && numbering?.seq == event.seq)
      #expect(device(event.line).map(partitioning.partition(of:)) == event.partition)
      seqs[event.partition, default: []].append(event.seq)
    }
    for (partition, list) in seqs {
      #expect(list == Array(1...Int64(list.count)), "partition \(partition)")
    }
  }

  @Test func twoOwnersShareThePartitionsAndGiveTheLibrarysEvents() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 500)
      let reference = try Reference.run(commands)
      #expect(reference.lines.count == 57)
      try withPostgresDatabase("owners") { settings in
        let options = PartitionOwner.Options(leaseSeconds: 30, writers: 2)
        let a = try PartitionOwner(settings: settings, partitions: 4, name: "a", options: options)
        let b = try PartitionOwner(settings: settings, partitions: 4, name: "b", options: options)
        defer {
          a.stop()
          b.stop()
        }
        // Alone, a takes all four; once b is live, a gives the highest two back and b takes them.
        a.runUntilIdle()
        #expect(a.ownedPartitions == [0, 1, 2, 3])
        b.runUntilIdle()
        #expect(b.ownedPartitions == [])
        a.runUntilIdle()
        b.runUntilIdle()
        #expect(a.ownedPartitions == [0, 1])
        #expect(b.ownedPartitions == [2, 3])

        let inbox = try PartitionInbox(settings: settings, partitions: 4)
        defer { inbox.close() }
        var receipts: [PartitionInbox.Receipt] = []
        for (index, command) in commands.enumerated() {
          receipts.append(try inbox.submit(command, idempotencyKey: "batch-\(index)"))
          if index % 3 == 0 { a.runUntilIdle() }
        }
        a.runUntilIdle()
        b.runUntilIdle()
        let log = try PartitionedEventLog(settings: settings, partitions: 4)
        defer { log.close() }
        let events = try Self.readAll(log, limit: 1000)
        Self.expectLibraryEvents(events, reference: reference, partitioning: inbox.partitioning)
        // Read 5 at a time with the cursor: the same events, none twice, none missing.
        #expect(try Self.readAll(log, limit: 5).map(\.line).sorted() == events.map(\.line).sorted())
        #expect(try log.head() == EventCursor(seqs: (0..<4).map { p in
          Int64(events.filter { $0.partition == p }.count)
        }))

        // Every part of every command has its answer; the fixes' answers add up to the library's.
        var accepted = 0
        var eventCount = 0
        for (index, receipt) in receipts.enumerated() {
          let outcomes = try inbox.outcomes(of: receipt)
          #expect(outcomes.count == receipt.parts.count, "command \(index)")
          if case .fixes = commands[index] {
            for answer in outcomes.values {
              let parsed = try CommandAnswer(storedJSON: answer, commandSeq: 0)
              accepted += parsed.accepted
              eventCount += parsed.events
            }
          }
        }
        #expect(accepted == reference.answers.reduce(0) { $0 + $1.accepted })
        #expect(eventCount == reference.answers.dropFirst().dropLast().reduce(0) { $0 + $1.events })
      }
    }
  }

  @Test func aPartitionWhoseOwnerStoppedAnsweringMovesAndTheOldOwnerWritesNothing() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 400)
      let reference = try Reference.run(commands)
      try withPostgresDatabase("takeover") { settings in
        let short = PartitionOwner.Options(leaseSeconds: 0.5, writers: 1)
        let old = try PartitionOwner(settings: settings, partitions: 2, name: "old", options: short)
        let inbox = try PartitionInbox(settings: settings, partitions: 2)
        defer { inbox.close() }
        old.runUntilIdle()
        #expect(old.ownedPartitions == [0, 1])
        let half = commands.count / 2
        for command in commands[..<half] { _ = try inbox.submit(command) }
        old.runUntilIdle()
        // The old owner freezes (no lease pass) past its lease; the new one takes everything.
        usleep(700_000)
        let new = try PartitionOwner(settings: settings, partitions: 2, name: "new", options: short)
        defer { new.stop() }
        new.runUntilIdle()
        #expect(new.ownedPartitions == [0, 1])
        for command in commands[half...] { _ = try inbox.submit(command) }
        // Resumed, the old owner executes nothing: its writes fail on the fencing token.
        #expect(old.inboxPass() == false)
        #expect(old.ownedPartitions == [])
        new.runUntilIdle()
        let log = try PartitionedEventLog(settings: settings, partitions: 2)
        defer { log.close() }
        Self.expectLibraryEvents(
          try Self.readAll(log, limit: 1000), reference: reference, partitioning: inbox.partitioning)
        old.stop()
      }
    }
  }

  /// An owner paused past its lease drops its partitions at its next pass, by its own clock,
  /// even when nobody took them: it takes them again with a new token (recovered from the
  /// database). One whose lease is still running keeps its token.
  @Test func anOwnerPausedPastItsLeaseDropsItsPartitionsAndTakesThemWithANewToken() async throws {
    try await offThePool {
      try withPostgresDatabase("expiry") { settings in
        let leases = try PartitionLeases(settings: settings)
        defer { leases.close() }
        let short = try PartitionOwner(
          settings: settings, partitions: 2, name: "short", options: .init(leaseSeconds: 0.5, writers: 1))
        short.runUntilIdle()
        #expect(short.ownedPartitions == [0, 1])
        let before = try leases.leases().mapValues(\.token)
        usleep(700_000)
        // Nobody took the partitions: the renewal alone would succeed with the old token.
        short.runUntilIdle()
        #expect(short.ownedPartitions == [0, 1])
        #expect(try leases.leases().mapValues(\.token) == before.mapValues { $0 + 1 })
        short.stop()

        let long = try PartitionOwner(
          settings: settings, partitions: 2, name: "long", options: .init(leaseSeconds: 30, writers: 1))
        defer { long.stop() }
        long.runUntilIdle()
        let held = try leases.leases().mapValues(\.token)
        usleep(700_000)
        long.runUntilIdle()
        #expect(long.ownedPartitions == [0, 1])
        #expect(try leases.leases().mapValues(\.token) == held)
      }
    }
  }

  @Test func aCommandTheEngineRefusesIsRecordedAsRefusedInEveryPartition() async throws {
    try await offThePool {
      try withPostgresDatabase("refusals") { settings in
        let owner = try PartitionOwner(settings: settings, partitions: 3, name: "only")
        defer { owner.stop() }
        let inbox = try PartitionInbox(settings: settings, partitions: 3)
        defer { inbox.close() }
        let added = try inbox.submit(.addZones([Story.depot]))
        let absent = try inbox.submit(.removeZone("no-such-zone"))
        let removed = try inbox.submit(.removeZone(Story.depot.id))
        owner.runUntilIdle()
        #expect(
          try inbox.outcomes(of: absent)
            == [0: #"{"error":"no zone \"no-such-zone\"","status":404}"#,
                1: #"{"error":"no zone \"no-such-zone\"","status":404}"#,
                2: #"{"error":"no zone \"no-such-zone\"","status":404}"#])
        for receipt in [added, removed] {
          let outcomes = try inbox.outcomes(of: receipt)
          #expect(outcomes.count == 3)
          for answer in outcomes.values {
            #expect(try CommandAnswer(storedJSON: answer, commandSeq: 0).zoneCounts != nil)
          }
        }
        // Each partition's log holds the two commands that changed something; the refusal
        // moved every partition's progress on all the same.
        for partition in Int32(0)..<3 {
          #expect(owner.store(of: partition)?.recovery.commandSeq == 0)
          #expect(try PostgresStorage(settings: settings, partition: partition).head().commandSeq == 2)
          #expect(try PostgresStorage(settings: settings, partition: partition).inboxProgress() == 3)
        }
      }
    }
  }

  @Test func compactionDropsExecutedInboxCommandsAndTheNextOwnerResumesAfterThem() async throws {
    try await offThePool {
      let commands = try Harbor.commands(batchSize: 1000)
      let reference = try Reference.run(commands)
      try withPostgresDatabase("owner-compaction") { settings in
        let first = try PartitionOwner(
          settings: settings, partitions: 2, name: "first", options: .init(leaseSeconds: 30))
        let inbox = try PartitionInbox(settings: settings, partitions: 2)
        defer { inbox.close() }
        first.runUntilIdle()
        let half = commands.count / 2
        for (index, command) in commands[..<half].enumerated() {
          _ = try inbox.submit(command, idempotencyKey: "c-\(index)")
        }
        first.runUntilIdle()
        let executed = try (Int32(0)..<2).map { try inbox.commands(partition: $0, after: 0, limit: 1000).count }
        // Retention 0 s, a moment later: every executed command goes; the keys too.
        let report = try first.compact(eventRetention: 0, now: Date().addingTimeInterval(1))
        #expect(report.inboxCommands == executed.reduce(0, +))
        #expect(report.inboxKeys == half)
        #expect(try inbox.commands(partition: 0, after: 0, limit: 1000).isEmpty)
        // A key after the retention is a new submit.
        #expect(try inbox.submit(.advance(at(0)), idempotencyKey: "c-0").isReplay == false)
        first.stop()
        // The next owner resumes after the last executed command and goes on.
        let next = try PartitionOwner(
          settings: settings, partitions: 2, name: "next", options: .init(leaseSeconds: 30))
        defer { next.stop() }
        for command in commands[half...] { _ = try inbox.submit(command) }
        next.runUntilIdle()
        let log = try PartitionedEventLog(settings: settings, partitions: 2)
        defer { log.close() }
        // The library's events, but those compaction dropped (the advance to 00:00:00Z in
        // between changed nothing); every partition's seqs go on without a gap.
        let kept = try Self.readAll(log, limit: 1000)
        #expect(report.store.events > 0)
        #expect(kept.count == reference.lines.count - report.store.events)
        #expect(Set(kept.map { Self.withoutNumbering($0.line) }).isSubset(of: reference.lines.map(Self.withoutNumbering)))
        for partition in Int32(0)..<2 {
          let seqs = kept.filter { $0.partition == partition }.map(\.seq)
          #expect(seqs == Array((seqs.first ?? 1)...(seqs.last ?? 0)))
        }
      }
    }
  }

  @Test func cursorsReadAndPrintAsOneSeqPerPartition() {
    #expect(EventCursor("0", partitions: 3) == EventCursor(seqs: [0, 0, 0]))
    #expect(EventCursor("4.0.17", partitions: 3) == EventCursor(seqs: [4, 0, 17]))
    #expect(EventCursor(seqs: [4, 0, 17]).description == "4.0.17")
    for bad in ["4.0", "4.0.17.2", "4..17", "4.-1.17", "a.b.c", "", "1"] {
      #expect(EventCursor(bad, partitions: 3) == nil, "\(bad)")
    }
  }
}
