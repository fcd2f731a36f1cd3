/// Reads a device tag file: CSV rows of `device,tag` (rules v2 `deviceTags` conditions;
/// `fencebench --device-tags`).
///
/// ```
/// device,tag
/// 367000140,ferry
/// 367000140,passenger
/// 338123000,tug
/// ```
///
/// A first row of exactly `device,tag` is a header. Fields may be quoted (`"a,b"`, with `""` for
/// a quote inside); blank lines are skipped; a device may have any number of rows. Reading is
/// all or nothing: the first bad row throws.
public enum DeviceTagReader {
  /// The tags of every device of a file (through gzip when its name ends in `.gz`), each list
  /// sorted and without repeats.
  ///
  /// - Throws: ``DeviceTagError`` naming the file and line: a row without exactly two fields, an
  ///   empty device or tag, an unterminated quote, or a file that cannot be read.
  public static func read(contentsOf path: String) throws(DeviceTagError) -> [String: [String]] {
    let bytes: [UInt8]
    do {
      bytes = try ByteInput(path: path).readAll()
    } catch {
      throw DeviceTagError(file: path, line: 0, message: "cannot read: \(error.reason)")
    }
    return try read(bytes, file: path)
  }

  /// The tags of every device of CSV text held in memory; `file` names it in messages.
  public static func read(_ bytes: [UInt8], file: String) throws(DeviceTagError) -> [String: [String]] {
    var tags: [String: Set<String>] = [:]
    var lineNumber = 0
    var start = 0
    while start < bytes.count {
      lineNumber += 1
      var end = start
      while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
      var line = bytes[start..<end]
      start = end + 1
      if line.last == 0x0D { line = line.dropLast() }
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      let fields = try Self.fields(of: line, file: file, line: lineNumber)
      guard fields.count == 2 else {
        throw DeviceTagError(
          file: file, line: lineNumber, message: "expected two fields, device and tag, got \(fields.count)")
      }
      if lineNumber == 1, fields == ["device", "tag"] { continue }
      guard !fields[0].isEmpty else {
        throw DeviceTagError(file: file, line: lineNumber, message: "the device is empty")
      }
      guard !fields[1].isEmpty else {
        throw DeviceTagError(file: file, line: lineNumber, message: "the tag is empty")
      }
      tags[fields[0], default: []].insert(fields[1])
    }
    return tags.mapValues { $0.sorted() }
  }

  /// The fields of one row, unquoted.
  static func fields(of line: ArraySlice<UInt8>, file: String, line number: Int)
    throws(DeviceTagError) -> [String]
  {
    var fields: [String] = []
    var field: [UInt8] = []
    var index = line.startIndex
    var quoted = false
    var wasQuoted = false
    while index < line.endIndex {
      let byte = line[index]
      if quoted {
        if byte == UInt8(ascii: "\"") {
          if index + 1 < line.endIndex, line[index + 1] == UInt8(ascii: "\"") {
            field.append(byte)
            index += 1
          } else {
            quoted = false
          }
        } else {
          field.append(byte)
        }
      } else if byte == UInt8(ascii: "\""), field.isEmpty, !wasQuoted {
        quoted = true
        wasQuoted = true
      } else if byte == UInt8(ascii: ",") {
        fields.append(Self.text(field, trimmed: !wasQuoted))
        field = []
        wasQuoted = false
      } else {
        field.append(byte)
      }
      index += 1
    }
    guard !quoted else {
      throw DeviceTagError(file: file, line: number, message: "a quoted field is not closed")
    }
    fields.append(Self.text(field, trimmed: !wasQuoted))
    return fields
  }

  private static func text(_ bytes: [UInt8], trimmed: Bool) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    guard trimmed else { return text }
    return String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
  }
}

/// A device tag file that cannot be used, with where.
public struct DeviceTagError: Error, Hashable, Sendable, CustomStringConvertible {
  public var file: String
  /// 1-based; 0 when the file cannot be read.
  public var line: Int
  public var message: String

  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  public var description: String {
    line == 0 ? "\(file): \(message)" : "\(file):\(line): \(message)"
  }
}
