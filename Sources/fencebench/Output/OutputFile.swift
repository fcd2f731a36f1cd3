#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A buffered byte sink on a file or standard output, for writing outputs of any size without
/// building them in memory.
///
/// Text is appended to a 256 KiB buffer that is written out when full and on ``close()``.
/// Not thread-safe: one writer per file.
final class OutputFile {
  /// A file that could not be opened or written, with the system's reason.
  struct Failure: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "\(path): \(reason)" }
  }

  let path: String
  private let descriptor: Int32
  private let ownsDescriptor: Bool
  private var buffer: [UInt8] = []
  private static let capacity = 1 << 18

  /// Opens `path` for writing, truncating it; `-` means standard output.
  init(path: String) throws {
    self.path = path
    if path == "-" {
      descriptor = 1
      ownsDescriptor = false
    } else {
      let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      guard opened >= 0 else {
        throw Failure(path: path, reason: String(cString: strerror(errno)))
      }
      descriptor = opened
      ownsDescriptor = true
    }
    buffer.reserveCapacity(Self.capacity)
  }

  deinit {
    try? flush()
    if ownsDescriptor { _ = posixClose(descriptor) }
  }

  /// Appends UTF-8 text.
  func write(_ text: String) throws {
    var text = text
    text.withUTF8 { buffer.append(contentsOf: $0) }
    if buffer.count >= Self.capacity { try flush() }
  }

  /// Appends raw bytes.
  func write(bytes: some Sequence<UInt8>) throws {
    buffer.append(contentsOf: bytes)
    if buffer.count >= Self.capacity { try flush() }
  }

  /// Appends a number with exactly `digits` decimals (`-74.123456`), without going through a
  /// formatter; used for the millions of coordinates `generate` writes.
  func write(fixed value: Double, digits: Int) throws {
    FixedDecimal.append(value, digits: digits, to: &buffer)
    if buffer.count >= Self.capacity { try flush() }
  }

  /// Writes out the buffer.
  func flush() throws {
    guard !buffer.isEmpty else { return }
    let failure: Int32? = buffer.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress else { return nil }
      var offset = 0
      while offset < bytes.count {
        let written = posixWrite(descriptor, base + offset, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return errno
        }
        offset += written
      }
      return nil
    }
    buffer.removeAll(keepingCapacity: true)
    if let failure { throw Failure(path: path, reason: String(cString: strerror(failure))) }
  }

  /// Writes out the buffer and closes the file.
  func close() throws {
    try flush()
  }
}

private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}

private func posixClose(_ fd: Int32) -> Int32 { close(fd) }

/// Writes a line to standard error (unbuffered, straight to descriptor 2).
func printToStandardError(_ message: String) {
  printToStandardErrorWithoutNewline(message + "\n")
}

/// Writes text to standard error as it is.
func printToStandardErrorWithoutNewline(_ text: String) {
  var line = text
  line.withUTF8 { bytes in
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      let written = posixWrite(2, base + offset, bytes.count - offset)
      if written <= 0 { return }
      offset += written
    }
  }
}

/// Fixed-point decimal text for doubles: rounds to `digits` decimals and trims nothing, so the
/// output is byte-for-byte the same on every platform.
enum FixedDecimal {
  private static let powers: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

  /// Appends the text of `value` rounded to `digits` (0...9) decimals.
  static func append(_ value: Double, digits: Int, to bytes: inout [UInt8]) {
    precondition((0...9).contains(digits), "FixedDecimal supports 0...9 digits, not \(digits)")
    precondition(value.isFinite && abs(value) < 1e9, "FixedDecimal value out of range: \(value)")
    let scale = powers[digits]
    var scaled = Int64((abs(value) * scale).rounded())
    if value < 0 && scaled != 0 { bytes.append(UInt8(ascii: "-")) }
    let divisor = Int64(scale)
    let whole = scaled / divisor
    scaled %= divisor
    bytes.append(contentsOf: String(whole).utf8)
    guard digits > 0 else { return }
    bytes.append(UInt8(ascii: "."))
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
    var index = start + digits - 1
    while scaled > 0 {
      bytes[index] = UInt8(ascii: "0") + UInt8(scaled % 10)
      scaled /= 10
      index -= 1
    }
  }

  /// The text of `value` rounded to `digits` decimals.
  static func text(_ value: Double, digits: Int) -> String {
    var bytes: [UInt8] = []
    append(value, digits: digits, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
