import FenceEngine
import FenceStore
import FenceTesting
import FenceTestSupport
import Foundation
import Testing

/// Guarantee 3 of `fenced.md`: a command is in the log with all its events, or not at all. A
/// power cut in the middle of the last commit leaves its WAL frames torn; SQLite drops the
/// transaction whose commit frame is incomplete, and the store must come back at the previous
/// command, consistent, and go on from there.
@Suite struct TornTransactionTests {
  /// How much of the last WAL frame (24-byte header + one page) is cut off.
  enum Cut: CustomTestStringConvertible, CaseIterable {
    case oneByte, hundredBytes, mostOfThePage, wholeFrame

    func bytes(frameSize: Int) -> Int {
      switch self {
      case .oneByte: 1
      case .hundredBytes: 100
      case .mostOfThePage: frameSize - 30
      case .wholeFrame: frameSize
      }
    }

    var testDescription: String { "\(self)" }
  }

  /// The position in ``Story/commands`` of the command torn: a fix batch with events, an
  /// advance that fires dwells, a zone addition.
  static let tornCommands = [5, 3, 4]

  @Test(arguments: tornCommands, Cut.allCases)
  func aTornLastCommitLeavesThePreviousCommandAndTheNextOneContinues(torn: Int, cut: Cut) async throws {
    try await offThePool {
      let commands = Story.commands
      let reference = try Reference.run(commands)
      let tornAnswer = reference.answers[torn]
      if case .fixes = commands[torn] { #expect(tornAnswer.events > 0) }
      if case .advance = commands[torn] { #expect(tornAnswer.events > 0) }
      try withTemporaryDirectory("torn") { directory in
        let first = try openStore(directory.sub("first"))
        for (index, command) in commands.prefix(torn + 1).enumerated() {
          expectAnswer(
            try first.execute(command, idempotencyKey: "key-\(index)"), reference.answers[index])
        }
        try crashCopy(from: directory.sub("first"), to: directory.sub("torn"))
        try first.close()

        // The WAL holds every commit since the store was created (no checkpoint yet), the last
        // one ending with the last frame of the file.
        let wal = directory.sub("torn") + "/fence.sqlite-wal"
        let layout = try WALLayout(path: wal)
        #expect(layout.commitFrames.count >= 2)
        #expect(layout.commitFrames.last == layout.frameCount - 1)
        let cutBytes = cut.bytes(frameSize: layout.frameSize)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: wal))
        try handle.truncate(atOffset: UInt64(layout.fileSize - cutBytes))
        try handle.close()

        let store = try openStore(directory.sub("torn"))
        let previousEventSeq = reference.eventSeq(afterCommands: torn)
        #expect(store.recovery.commandSeq == Int64(torn))
        #expect(store.recovery.eventSeq == previousEventSeq)
        #expect(store.recovery.commandsReplayed == torn)
        #expect(store.recovery.eventsVerified == Int(previousEventSeq))
        #expect(store.statistics.commandSeq == Int64(torn))
        #expect(store.lastEventSeq == previousEventSeq)
        // None of the torn command's events, nor its idempotency key, is left.
        let stored = try store.events(after: 0, limit: 100_000)
        expectGapless(stored)
        #expect(stored.map(\.line) == Array(reference.lines.prefix(Int(previousEventSeq))))
        #expect(try store.events(after: previousEventSeq).isEmpty)

        // The client resends the unanswered command under its key: applied now, for the first
        // time, with the answer the torn commit would have given.
        expectAnswer(
          try store.execute(commands[torn], idempotencyKey: "key-\(torn)"), tornAnswer)
        // An earlier key is still there.
        if torn > 0 {
          expectAnswer(
            try store.execute(commands[torn - 1], idempotencyKey: "key-\(torn - 1)"),
            reference.answers[torn - 1], replay: true)
        }
        for (index, command) in commands.enumerated().dropFirst(torn + 1) {
          expectAnswer(try store.execute(command), reference.answers[index])
        }
        let final = try store.events(after: 0, limit: 100_000)
        expectGapless(final)
        #expect(final.map(\.line) == reference.lines)
        try store.close()
      }
    }
  }
}

extension TornTransactionTests {
  /// The embedded storage writes ahead (so a torn commit is dropped whole), and syncs every
  /// commit by default.
  @Test(arguments: SQLiteStorage.Durability.allCases)
  func theDatabaseIsInWALModeWithTheDurabilityAsked(durability: SQLiteStorage.Durability) async throws {
    try await offThePool {
      try withTemporaryDirectory("pragmas") { directory in
        let storage = try SQLiteStorage(path: directory.sub("fence.sqlite"), durability: durability)
        let pragmas = try storage.pragmas()
        #expect(pragmas.journalMode == "wal")
        #expect(pragmas.synchronous == (durability == .full ? 2 : 1))
        try storage.close()
      }
    }
  }

  @Test func theDefaultDurabilityIsFull() async throws {
    try await offThePool {
      try withTemporaryDirectory("pragmas-default") { directory in
        let storage = try SQLiteStorage(path: directory.sub("fence.sqlite"))
        #expect(try storage.pragmas().synchronous == 2)
        try storage.close()
      }
    }
  }
}

/// The frames of a SQLite WAL file (https://sqlite.org/fileformat2.html#walformat): a 32-byte
/// header, then frames of a 24-byte header and one page. A frame whose "database size after
/// commit" is not 0 ends a transaction; frames whose salts differ from the header's are left
/// over from before a reset.
struct WALLayout {
  var fileSize: Int
  var pageSize: Int
  var frameSize: Int { 24 + pageSize }
  var frameCount: Int
  /// The indexes of the commit frames.
  var commitFrames: [Int]

  init(path: String) throws {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    func u32(_ offset: Int) -> UInt32 {
      bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
    fileSize = bytes.count
    #expect(bytes.count >= 32)
    #expect(u32(0) & 0xFFFF_FFFE == 0x377F_0682)
    pageSize = Int(u32(8))
    let frameSize = 24 + pageSize
    #expect((bytes.count - 32) % frameSize == 0)
    frameCount = (bytes.count - 32) / frameSize
    commitFrames = []
    for frame in 0..<frameCount {
      let offset = 32 + frame * frameSize
      // Every frame belongs to the current generation of the WAL.
      #expect(u32(offset + 8) == u32(16) && u32(offset + 12) == u32(20))
      if u32(offset + 4) != 0 { commitFrames.append(frame) }
    }
  }
}
