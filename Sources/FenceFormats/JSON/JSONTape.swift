import FenceEngine

/// A parsed JSON text as a flat array of nodes in document order (a "tape").
///
/// A container node records the index just past its last descendant, so a reader can skip a
/// whole subtree in O(1); object members are stored as alternating key and value nodes. Compared
/// with building a `JSONValue` tree, this holds a large GeoJSON file (millions of coordinates)
/// in three flat arrays and one allocation per distinct string, so the zone loader reads
/// coordinates without a heap box per number.
struct JSONTape: Sendable {
  enum Kind: UInt8, Sendable {
    case null, `false`, `true`, number, string, array, object
  }

  /// The kind of each node.
  private(set) var kinds: [Kind] = []
  /// Per node: the number's bits, the string's index in `strings`, or for a container the
  /// index just past its last descendant.
  private(set) var payloads: [UInt64] = []
  /// Per container node: its element count (members count for objects); 0 otherwise.
  private(set) var counts: [Int32] = []
  /// Every string value and key, in order of appearance.
  private(set) var strings: [String] = []

  var nodeCount: Int { kinds.count }

  // MARK: Reading

  /// The kind of the node at `index`.
  @inline(__always) func kind(_ index: Int) -> Kind { kinds[index] }

  /// The number at `index`, if it is one.
  @inline(__always) func number(_ index: Int) -> Double? {
    kinds[index] == .number ? Double(bitPattern: payloads[index]) : nil
  }

  /// The string at `index`, if it is one.
  @inline(__always) func string(_ index: Int) -> String? {
    kinds[index] == .string ? strings[Int(payloads[index])] : nil
  }

  /// The bool at `index`, if it is one.
  func bool(_ index: Int) -> Bool? {
    switch kinds[index] {
    case .true: return true
    case .false: return false
    default: return nil
    }
  }

  /// The index just past the node at `index` and all its descendants.
  @inline(__always) func end(_ index: Int) -> Int {
    switch kinds[index] {
    case .array, .object: return Int(payloads[index])
    default: return index + 1
    }
  }

  /// The element count of a container.
  @inline(__always) func count(_ index: Int) -> Int { Int(counts[index]) }

  /// The indices of an array's elements.
  func elements(_ index: Int) -> [Int] {
    precondition(kinds[index] == .array, "node \(index) is \(kinds[index]), not an array")
    var result: [Int] = []
    result.reserveCapacity(count(index))
    var child = index + 1
    let stop = end(index)
    while child < stop {
      result.append(child)
      child = end(child)
    }
    return result
  }

  /// The (key, value index) pairs of an object, in document order.
  func members(_ index: Int) -> [(key: String, value: Int)] {
    precondition(kinds[index] == .object, "node \(index) is \(kinds[index]), not an object")
    var result: [(key: String, value: Int)] = []
    result.reserveCapacity(count(index))
    var child = index + 1
    let stop = end(index)
    while child < stop {
      let key = strings[Int(payloads[child])]
      result.append((key: key, value: child + 1))
      child = end(child + 1)
    }
    return result
  }

  /// The value index of the last member named `key` of an object, or `nil`.
  func member(_ index: Int, _ key: String) -> Int? {
    guard kinds[index] == .object else { return nil }
    var found: Int?
    var child = index + 1
    let stop = end(index)
    while child < stop {
      if strings[Int(payloads[child])] == key { found = child + 1 }
      child = end(child + 1)
    }
    return found
  }

  /// Objects with at most this many members have their keys compared pairwise for duplicates.
  static let pairwiseKeyLimit = 16

  /// The first key that an object at or under `index` holds twice, with the path to that
  /// object (member names and `[i]` indexes from `index`, empty for `index` itself), or `nil`.
  ///
  /// - Parameter skipping: member names whose values are not searched (GeoJSON `coordinates`,
  ///   millions of numbers and no objects); a short list, compared one by one.
  func firstDuplicateKey(under index: Int, skipping: [String] = []) -> (path: [String], key: String)? {
    switch kinds[index] {
    case .object:
      let stop = end(index)
      var memberCount = 0
      var child = index + 1
      while child < stop {
        memberCount += 1
        child = end(child + 1)
      }
      if memberCount <= Self.pairwiseKeyLimit {
        // Objects of GeoJSON features hold a handful of members: comparing the keys pairwise
        // is several times cheaper than hashing every key into a set.
        var first = index + 1
        while first < stop {
          let key = strings[Int(payloads[first])]
          var second = end(first + 1)
          while second < stop {
            if strings[Int(payloads[second])] == key { return ([], key) }
            second = end(second + 1)
          }
          first = end(first + 1)
        }
      } else {
        var seen = Set<String>(minimumCapacity: memberCount)
        child = index + 1
        while child < stop {
          let key = strings[Int(payloads[child])]
          if !seen.insert(key).inserted { return ([], key) }
          child = end(child + 1)
        }
      }
      child = index + 1
      while child < stop {
        let key = strings[Int(payloads[child])]
        if !skipping.contains(key), let found = firstDuplicateKey(under: child + 1, skipping: skipping) {
          return ([key] + found.path, found.key)
        }
        child = end(child + 1)
      }
      return nil
    case .array:
      var child = index + 1
      var position = 0
      let stop = end(index)
      while child < stop {
        if let found = firstDuplicateKey(under: child, skipping: skipping) {
          return (["[\(position)]"] + found.path, found.key)
        }
        child = end(child)
        position += 1
      }
      return nil
    default:
      return nil
    }
  }

  /// The node at `index` and its descendants as a `JSONValue`.
  func value(_ index: Int) -> JSONValue {
    switch kinds[index] {
    case .null: return .null
    case .false: return .bool(false)
    case .true: return .bool(true)
    case .number: return .number(Double(bitPattern: payloads[index]))
    case .string: return .string(strings[Int(payloads[index])])
    case .array: return .array(elements(index).map { value($0) })
    case .object: return .object(object(index))
    }
  }

  /// The object at `index` as a `JSONObject` (a repeated key keeps its last value).
  func object(_ index: Int) -> JSONObject {
    JSONObject(members(index).map { (key: $0.key, value: value($0.value)) })
  }

  /// A short description of the node's kind and value, for error messages.
  func describe(_ index: Int) -> String {
    switch kinds[index] {
    case .null: return "null"
    case .false: return "false"
    case .true: return "true"
    case .number: return JSONWriter.numberText(Double(bitPattern: payloads[index]))
    case .string:
      var text = strings[Int(payloads[index])]
      if text.count > 40 { text = String(text.prefix(40)) + "..." }
      var out = ""
      JSONWriter.appendString(text, to: &out)
      return out
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  // MARK: Building

  /// Empties the tape, keeping its storage for the next document (NDJSON lines).
  mutating func removeAll() {
    kinds.removeAll(keepingCapacity: true)
    payloads.removeAll(keepingCapacity: true)
    counts.removeAll(keepingCapacity: true)
    strings.removeAll(keepingCapacity: true)
  }

  /// Calls `body` with each (key, value index) member of an object, in document order,
  /// without building an array.
  @inline(__always)
  func forEachMember(_ index: Int, _ body: (String, Int) throws -> Void) rethrows {
    var child = index + 1
    let stop = end(index)
    while child < stop {
      try body(strings[Int(payloads[child])], child + 1)
      child = end(child + 1)
    }
  }

  fileprivate mutating func append(_ kind: Kind, _ payload: UInt64) {
    kinds.append(kind)
    payloads.append(payload)
    counts.append(0)
  }

  fileprivate mutating func close(_ container: Int, count: Int) {
    payloads[container] = UInt64(kinds.count)
    counts[container] = Int32(truncatingIfNeeded: count)
  }

  fileprivate mutating func appendString(_ s: String) {
    append(.string, UInt64(strings.count))
    strings.append(s)
  }
}

extension JSONTape {
  /// Parses one complete JSON text (RFC 8259), surrounding whitespace allowed.
  ///
  /// - Throws: ``JSONParseError`` with the line and column of the first offending character.
  init(parsing bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) {
    var parser = JSONTapeParser(bytes: bytes)
    self = try parser.parseDocument()
  }

  /// Replaces this tape's content with a parse of `bytes`, reusing its storage.
  mutating func reparse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) {
    var parser = JSONTapeParser(bytes: bytes)
    swap(&parser.tape, &self)
    parser.tape.removeAll()
    defer { swap(&parser.tape, &self) }
    _ = try parser.parseDocument(returningTape: false)
  }
}

/// A recursive-descent JSON parser writing into a ``JSONTape``.
///
/// Nesting is limited to ``maximumDepth`` levels so hostile input cannot overflow the stack.
struct JSONTapeParser {
  static let maximumDepth = 512

  let bytes: UnsafeBufferPointer<UInt8>
  var position = 0
  var tape = JSONTape()
  var depth = 0
  /// Reused for strings with escapes or non-ASCII bytes.
  var scratch: [UInt8] = []

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  mutating func parseDocument(returningTape: Bool = true) throws(JSONParseError) -> JSONTape {
    skipWhitespace()
    if position == bytes.count { throw error("expected a JSON value, found the end of the input") }
    try parseValue()
    skipWhitespace()
    if position < bytes.count { throw error("unexpected \(found()) after the JSON value") }
    return returningTape ? tape : JSONTape()
  }

  // MARK: Errors

  func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
    JSONParseError(bytes: bytes, offset: offset ?? position, message: message)
  }

  /// A description of the byte at the current position for messages.
  func found() -> String {
    guard position < bytes.count else { return "end of input" }
    let byte = bytes[position]
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }

  // MARK: Grammar

  @inline(__always)
  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  mutating func parseValue() throws(JSONParseError) {
    guard position < bytes.count else { throw error("expected a JSON value, found end of input") }
    switch bytes[position] {
    case UInt8(ascii: "{"): try parseObject()
    case UInt8(ascii: "["): try parseArray()
    case UInt8(ascii: "\""): tape.appendString(try parseString())
    case UInt8(ascii: "t"): try literal("true"); tape.append(.true, 0)
    case UInt8(ascii: "f"): try literal("false"); tape.append(.false, 0)
    case UInt8(ascii: "n"): try literal("null"); tape.append(.null, 0)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      tape.append(.number, try parseNumber().bitPattern)
    default:
      throw error("expected a JSON value, found \(found())")
    }
  }

  mutating func literal(_ word: StaticString) throws(JSONParseError) {
    let start = position
    let count = word.utf8CodeUnitCount
    let matches = word.withUTF8Buffer { expected -> Bool in
      guard start + count <= bytes.count else { return false }
      for index in 0..<count where bytes[start + index] != expected[index] { return false }
      return true
    }
    guard matches else { throw error("expected a JSON value, found \(found())") }
    position += count
  }

  mutating func enter() throws(JSONParseError) {
    depth += 1
    if depth > Self.maximumDepth {
      throw error("nesting deeper than \(Self.maximumDepth) levels")
    }
  }

  mutating func parseArray() throws(JSONParseError) {
    try enter()
    let node = tape.nodeCount
    tape.append(.array, 0)
    position += 1
    skipWhitespace()
    var count = 0
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
    } else {
      while true {
        skipWhitespace()
        try parseValue()
        count += 1
        skipWhitespace()
        guard position < bytes.count else { throw error("unterminated array: expected ',' or ']'") }
        if bytes[position] == UInt8(ascii: ",") {
          position += 1
        } else if bytes[position] == UInt8(ascii: "]") {
          position += 1
          break
        } else {
          throw error("expected ',' or ']' in array, found \(found())")
        }
      }
    }
    tape.close(node, count: count)
    depth -= 1
  }

  mutating func parseObject() throws(JSONParseError) {
    try enter()
    let node = tape.nodeCount
    tape.append(.object, 0)
    position += 1
    skipWhitespace()
    var count = 0
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
    } else {
      while true {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
          throw error("expected a string key in object, found \(found())")
        }
        tape.appendString(try parseString())
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
          throw error("expected ':' after object key, found \(found())")
        }
        position += 1
        skipWhitespace()
        try parseValue()
        count += 1
        skipWhitespace()
        guard position < bytes.count else { throw error("unterminated object: expected ',' or '}'") }
        if bytes[position] == UInt8(ascii: ",") {
          position += 1
        } else if bytes[position] == UInt8(ascii: "}") {
          position += 1
          break
        } else {
          throw error("expected ',' or '}' in object, found \(found())")
        }
      }
    }
    tape.close(node, count: count)
    depth -= 1
  }

  mutating func parseNumber() throws(JSONParseError) -> Double {
    let start = position
    switch JSONNumberGrammar.scan(bytes, from: start) {
    case .success(let end): position = end
    case .failure(let failure):
      position = failure.position
      throw error(failure.message)
    }
    let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
    guard let value = DecimalNumber.parse(text), value.isFinite else {
      throw error("number out of range", at: start)
    }
    return value
  }

  /// Parses a string starting at its opening quote; leaves the position after the closing one.
  mutating func parseString() throws(JSONParseError) -> String {
    position += 1
    let start = position
    // Fast path: plain ASCII without escapes.
    while position < bytes.count {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        position += 1
        return s
      }
      if byte == UInt8(ascii: "\\") || byte >= 0x80 || byte < 0x20 { break }
      position += 1
    }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
    var hasNonASCII = false
    while true {
      guard position < bytes.count else { throw error("unterminated string", at: start - 1) }
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        if hasNonASCII {
          guard let s = String(validating: scratch, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: start - 1)
          }
          return s
        }
        return String(decoding: scratch, as: UTF8.self)
      case UInt8(ascii: "\\"):
        position += 1
        guard position < bytes.count else { throw error("unterminated string", at: start - 1) }
        let escape = bytes[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
          let escapeStart = position - 2
          var scalar = try hex4()
          if (0xD800...0xDBFF).contains(scalar) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
              bytes[position + 1] == UInt8(ascii: "u")
            else { throw error("unpaired UTF-16 surrogate in \\u escape", at: escapeStart) }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
              throw error("unpaired UTF-16 surrogate in \\u escape", at: escapeStart)
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00...0xDFFF).contains(scalar) {
            throw error("unpaired UTF-16 surrogate in \\u escape", at: escapeStart)
          }
          guard let unicode = Unicode.Scalar(scalar) else {
            throw error("invalid \\u escape", at: escapeStart)
          }
          UTF8.encode(unicode) { scratch.append($0) }
        default:
          throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in string", at: position - 2)
        }
      default:
        if byte < 0x20 {
          throw error("control character 0x\(String(byte, radix: 16, uppercase: true)) in string must be escaped")
        }
        if byte >= 0x80 { hasNonASCII = true }
        scratch.append(byte)
        position += 1
      }
    }
  }

  mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("expected 4 hex digits after \\u") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 48)
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 87)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 55)
      default: throw error("expected 4 hex digits after \\u, found \(found())")
      }
      value = value << 4 | digit
      position += 1
    }
    return value
  }
}

/// The JSON number grammar (RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`),
/// shared by the tape parser and ``SimpleFixLine``.
enum JSONNumberGrammar {
  /// Where a number starting at `start` violates the grammar, and how.
  struct Failure: Error {
    var position: Int
    var message: String
  }

  /// The end of the number that starts at `start` (just past its last byte), or where and why
  /// it breaks the grammar.
  static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Result<Int, Failure> {
    var p = start
    @inline(__always) func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] &- 48 <= 9 }
    if p < bytes.count, bytes[p] == UInt8(ascii: "-") { p += 1 }
    guard isDigit(p) else { return .failure(Failure(position: p, message: "expected a digit after '-'")) }
    if bytes[p] == UInt8(ascii: "0") {
      p += 1
      if isDigit(p) { return .failure(Failure(position: p, message: "a number must not have leading zeros")) }
    } else {
      while isDigit(p) { p += 1 }
    }
    if p < bytes.count, bytes[p] == UInt8(ascii: ".") {
      p += 1
      guard isDigit(p) else {
        return .failure(Failure(position: p, message: "expected a digit after the decimal point"))
      }
      while isDigit(p) { p += 1 }
    }
    if p < bytes.count, bytes[p] | 0x20 == UInt8(ascii: "e") {
      p += 1
      if p < bytes.count, bytes[p] == UInt8(ascii: "+") || bytes[p] == UInt8(ascii: "-") { p += 1 }
      guard isDigit(p) else { return .failure(Failure(position: p, message: "expected a digit in the exponent")) }
      while isDigit(p) { p += 1 }
    }
    return .success(p)
  }
}
