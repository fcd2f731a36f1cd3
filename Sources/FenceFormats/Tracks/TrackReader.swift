import FenceEngine

/// Streams the fixes of one track file, one at a time, without holding the file in memory.
///
/// The file is read in 1 MiB chunks (through zlib, so a `.gz` file is decompressed on the fly;
/// `-` reads standard input, which needs an explicit ``TrackReadOptions/format``). Rows that
/// cannot be parsed are skipped and counted (``skippedRowCount``), the first
/// ``TrackReadOptions/maximumRetainedIssues`` of them kept in ``issues``; with
/// ``TrackReadOptions/strict`` the first one throws instead. Coordinates are not validated
/// here: the engine rejects and counts invalid ones itself.
///
/// Not thread-safe: use one reader per task.
///
/// ```swift
/// let reader = try TrackReader(path: "ais.csv")
/// while let fix = try reader.next() { evaluator.process(fix) }
/// print(reader.issues)
/// ```
public final class TrackReader {
  /// The path as given.
  public let path: String
  /// The format in use.
  public let format: TrackFormat
  private let parser: any TrackParser
  private let input: ByteInput
  private var log: IssueLog
  /// Fixes returned so far.
  public private(set) var fixCount = 0

  /// Opens a track file and reads its header, if the format has one.
  ///
  /// - Throws: ``TrackReadError`` when the file cannot be opened, its format cannot be told from
  ///   its name, or a CSV header lacks a required column.
  public convenience init(path: String, options: TrackReadOptions = TrackReadOptions()) throws {
    try self.init(path: path, options: options, input: ByteInput.Settings())
  }

  /// Reads a track held in memory (an upload, a test's text) as the file `name` would be read:
  /// the format from ``TrackReadOptions/format`` or else from `name`'s extension; gzip data is
  /// recognised by its magic bytes and inflated first.
  ///
  /// - Throws: ``TrackReadError`` naming `name` when the format cannot be told, gzip data does
  ///   not inflate, or a CSV header lacks a required column.
  public convenience init(
    bytes: some Sequence<UInt8>, name: String, options: TrackReadOptions = TrackReadOptions()
  ) throws {
    let format = try Self.format(of: name, options: options)
    let input: ByteInput
    do {
      input = try ByteInput(bytes: Array(bytes), name: name)
    } catch {
      throw TrackReadError(file: name, reason: error.reason)
    }
    try self.init(input: input, format: format, options: options)
  }

  /// Reads a track held in a string (see ``init(bytes:name:options:)``).
  public convenience init(text: String, name: String, options: TrackReadOptions = TrackReadOptions()) throws {
    try self.init(bytes: text.utf8, name: name, options: options)
  }

  /// Opens a track file with explicit input settings (tests read tiny chunks, or a descriptor
  /// of their own as standard input).
  convenience init(path: String, options: TrackReadOptions, input settings: ByteInput.Settings) throws {
    let format = try Self.format(of: path, options: options)
    let input: ByteInput
    do {
      input = try ByteInput(path: path, settings: settings)
    } catch {
      throw TrackReadError(file: path, reason: "cannot open: \(error.reason)")
    }
    try self.init(input: input, format: format, options: options)
  }

  /// The format given, else the one `name`'s extension says.
  private static func format(of name: String, options: TrackReadOptions) throws -> TrackFormat {
    guard let format = options.format ?? TrackFormat(path: name) else {
      throw TrackReadError(
        file: name,
        reason: "cannot tell the track format from the file name: use .csv, .gpx, .ndjson or .jsonl (optionally .gz), or give the format explicitly")
    }
    return format
  }

  private init(input: ByteInput, format: TrackFormat, options: TrackReadOptions) throws {
    let path = input.path
    self.path = path
    self.format = format
    self.log = IssueLog(file: path, strict: options.strict, limit: options.maximumRetainedIssues)
    self.input = input
    switch format {
    case .csv: parser = try CSVTrackParser(input: input, options: options)
    case .gpx: parser = GPXTrackParser(input: input, options: options)
    case .ndjson: parser = NDJSONTrackParser(input: input)
    }
  }

  /// The next fix in file order, or `nil` at the end of the file.
  ///
  /// - Throws: ``TrackReadError`` on a read error, malformed GPX, or (strict mode) a bad row.
  public func next() throws -> LocationFix? {
    let fix = try parser.next(&log)
    if fix != nil { fixCount += 1 }
    return fix
  }

  /// Calls `body` with every remaining fix in file order, as a loop of ``next()`` would.
  ///
  /// The issue log and the count are held in locals for the whole loop: a class's stored
  /// property passed `inout` to each row's parse is checked for exclusive access at run time
  /// (`swift_beginAccess` and a thread-local lookup per row): read that way, a million CSV
  /// rows took about 0.30 s instead of 0.24.
  ///
  /// - Throws: as ``next()``; the fixes read before the error have been given to `body`.
  func forEachRemainingFix(_ body: (consuming LocationFix) -> Void) throws {
    var log = self.log
    var count = fixCount
    defer {
      self.log = log
      fixCount = count
    }
    while let fix = try parser.next(&log) {
      count += 1
      body(fix)
    }
  }

  /// How many fixes the whole file holds, judged from the fixes read so far and the share of
  /// the file they took; `nil` for gzip data, standard input and bytes in memory, or before any
  /// fix. A guess for reserving room (rows vary in length), not a count.
  var estimatedFixCount: Int? {
    guard fixCount > 0, let size = input.plainFileSize else { return nil }
    let read = input.position
    guard read > 0 else { return nil }
    return Int((Double(fixCount) * Double(size) / Double(read)).rounded(.up))
  }

  /// The rows skipped so far (at most ``TrackReadOptions/maximumRetainedIssues``).
  public var issues: [TrackIssue] { log.issues }

  /// The number of rows skipped so far.
  public var skippedRowCount: Int { log.skippedCount }

  /// Reads every remaining fix into an array (for small files and tests).
  public func readAll() throws -> [LocationFix] {
    var fixes: [LocationFix] = []
    try forEachRemainingFix { fixes.append($0) }
    return fixes
  }
}

/// `for try await fix in reader`: the remaining fixes in file order, as ``TrackReader/next()``
/// gives them (reading is synchronous; each step reads from the buffer or the next chunk).
///
/// A reader is not thread-safe: iterate it from one task, and not with ``next()`` at the same
/// time.
extension TrackReader: AsyncSequence {
  public typealias Element = LocationFix

  public struct AsyncIterator: AsyncIteratorProtocol {
    let reader: TrackReader

    public mutating func next() async throws -> LocationFix? {
      try reader.next()
    }
  }

  public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self) }
}
