/// A row of a track file that could not be parsed and was skipped.
public struct TrackIssue: Hashable, Sendable, CustomStringConvertible {
  /// The file's path as given.
  public var file: String
  /// 1-based line where the row starts.
  public var line: Int
  /// What is wrong, as a sentence fragment (`field "lat": expected a number, got "abc"`).
  public var reason: String

  public init(file: String, line: Int, reason: String) {
    self.file = file
    self.line = line
    self.reason = reason
  }

  /// `file:line: reason`, the way compilers report positions.
  public var description: String { "\(file):\(line): \(reason)" }
}

/// A track file that cannot be read at all (missing, unreadable, no usable header), or a bad
/// row in strict mode.
public struct TrackReadError: Error, Hashable, Sendable, CustomStringConvertible {
  public var file: String
  /// 1-based line, when the problem is at one.
  public var line: Int?
  public var reason: String

  public init(file: String, line: Int? = nil, reason: String) {
    self.file = file
    self.line = line
    self.reason = reason
  }

  public var description: String {
    if let line { return "\(file):\(line): \(reason)" }
    return "\(file): \(reason)"
  }
}

/// Issues kept by a reader: every skipped row is counted, the first few are kept.
struct IssueLog {
  let file: String
  let strict: Bool
  let limit: Int
  private(set) var issues: [TrackIssue] = []
  private(set) var skippedCount = 0

  init(file: String, strict: Bool, limit: Int) {
    self.file = file
    self.strict = strict
    self.limit = limit
  }

  /// Records a skipped row, or throws it in strict mode.
  mutating func skip(line: Int, _ reason: String) throws(TrackReadError) {
    if strict { throw TrackReadError(file: file, line: line, reason: reason) }
    skippedCount += 1
    if issues.count < limit { issues.append(TrackIssue(file: file, line: line, reason: reason)) }
  }
}

/// A text echoed in an error message: at most `limit` characters, then `...` and how long the
/// whole text is.
func shortenedForMessage(_ text: String, limit: Int = 200) -> String {
  guard text.count > limit else { return text }
  return String(text.prefix(limit)) + "... (\(text.utf8.count) bytes in all)"
}

/// Quotes a field's bytes for a message, shortened when long.
func quotedForMessage(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
  var text = String(decoding: bytes, as: UTF8.self)
  if text.count > 40 { text = String(text.prefix(40)) + "..." }
  return "\"" + text + "\""
}
