import Dispatch
import FenceEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A batch of fixes that was rejected, with what is wrong with it.
///
/// `line` is a 1-based line of the body for NDJSON, or the 1-based index of the element in the
/// array when the body is a JSON array (``isJSONArray``).
public struct FixBatchError: Error, Hashable, Sendable, CustomStringConvertible {
  /// One line (or array element) that is not an acceptable fix.
  public struct Problem: Hashable, Sendable, CustomStringConvertible {
    /// 1-based line of the body, or 1-based index of the element for a JSON array body.
    public var line: Int
    /// What is wrong, as a sentence fragment (`"lat": 91 is outside [-90, 90]`). Input text
    /// echoed in it is shortened to 40 characters and `...`.
    public var reason: String

    public init(line: Int, reason: String) {
      self.line = line
      self.reason = reason
    }

    /// `line N: reason`.
    public var description: String { "line \(line): \(reason)" }
  }

  /// The first problems in body order, at most ``FixBatchReader/keptProblemLimit``.
  public var problems: [Problem]
  /// Every problem found, including those not kept.
  public var problemCount: Int
  /// Whether the body was a JSON array, so each problem's `line` is an element index.
  public var isJSONArray: Bool

  public init(problems: [Problem], problemCount: Int, isJSONArray: Bool = false) {
    self.problems = problems
    self.problemCount = problemCount
    self.isJSONArray = isJSONArray
  }

  /// `2 bad fixes: line 3: …; line 9: …`, with `(and N more)` when not all were kept.
  public var description: String {
    let unit = isJSONArray ? "element" : "line"
    var text = "\(problemCount) bad fix\(problemCount == 1 ? "" : "es"): "
    text += problems.map { "\(unit) \($0.line): \($0.reason)" }.joined(separator: "; ")
    if problemCount > problems.count { text += " (and \(problemCount - problems.count) more)" }
    return text
  }
}

/// Reads a batch of fixes held in memory, such as a daemon's request body: all of them, or
/// none and every reason why.
///
/// The body is NDJSON (one fix object per line, as ``TrackReader`` reads `.ndjson` files;
/// blank lines skipped, `\r\n` line ends allowed) or, when its first byte other than
/// whitespace is `[`, a JSON array of the same objects. A UTF-8 byte order mark at the start
/// is skipped. Each object is read by the NDJSON rules (`device`, `time`, `lat`, `lon`, optional
/// `accuracy`, `speed`, `course`; other members ignored; `null` for an optional member means
/// absent), and must also hold possible values, which the NDJSON file reader leaves to the
/// engine:
///
/// - a non-empty `device`;
/// - `lat` in [-90, 90] and `lon` in [-180, 180];
/// - `accuracy` and `speed` >= 0, `course` in [-360, 360] (real AIS feeds send negative
///   courses, e.g. -49.6 for 310.4; they are kept as given, as the track readers keep them);
/// - finite numbers (JSON cannot write others: `1e999` is an invalid JSON number).
///
/// (0, 0) is possible and passes; the engine rejects it as null island.
public enum FixBatchReader {
  /// The line length (or array element length) above which a line is a problem without being
  /// parsed: 1 MiB.
  public static let defaultMaximumLineLength = 1 << 20
  /// How many problems ``FixBatchError`` keeps; the rest are only counted.
  public static let keptProblemLimit = 100

  /// Every fix of the body in body order, or an error listing the problems.
  ///
  /// An empty body, one of whitespace and blank lines only, or `[]` gives no fixes. For a JSON
  /// array, a problem with the array itself rather than an element (not closed, text after
  /// its `]`) is reported at the index the next element would have had. The whole body is
  /// always read, so the error counts every problem.
  ///
  /// - Parameter maximumLineLength: a longer line (without its line end), or a longer array
  ///   element, is the problem `line longer than N bytes` (`element longer than N bytes`) and
  ///   is not parsed.
  /// - Throws: ``FixBatchError`` when any line or element is not a possible fix.
  public static func fixes(
    in body: some Collection<UInt8>, maximumLineLength: Int = defaultMaximumLineLength
  ) throws(FixBatchError) -> [LocationFix] {
    precondition(maximumLineLength > 0, "the maximum line length must be > 0")
    let result = body.withContiguousStorageIfAvailable { buffer in
      read(buffer, maximumLineLength: maximumLineLength)
    }
    let batch = result ?? Array(body).withUnsafeBufferPointer { buffer in
      read(buffer, maximumLineLength: maximumLineLength)
    }
    return try batch.get()
  }

  /// Reads a contiguous body.
  static func read(_ body: UnsafeBufferPointer<UInt8>, maximumLineLength: Int)
    -> Result<[LocationFix], FixBatchError>
  {
    var start = 0
    if body.count >= 3, body[0] == 0xEF, body[1] == 0xBB, body[2] == 0xBF { start = 3 }
    let text = UnsafeBufferPointer(rebasing: body[start...])
    var reading = FixBatchReading(maximumLength: maximumLineLength)
    if let first = text.firstIndex(where: { !isWhitespace($0) }), text[first] == UInt8(ascii: "[") {
      reading.isJSONArray = true
      reading.readArray(text, from: first + 1)
    } else if text.count >= parallelReadingThreshold, parallelParts > 1 {
      return readLinesInParallel(text, maximumLineLength: maximumLineLength)
    } else {
      reading.readLines(text)
    }
    return reading.result
  }

  /// The NDJSON body size from which its lines are read on several threads: 64 KiB (about 800
  /// fixes). Below it, starting threads costs more than it saves.
  static let parallelReadingThreshold = 1 << 16
  /// How many parts a large NDJSON body is read in: one per processor, at most 4.
  static let parallelParts = max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

  /// Reads a large NDJSON body in parts cut at line ends, each on its own thread, and joins
  /// them: the same fixes in the same order, or the same problems with the same line numbers,
  /// as one reading from start to end. A daemon's single client waits for its batch, so this
  /// is what makes a second processor shorten the answer.
  static func readLinesInParallel(_ text: UnsafeBufferPointer<UInt8>, maximumLineLength: Int)
    -> Result<[LocationFix], FixBatchError>
  {
    // Cut points just after a line feed near each equal share of the bytes.
    var starts = [0]
    for part in 1..<parallelParts {
      let target = max(starts[starts.count - 1], text.count * part / parallelParts)
      guard let newline = text[target...].firstIndex(of: 0x0A), newline + 1 < text.count else {
        break
      }
      if newline + 1 > starts[starts.count - 1] { starts.append(newline + 1) }
    }
    let ends = Array(starts.dropFirst()) + [text.count]
    nonisolated(unsafe) let readings = UnsafeMutableBufferPointer<FixBatchReading>.allocate(
      capacity: starts.count)
    readings.initialize(repeating: FixBatchReading(maximumLength: maximumLineLength))
    defer { readings.deinitialize().deallocate() }
    nonisolated(unsafe) let whole = text
    let partStarts = starts
    DispatchQueue.concurrentPerform(iterations: starts.count) { part in
      let piece = UnsafeBufferPointer(rebasing: whole[partStarts[part]..<ends[part]])
      readings[part].readLines(piece)
    }
    // Line numbers: each part counted from 1; shift by the lines before it.
    var joined = FixBatchReading(maximumLength: maximumLineLength)
    var linesBefore = 0
    for (part, reading) in readings.enumerated() {
      if reading.problemCount > 0 || joined.problemCount > 0 {
        if joined.problemCount == 0 { joined.fixes = [] }
        for problem in reading.problems where joined.problems.count < keptProblemLimit {
          joined.problems.append(
            FixBatchError.Problem(line: problem.line + linesBefore, reason: problem.reason))
        }
        joined.problemCount += reading.problemCount
      } else if part == 0 {
        joined.fixes = reading.fixes
      } else {
        joined.fixes.append(contentsOf: reading.fixes)
      }
      linesBefore += reading.linesRead
    }
    return joined.result
  }

  /// JSON whitespace: space, tab, line feed, carriage return.
  @inline(__always)
  static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  /// The reason a parsed fix holds an impossible value, or `nil` when it is possible.
  static func impossibility(of fix: LocationFix) -> String? {
    func text(_ x: Double) -> String { JSONWriter.numberText(x) }
    func outside(_ key: String, _ x: Double?, _ low: Double, _ high: Double) -> String? {
      guard let x else { return nil }
      guard x.isFinite else { return "\"\(key)\": not a finite number" }
      guard x >= low, x <= high else {
        return "\"\(key)\": \(text(x)) is outside [\(text(low)), \(text(high))]"
      }
      return nil
    }
    func negative(_ key: String, _ x: Double?) -> String? {
      guard let x else { return nil }
      guard x.isFinite else { return "\"\(key)\": not a finite number" }
      return x < 0 ? "\"\(key)\": \(text(x)) is negative" : nil
    }
    if fix.device.isEmpty { return "\"device\": expected a non-empty id, got \"\"" }
    return outside("lat", fix.latitude, -90, 90) ?? outside("lon", fix.longitude, -180, 180)
      ?? negative("accuracy", fix.accuracy) ?? negative("speed", fix.speed)
      ?? outside("course", fix.course, -360, 360)
  }
}

/// The state of one batch: the fixes so far, or the problems once there is one.
struct FixBatchReading {
  let maximumLength: Int
  var isJSONArray = false
  var fixes: [LocationFix] = []
  var problems: [FixBatchError.Problem] = []
  var problemCount = 0
  /// Reused from line to line.
  var tape = JSONTape()
  /// How many lines ``readLines(_:)`` went through (a last line without a line end counts).
  var linesRead = 0

  init(maximumLength: Int) {
    self.maximumLength = maximumLength
  }

  var result: Result<[LocationFix], FixBatchError> {
    if problemCount == 0 { return .success(fixes) }
    return .failure(
      FixBatchError(problems: problems, problemCount: problemCount, isJSONArray: isJSONArray))
  }

  mutating func problem(_ line: Int, _ reason: String) {
    if problemCount == 0 { fixes = [] }  // all or nothing: the fixes are no longer needed
    problemCount += 1
    if problems.count < FixBatchReader.keptProblemLimit {
      problems.append(FixBatchError.Problem(line: line, reason: reason))
    }
  }

  /// Records the fix of a line or element, or its problem.
  mutating func take(_ parsed: Result<LocationFix, RowProblem>, line: Int) {
    switch parsed {
    case .success(let fix):
      if let reason = FixBatchReader.impossibility(of: fix) {
        problem(line, reason)
      } else if problemCount == 0 {
        fixes.append(fix)
      }
    case .failure(let failure):
      problem(line, failure.reason)
    }
  }

  // MARK: NDJSON

  /// Reads every line: the shared NDJSON line rules, then the possibility checks.
  mutating func readLines(_ text: UnsafeBufferPointer<UInt8>) {
    var lineStart = 0
    var lineNumber = 1
    while lineStart < text.count {
      let newline = text[lineStart...].firstIndex(of: 0x0A) ?? text.count
      var lineEnd = newline
      if lineEnd > lineStart, text[lineEnd - 1] == 0x0D { lineEnd -= 1 }
      if lineEnd - lineStart > maximumLength {
        problem(lineNumber, "line longer than \(maximumLength) bytes")
      } else {
        let line = UnsafeBufferPointer(rebasing: text[lineStart..<lineEnd])
        if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
          take(NDJSONTrackParser.fix(fromLine: line, tape: &tape), line: lineNumber)
        }
      }
      lineStart = newline + 1
      lineNumber += 1
    }
    linesRead = lineNumber - 1
  }

  // MARK: JSON array

  /// Reads the elements of an array whose `[` is just before `position`.
  ///
  /// Each element is found by a scan that follows strings and brackets without parsing, then
  /// parsed on its own, so one bad element does not hide the problems of the others.
  mutating func readArray(_ text: UnsafeBufferPointer<UInt8>, from position: Int) {
    var p = position
    func skipWhitespace() {
      while p < text.count, FixBatchReader.isWhitespace(text[p]) { p += 1 }
    }
    skipWhitespace()
    var elementCount = 0
    var closed = false
    if p < text.count, text[p] == UInt8(ascii: "]") {
      p += 1
      closed = true
    }
    while !closed {
      skipWhitespace()
      let index = elementCount + 1
      elementCount = index
      let start = p
      p = Self.elementEnd(text, from: p)
      var end = p
      while end > start, FixBatchReader.isWhitespace(text[end - 1]) { end -= 1 }
      let atEnd = p == text.count
      let problemsBefore = problemCount
      if end == start {
        if atEnd {
          problem(index, "the array is not closed: expected a fix object or ']'")
          return
        }
        problem(index, "expected a fix object before '\(Character(Unicode.Scalar(text[p])))'")
      } else if end - start > maximumLength {
        problem(index, "element longer than \(maximumLength) bytes")
      } else {
        readElement(text, start..<end, index: index)
      }
      if atEnd {
        // An element that is itself broken (an open string) explains the missing ']'.
        if problemCount == problemsBefore {
          problem(index + 1, "the array is not closed: expected ',' or ']' after element \(index)")
        }
        return
      }
      closed = text[p] == UInt8(ascii: "]")
      p += 1
    }
    skipWhitespace()
    if p < text.count {
      problem(elementCount + 1, "unexpected text after the array's closing ']'")
    }
  }

  /// The position of the `,` or `]` that ends the element starting at `start` (outside strings
  /// and nested brackets), or the end of the text.
  static func elementEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    var p = start
    var depth = 0
    var inString = false
    while p < text.count {
      let byte = text[p]
      if inString {
        if byte == UInt8(ascii: "\\") {
          p += 2
          continue
        }
        if byte == UInt8(ascii: "\"") { inString = false }
      } else {
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "]"):
          if depth == 0 { return p }
          depth -= 1
        case UInt8(ascii: "}"):
          // A stray `}` stays in the element, whose parse then reports it.
          if depth > 0 { depth -= 1 }
        case UInt8(ascii: ","):
          if depth == 0 { return p }
        default: break
        }
      }
      p += 1
    }
    return text.count
  }

  /// Parses one element, with a JSON error's position given in the whole body.
  mutating func readElement(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, index: Int) {
    do {
      try tape.reparse(UnsafeBufferPointer(rebasing: text[range]))
    } catch {
      let position = JSONParseError(
        bytes: text, offset: range.lowerBound + error.offset, message: error.message)
      problem(
        index,
        "invalid JSON at line \(position.line), column \(position.column): \(error.message)")
      return
    }
    take(NDJSONTrackParser.fix(fromDocumentIn: tape), line: index)
  }
}
