internal import CZlib

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file (or standard input) read in chunks through zlib, so `.gz` files are decompressed
/// transparently and uncompressed files pass straight through.
///
/// Owns one buffer, which grows only when a single record is longer than it. A record handed
/// out by ``nextLine()`` or ``nextCSVRecord(delimiter:)`` points into that buffer: it is valid
/// until the next call that reads (which may move the unread bytes to the front or grow the
/// buffer), so callers must not keep it across calls.
///
/// Not thread-safe: one input per reader, one reader per task.
final class ByteInput {
  /// How an input reads; the defaults suit real files, tests change them.
  struct Settings {
    /// The descriptor `-` stands for. It is duplicated, so closing the input never closes
    /// the process's standard input.
    var standardInput: Int32 = 0
    /// Bytes asked of zlib per refill (tests use tiny chunks so every record straddles
    /// refills).
    var chunkSize = 1 << 20
    /// The longest record accepted: a longer one (a file that is not text, or an unclosed CSV
    /// quote) is an error rather than unbounded memory.
    var maximumRecordLength = 1 << 28
  }

  /// The path as given (`-` for standard input), for messages.
  let path: String
  let chunkSize: Int
  let maximumRecordLength: Int
  /// The zlib stream of a file, or `nil` for an input held in memory (``memory``).
  private let file: gzFile?
  private let memory: [UInt8]
  private var memoryOffset = 0
  private var buffer: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// Valid bytes are `buffer[start..<end]`.
  private var start = 0
  private var end = 0
  /// Bytes dropped from the front of the buffer so far (see ``position``).
  private var discarded = 0
  private var isAtEOF = false
  /// 1-based line number of the byte at `start`.
  private(set) var lineNumber = 1
  /// 1-based line number of the record last returned.
  private(set) var recordLine = 0
  /// Whether the CSV record last returned ended inside a quoted field (at the end of input).
  private(set) var recordHasUnclosedQuote = false

  /// Opens a file for reading; `-` is standard input.
  ///
  /// - Throws: ``InputError`` when the file cannot be opened.
  init(path: String, settings: Settings = Settings()) throws(InputError) {
    precondition(settings.chunkSize > 0 && settings.maximumRecordLength > 0, "sizes must be > 0")
    self.path = path
    self.chunkSize = settings.chunkSize
    self.maximumRecordLength = settings.maximumRecordLength
    let handle: gzFile?
    if path == "-" {
      let descriptor = dup(settings.standardInput)
      guard descriptor >= 0 else {
        throw InputError(path: path, reason: String(cString: strerror(errno)))
      }
      handle = CZlib_openDescriptorForReading(descriptor)
      if handle == nil { close(descriptor) }
    } else {
      handle = CZlib_openForReading(path)
    }
    guard let handle else {
      throw InputError(path: path, reason: String(cString: strerror(errno)))
    }
    file = handle
    memory = []
    // zlib's own input buffer; at least 64 KiB even when tests read tiny chunks.
    gzbuffer(handle, UInt32(max(chunkSize, 1 << 16)))
    capacity = chunkSize
    buffer = .allocate(capacity: capacity)
  }

  /// An input over bytes held in memory, named `name` in messages; gzip data (it starts with
  /// the gzip magic bytes) is inflated first, up to ``Settings/maximumRecordLength`` bytes.
  ///
  /// - Throws: ``InputError`` when gzip data does not inflate.
  init(bytes: [UInt8], name: String, settings: Settings = Settings()) throws(InputError) {
    precondition(settings.chunkSize > 0 && settings.maximumRecordLength > 0, "sizes must be > 0")
    self.path = name
    self.chunkSize = settings.chunkSize
    self.maximumRecordLength = settings.maximumRecordLength
    file = nil
    if bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B {
      do {
        memory = try Gunzip.inflate(bytes, limit: settings.maximumRecordLength)
      } catch {
        throw InputError(path: name, reason: error.reason)
      }
    } else {
      memory = bytes
    }
    capacity = chunkSize
    buffer = .allocate(capacity: capacity)
  }

  deinit {
    if let file { gzclose_r(file) }
    buffer.deallocate()
  }

  /// Reads everything that is left (zone files are parsed whole).
  ///
  /// The result is given room for the whole input at once when its size is known (a file as it
  /// is on disk, or the size a gzip file's trailer records): growing by doubling held the old
  /// copy beside the new at the end, 32 MB of the time zones' 47 MB of text.
  func readAll() throws(InputError) -> [UInt8] {
    var result: [UInt8] = []
    try refill()
    if let size = plainFileSize ?? gzipInflatedSize {
      result.reserveCapacity(max(0, size - position) + 1)
    }
    while start < end {
      result.append(contentsOf: UnsafeBufferPointer(start: buffer + start, count: end - start))
      start = end
      try refill()
    }
    return result
  }

  /// Bytes of the (inflated) input handed out or passed so far.
  var position: Int { discarded + start }

  /// The size of the file when it is read as it is on disk (not gzip data, not standard input,
  /// not bytes in memory), known once something was read: with ``position``, how far reading
  /// has come. `nil` otherwise.
  var plainFileSize: Int? {
    guard let file, path != "-", gzdirect(file) == 1 else { return nil }
    var status = stat()
    guard stat(path, &status) == 0, status.st_size > 0 else { return nil }
    return Int(status.st_size)
  }

  /// The inflated size a gzip file's trailer records (its last four bytes, little-endian: the
  /// size modulo 2^32 of its last member), once something was read; a hint only (a file of
  /// several members, or over 4 GiB, reads on past it), so it is trusted up to the most deflate
  /// can inflate (1,032 times the compressed size). `nil` for anything else.
  private var gzipInflatedSize: Int? {
    guard let file, path != "-", gzdirect(file) == 0 else { return nil }
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size >= 18 else { return nil }
    var trailer: UInt32 = 0
    guard pread(descriptor, &trailer, 4, off_t(status.st_size - 4)) == 4 else { return nil }
    let size = Int(UInt32(littleEndian: trailer))
    return size <= 1_032 * Int(status.st_size) ? size : nil
  }

  /// Moves unread bytes to the front, grows the buffer if it is full, and reads up to
  /// ``chunkSize`` more bytes; at end of file does nothing.
  private func refill() throws(InputError) {
    if isAtEOF { return }
    if start > 0 {
      discarded += start
      if end > start { memmove(buffer, buffer + start, end - start) }
      end -= start
      start = 0
    }
    if end == capacity {
      let newCapacity = capacity * 2
      let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
      grown.update(from: buffer, count: end)
      buffer.deallocate()
      buffer = grown
      capacity = newCapacity
    }
    let request = min(chunkSize, capacity - end)
    guard let file else {
      let count = min(request, memory.count - memoryOffset)
      memory.withUnsafeBufferPointer { bytes in
        if count > 0, let base = bytes.baseAddress {
          (buffer + end).update(from: base + memoryOffset, count: count)
        }
      }
      memoryOffset += count
      end += count
      if count == 0 { isAtEOF = true }
      return
    }
    let count = gzread(file, buffer + end, UInt32(request))
    if count < 0 {
      var code: Int32 = 0
      let message = gzerror(file, &code).map { String(cString: $0) } ?? "read error"
      throw InputError(path: path, line: lineNumber, reason: message)
    }
    if count == 0 {
      // zlib hands out what it could inflate of a truncated .gz file and only then reports
      // the missing end (Z_BUF_ERROR); without this check the file would read as a shorter one.
      var code: Int32 = 0
      let message = gzerror(file, &code).map { String(cString: $0) } ?? "read error"
      if code == Z_BUF_ERROR {
        throw InputError(
          path: path, line: lineNumber,
          reason: "the gzip data is truncated (unexpected end of file after \(gzoffset(file)) compressed bytes)")
      }
      if code != Z_OK {
        // zlib's message starts with the path, which the error names already.
        let reason = message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
        throw InputError(path: path, line: lineNumber, reason: "gzip: \(reason)")
      }
      isAtEOF = true
    }
    end += Int(count)
  }

  /// The next line without its `\n` (and without a `\r` before it), or `nil` at end of input.
  ///
  /// The last line needs no newline. ``recordLine`` is then the line's number.
  ///
  /// - Throws: ``InputError`` on a read error or a line longer than ``maximumRecordLength``.
  func nextLine() throws(InputError) -> UnsafeMutableBufferPointer<UInt8>? {
    try nextRecord(csvDelimiter: nil)
  }

  /// The next CSV record (RFC 4180: a newline inside a quoted field does not end it), without
  /// its line ending, or `nil` at end of input.
  ///
  /// ``recordLine`` is then the line the record starts on, and ``recordHasUnclosedQuote``
  /// tells whether the input ended inside a quoted field.
  ///
  /// - Throws: ``InputError`` on a read error or a record longer than ``maximumRecordLength``.
  func nextCSVRecord(delimiter: UInt8) throws(InputError) -> UnsafeMutableBufferPointer<UInt8>? {
    try nextRecord(csvDelimiter: delimiter)
  }

  /// Finds the end of the next record. `scanned` counts the bytes after `start` already known
  /// not to end the record, and `state` is the CSV state after them, so that a refill (which
  /// moves the bytes) never makes a byte be scanned twice or a quote be misread.
  private func nextRecord(csvDelimiter: UInt8?) throws(InputError)
    -> UnsafeMutableBufferPointer<UInt8>?
  {
    var scanned = 0
    var state = CSVQuoteState.fieldStart
    while true {
      let scanFrom = start + scanned
      if scanFrom < end, let found = memchr(buffer + scanFrom, 0x0A, end - scanFrom) {
        let newline = scanFrom + (UnsafeRawPointer(found) - UnsafeRawPointer(buffer + scanFrom))
        guard let delimiter = csvDelimiter else {
          return takeRecord(upTo: newline, consuming: newline + 1, unclosedQuote: false)
        }
        // A newline ends the record unless a quoted field is open at it.
        if state != .quoted && memchr(buffer + scanFrom, 0x22, newline - scanFrom) == nil {
          return takeRecord(upTo: newline, consuming: newline + 1, unclosedQuote: false)
        }
        state = CSVQuoteState.scan(
          buffer + scanFrom, count: newline - scanFrom, delimiter: delimiter, from: state)
        if state != .quoted {
          return takeRecord(upTo: newline, consuming: newline + 1, unclosedQuote: false)
        }
        scanned = newline + 1 - start  // the newline belongs to the quoted field
        continue
      }
      // No newline in what is buffered: account for it, then read more.
      if let delimiter = csvDelimiter, scanFrom < end {
        state = CSVQuoteState.scan(
          buffer + scanFrom, count: end - scanFrom, delimiter: delimiter, from: state)
      }
      scanned = end - start
      if isAtEOF {
        if start == end { return nil }
        return takeRecord(upTo: end, consuming: end, unclosedQuote: state == .quoted)
      }
      if scanned > maximumRecordLength {
        throw InputError(
          path: path, line: lineNumber,
          reason: "a record longer than \(maximumRecordLength) bytes (is this a text file, or is a quote left open?)")
      }
      try refill()
    }
  }

  private func takeRecord(upTo stop: Int, consuming next: Int, unclosedQuote: Bool)
    -> UnsafeMutableBufferPointer<UInt8>
  {
    var length = stop - start
    if length > 0, buffer[start + length - 1] == 0x0D { length -= 1 }
    let record = UnsafeMutableBufferPointer(start: buffer + start, count: length)
    recordLine = lineNumber
    recordHasUnclosedQuote = unclosedQuote
    // Count the newlines inside the record (quoted fields may hold some) plus its terminator.
    var newlines = next > stop ? 1 : 0
    if length > 0, memchr(buffer + start, 0x0A, length) != nil {
      for index in start..<stop where buffer[index] == 0x0A { newlines += 1 }
    }
    lineNumber += newlines
    start = next
    return record
  }

  /// The next byte, or `nil` at end of input (for the XML scanner, which reads byte by byte).
  @inline(__always)
  func nextByte() throws(InputError) -> UInt8? {
    if start == end {
      try refill()
      if start == end { return nil }
    }
    let byte = buffer[start]
    start += 1
    if byte == 0x0A { lineNumber += 1 }
    return byte
  }
}

/// A file that could not be opened or read.
struct InputError: Error, Sendable {
  var path: String
  /// 1-based line where reading stopped, when known.
  var line: Int?
  var reason: String

  init(path: String, line: Int? = nil, reason: String) {
    self.path = path
    self.line = line
    self.reason = reason
  }
}
