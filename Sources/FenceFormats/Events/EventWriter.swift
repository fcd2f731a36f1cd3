internal import CZlib
import FenceEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes events as NDJSON, one ``ZoneEvent/ndjsonLine`` per line, through a 64 KiB buffer.
///
/// The destination is a file (replaced if it exists; gzip-compressed when its name ends in
/// `.gz`) or standard output (`-`). Call ``close()`` (or at least ``flush()``) when done: the
/// buffer is also flushed when the writer is released, but errors are then lost.
///
/// Not thread-safe: use one writer per task, or serialize calls.
public final class EventWriter {
  /// The path as given (`-` for standard output).
  public let path: String
  private enum Sink {
    case file(UnsafeMutablePointer<FILE>)
    case gzip(gzFile)
    case closed
  }
  private var sink: Sink
  private var buffer: [UInt8] = []
  private static let flushThreshold = 1 << 16
  /// Events written so far.
  public private(set) var eventCount = 0

  /// Opens a destination; `-` is standard output.
  ///
  /// - Throws: ``EventWriteError`` when the file cannot be created.
  public convenience init(path: String) throws {
    try self.init(path: path, standardOutput: 1)
  }

  /// Opens a destination; `-` is the descriptor `standardOutput` (tests pass their own).
  init(path: String, standardOutput: Int32) throws {
    self.path = path
    if path == "-" {
      // A stream of our own on a duplicate of the descriptor: closing it releases the stream
      // and leaves standard output open.
      let descriptor = dup(standardOutput)
      guard descriptor >= 0, let handle = fdopen(descriptor, "w") else {
        let reason = String(cString: strerror(errno))
        if descriptor >= 0 { closeDescriptor(descriptor) }
        throw EventWriteError(path: path, reason: reason)
      }
      sink = .file(handle)
    } else if path.lowercased().hasSuffix(".gz") {
      guard let handle = CZlib_openForWriting(path) else {
        throw EventWriteError(path: path, reason: String(cString: strerror(errno)))
      }
      sink = .gzip(handle)
    } else {
      guard let handle = fopen(path, "wb") else {
        throw EventWriteError(path: path, reason: String(cString: strerror(errno)))
      }
      sink = .file(handle)
    }
    buffer.reserveCapacity(Self.flushThreshold + 1024)
  }

  deinit {
    try? close()
  }

  /// Appends one event as a line.
  public func write(_ event: ZoneEvent) throws {
    event.appendNDJSON(to: &buffer)
    buffer.append(0x0A)
    eventCount += 1
    if buffer.count >= Self.flushThreshold { try flush() }
  }

  /// Appends events in order.
  public func write(contentsOf events: some Sequence<ZoneEvent>) throws {
    for event in events { try write(event) }
  }

  /// Hands buffered lines to the file (and the C library's buffer to the system).
  public func flush() throws {
    guard !buffer.isEmpty else {
      if case .file(let handle) = sink { fflush(handle) }
      return
    }
    let ok = buffer.withUnsafeBufferPointer { bytes -> Bool in
      switch sink {
      case .file(let handle):
        return fwrite(bytes.baseAddress, 1, bytes.count, handle) == bytes.count
          && fflush(handle) == 0
      case .gzip(let handle):
        return gzwrite(handle, bytes.baseAddress, UInt32(bytes.count)) == Int32(bytes.count)
      case .closed:
        return false
      }
    }
    buffer.removeAll(keepingCapacity: true)
    if !ok {
      if case .closed = sink { throw EventWriteError(path: path, reason: "the writer is closed") }
      throw EventWriteError(path: path, reason: String(cString: strerror(errno)))
    }
  }

  /// Flushes and closes the destination (for standard output, only this writer's duplicate of
  /// the descriptor is closed).
  public func close() throws {
    if case .closed = sink { return }
    defer { sink = .closed }
    try flush()
    switch sink {
    case .file(let handle):
      if fclose(handle) != 0 {
        throw EventWriteError(path: path, reason: String(cString: strerror(errno)))
      }
    case .gzip(let handle):
      if gzclose_w(handle) != Z_OK {
        throw EventWriteError(path: path, reason: "gzip close failed")
      }
    case .closed:
      break
    }
  }
}

/// An event file that could not be written.
public struct EventWriteError: Error, Hashable, Sendable, CustomStringConvertible {
  public var path: String
  public var reason: String
  public var description: String { "\(path): cannot write events: \(reason)" }
}

/// Closes a descriptor (a free function, since `EventWriter.close()` hides the C one).
private func closeDescriptor(_ descriptor: Int32) {
  _ = close(descriptor)
}
