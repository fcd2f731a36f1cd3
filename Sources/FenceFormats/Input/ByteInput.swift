internal import CZlib

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file (or standard input) read in large chunks through zlib, so `.gz` files are
/// decompressed transparently and uncompressed files pass straight through.
///
/// Owns one buffer that grows only when a single line (or record) is longer than it. The
/// pointers it hands out stay valid until the next call that reads.
final class ByteInput {
  /// Bytes read per refill.
  static let chunkSize = 1 << 20

  /// The path as given (`-` for standard input), for messages.
  let path: String
  private let file: gzFile
  private var buffer: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// Valid bytes are `buffer[start..<end]`.
  private var start = 0
  private var end = 0
  private var isAtEOF = false
  /// 1-based line number of the byte at `start`.
  private(set) var lineNumber = 1

  /// Opens a file for reading; `-` is standard input.
  ///
  /// - Throws: ``InputError`` when the file cannot be opened.
  init(path: String) throws(InputError) {
    self.path = path
    let handle: gzFile?
    if path == "-" {
      handle = CZlib_openStandardInput()
    } else {
      handle = CZlib_openForReading(path)
    }
    guard let handle else {
      throw InputError(path: path, reason: String(cString: strerror(errno)))
    }
    file = handle
    gzbuffer(file, UInt32(Self.chunkSize))
    capacity = Self.chunkSize
    buffer = .allocate(capacity: capacity)
  }

  deinit {
    gzclose_r(file)
    buffer.deallocate()
  }

  /// Reads everything that is left (zone files are parsed whole).
  func readAll() throws(InputError) -> [UInt8] {
    var result: [UInt8] = []
    while true {
      try refill()
      if start == end { return result }
      result.append(contentsOf: UnsafeBufferPointer(start: buffer + start, count: end - start))
      start = end
    }
  }

  /// Moves unread bytes to the front and reads more; at end of file does nothing.
  private func refill() throws(InputError) {
    if isAtEOF { return }
    if start > 0 {
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
    let count = gzread(file, buffer + end, UInt32(capacity - end))
    if count < 0 {
      var code: Int32 = 0
      let message = gzerror(file, &code).map { String(cString: $0) } ?? "read error"
      throw InputError(path: path, reason: message)
    }
    if count == 0 { isAtEOF = true }
    end += Int(count)
  }

  /// The next line without its `\n` (and without a `\r` before it), or `nil` at end of input.
  ///
  /// With `quoteAware`, a newline inside a `"`-quoted field (RFC 4180) does not end the record.
  /// The returned buffer is valid until the next call. `lineNumber` is then the line the record
  /// started on (see ``recordLine``).
  func nextLine(quoteAware: Bool = false) throws(InputError) -> UnsafeMutableBufferPointer<UInt8>? {
    var scanFrom = start
    var insideQuotes = false
    while true {
      // Find the next newline from scanFrom.
      if scanFrom < end,
        let found = memchr(buffer + scanFrom, 0x0A, end - scanFrom)
      {
        let newline = found.assumingMemoryBound(to: UInt8.self) - buffer
        if quoteAware {
          insideQuotes = Self.togglesQuote(buffer + scanFrom, newline - scanFrom, insideQuotes)
          if insideQuotes {
            scanFrom = newline + 1
            continue
          }
        }
        return takeRecord(upTo: newline, consuming: newline + 1)
      }
      if quoteAware && scanFrom < end {
        insideQuotes = Self.togglesQuote(buffer + scanFrom, end - scanFrom, insideQuotes)
      }
      let scanned = end - start
      if isAtEOF {
        if start == end { return nil }
        return takeRecord(upTo: end, consuming: end)
      }
      try refill()
      scanFrom = start + scanned
    }
  }

  /// 1-based line number of the record last returned by ``nextLine(quoteAware:)``.
  private(set) var recordLine = 0

  private func takeRecord(upTo stop: Int, consuming next: Int) -> UnsafeMutableBufferPointer<UInt8> {
    var length = stop - start
    if length > 0, buffer[start + length - 1] == 0x0D { length -= 1 }
    let record = UnsafeMutableBufferPointer(start: buffer + start, count: length)
    recordLine = lineNumber
    // Count the newlines inside the record (quoted fields may hold some) plus its terminator.
    var newlines = next > stop ? 1 : 0
    if length > 0, memchr(buffer + start, 0x0A, length) != nil {
      for index in start..<stop where buffer[index] == 0x0A { newlines += 1 }
    }
    lineNumber += newlines
    start = next
    return record
  }

  /// Whether an odd number of `"` in `count` bytes flips the quote state.
  private static func togglesQuote(_ p: UnsafeMutablePointer<UInt8>, _ count: Int, _ state: Bool)
    -> Bool
  {
    var state = state
    if memchr(p, 0x22, count) == nil { return state }
    for index in 0..<count where p[index] == 0x22 { state.toggle() }
    return state
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
  var reason: String
}
