import FenceEngine

/// Reads events back from NDJSON (as ``EventWriter`` writes them), one at a time.
///
/// For comparing runs against golden files and for daemons that replay an event log. Blank
/// lines are skipped; any other line that is not an event throws ``EventReadError`` with its
/// line number. `.gz` files are decompressed transparently; `-` is standard input.
public final class EventReader {
  public let path: String
  private let input: ByteInput

  public convenience init(path: String) throws {
    try self.init(path: path, input: ByteInput.Settings())
  }

  /// Opens an event file with explicit input settings (`-` and chunk sizes, for tests).
  init(path: String, input settings: ByteInput.Settings) throws {
    self.path = path
    do {
      input = try ByteInput(path: path, settings: settings)
    } catch {
      throw EventReadError(file: path, line: 0, reason: "cannot open: \(error.reason)")
    }
  }

  /// The next event, or `nil` at the end of the file.
  public func next() throws -> ZoneEvent? {
    while true {
      let optionalLine: UnsafeMutableBufferPointer<UInt8>?
      do {
        optionalLine = try input.nextLine()
      } catch {
        throw EventReadError(file: path, line: input.lineNumber, reason: error.reason)
      }
      guard let line = optionalLine else { return nil }
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      switch ZoneEvent.parse(line: UnsafeBufferPointer(line)) {
      case .success(let event): return event
      case .failure(let problem):
        throw EventReadError(file: path, line: input.recordLine, reason: problem.reason)
      }
    }
  }

  /// Every remaining event.
  public func readAll() throws -> [ZoneEvent] {
    var events: [ZoneEvent] = []
    while let event = try next() { events.append(event) }
    return events
  }
}

/// An event line that could not be read.
public struct EventReadError: Error, Hashable, Sendable, CustomStringConvertible {
  public var file: String
  /// 1-based line (0 when not reading from a file).
  public var line: Int
  public var reason: String

  public init(file: String, line: Int, reason: String) {
    self.file = file
    self.line = line
    self.reason = reason
  }

  public var description: String {
    file.isEmpty ? reason : "\(file):\(line): \(reason)"
  }
}
