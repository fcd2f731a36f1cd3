import FenceEngine

/// A JSON text that could not be parsed, with where and why.
///
/// `line` and `column` are 1-based; the column counts Unicode scalars from the start of the line.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// 1-based line of the offending character.
  public var line: Int
  /// 1-based column (in Unicode scalars) of the offending character.
  public var column: Int
  /// 0-based byte offset of the offending character.
  public var offset: Int
  /// What is wrong.
  public var message: String

  public init(line: Int, column: Int, offset: Int, message: String) {
    self.line = line
    self.column = column
    self.offset = offset
    self.message = message
  }

  /// Computes line and column of `offset` in `bytes` (only when an error is thrown).
  init(bytes: UnsafeBufferPointer<UInt8>, offset: Int, message: String) {
    var line = 1
    var lineStart = 0
    let stop = min(offset, bytes.count)
    for index in 0..<stop where bytes[index] == 0x0A {
      line += 1
      lineStart = index + 1
    }
    var column = 1
    if lineStart < stop {
      for index in lineStart..<stop where bytes[index] & 0xC0 != 0x80 { column += 1 }
    }
    self.init(line: line, column: column, offset: offset, message: message)
  }

  public var description: String { "line \(line), column \(column): \(message)" }
}

/// Reads JSON text (RFC 8259) into ``JSONValue``s, keeping object keys in their order.
///
/// The whole grammar is accepted: any nesting (up to 512 levels), string escapes including
/// surrogate pairs, numbers of any size (as `Double`, correctly rounded; a number too large for
/// a `Double` is an error). Strings must be valid UTF-8. When an object repeats a key, the last
/// value is kept at the position of the first.
public enum JSONReader {
  /// Parses one JSON text.
  ///
  /// - Throws: ``JSONParseError`` naming the line and column of the first problem.
  public static func parse<Bytes: Collection>(_ bytes: Bytes) throws(JSONParseError) -> JSONValue
  where Bytes.Element == UInt8 {
    let tape = try tape(bytes)
    return tape.value(0)
  }

  /// Parses one JSON text given as a string.
  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try parse(Array(text.utf8))
  }

  /// Parses bytes into the internal flat representation.
  static func tape<Bytes: Collection>(_ bytes: Bytes) throws(JSONParseError) -> JSONTape
  where Bytes.Element == UInt8 {
    let result: Result<JSONTape, JSONParseError>? = bytes.withContiguousStorageIfAvailable {
      buffer in
      do throws(JSONParseError) { return .success(try JSONTape(parsing: buffer)) } catch {
        return .failure(error)
      }
    }
    if let result { return try result.get() }
    let copy = Array(bytes)
    return try copy.withUnsafeBufferPointer { buffer throws(JSONParseError) in
      try JSONTape(parsing: buffer)
    }
  }
}
