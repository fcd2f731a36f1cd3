import FenceEngine

/// The fast reading of an NDJSON fix line in the shape almost every feed sends: one flat object
/// of plain ASCII strings and numbers, each known member once.
///
/// ``NDJSONTrackParser`` tries this first and falls back to the full JSON parse (``JSONTape``)
/// whenever it gives `nil`. It gives `nil` for anything outside that shape: string escapes or
/// bytes outside printable ASCII, nested objects or arrays, `null` for a known member, a
/// number for `device` or `time`, a known member given twice, a missing member, a time or
/// number that does not read, and every kind of malformed JSON. So it never decides that a line
/// is wrong (the full parse finds and words the problem) and, for the lines it does read, it
/// gives exactly the fix the full parse gives: the same ``DecimalNumber`` and
/// ``TimestampParser`` read the same bytes.
///
/// It reads the bytes once, without building a tape or a `String` per key, which is most of
/// what reading a batch of fixes costs a daemon.
enum SimpleFixLine {
  /// The fix of `line`, or `nil` when the line needs the full parse.
  static func fix(_ line: UnsafeBufferPointer<UInt8>) -> LocationFix? {
    var scanner = Scanner(bytes: line)
    return scanner.readFix()
  }

  /// The members the fast path knows, as bits of a set of seen members.
  private enum Member: UInt8 {
    case device = 1, time = 2, lat = 4, lon = 8, accuracy = 16, speed = 32, course = 64
  }

  private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var p = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
      self.bytes = bytes
    }

    @inline(__always)
    mutating func skipWhitespace() {
      while p < bytes.count {
        switch bytes[p] {
        case 0x20, 0x09, 0x0A, 0x0D: p += 1
        default: return
        }
      }
    }

    @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
      guard p < bytes.count, bytes[p] == byte else { return false }
      p += 1
      return true
    }

    /// The contents of a string of printable ASCII without escapes, starting at its quote.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
      guard take(UInt8(ascii: "\"")) else { return nil }
      let start = p
      while p < bytes.count {
        let byte = bytes[p]
        if byte == UInt8(ascii: "\"") {
          defer { p += 1 }
          return UnsafeBufferPointer(rebasing: bytes[start..<p])
        }
        // Escapes, control bytes and UTF-8 go to the full parse, which validates them.
        if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x7F { return nil }
        p += 1
      }
      return nil
    }

    /// A JSON number (RFC 8259 grammar, as ``JSONTapeParser`` accepts it), finite as a double.
    mutating func number() -> Double? {
      let start = p
      guard case .success(let end) = JSONNumberGrammar.scan(bytes, from: start) else { return nil }
      p = end
      guard let value = DecimalNumber.parse(UnsafeBufferPointer(rebasing: bytes[start..<p])),
        value.isFinite
      else { return nil }
      return value
    }

    /// Skips the value of a member the fast path does not read: a plain string, a number,
    /// `true`, `false` or `null`.
    mutating func skipScalar() -> Bool {
      guard p < bytes.count else { return false }
      switch bytes[p] {
      case UInt8(ascii: "\""): return plainString() != nil
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number() != nil
      case UInt8(ascii: "t"): return literal("true")
      case UInt8(ascii: "f"): return literal("false")
      case UInt8(ascii: "n"): return literal("null")
      default: return false
      }
    }

    mutating func literal(_ word: StaticString) -> Bool {
      let count = word.utf8CodeUnitCount
      guard p + count <= bytes.count else { return false }
      let matches = word.withUTF8Buffer { expected in
        for i in 0..<count where bytes[p + i] != expected[i] { return false }
        return true
      }
      if matches { p += count }
      return matches
    }

    /// Which known member a key is, or `nil` for any other key.
    static func member(_ key: UnsafeBufferPointer<UInt8>) -> Member? {
      func equals(_ word: StaticString) -> Bool {
        guard key.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { expected in
          for i in 0..<key.count where key[i] != expected[i] { return false }
          return true
        }
      }
      switch key.count {
      case 3: return equals("lat") ? .lat : equals("lon") ? .lon : nil
      case 4: return equals("time") ? .time : nil
      case 5: return equals("speed") ? .speed : nil
      case 6: return equals("device") ? .device : equals("course") ? .course : nil
      case 8: return equals("accuracy") ? .accuracy : nil
      default: return nil
      }
    }

    mutating func readFix() -> LocationFix? {
      skipWhitespace()
      guard take(UInt8(ascii: "{")) else { return nil }
      var seen: UInt8 = 0
      var device = ""
      var time = Timestamp(microsecondsSinceEpoch: 0)
      var latitude = 0.0
      var longitude = 0.0
      var accuracy: Double?
      var speed: Double?
      var course: Double?
      while true {
        skipWhitespace()
        guard let key = plainString() else { return nil }
        skipWhitespace()
        guard take(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        if let member = Self.member(key) {
          guard seen & member.rawValue == 0 else { return nil }
          seen |= member.rawValue
          switch member {
          case .device:
            guard let text = plainString() else { return nil }
            device = String(decoding: text, as: UTF8.self)
          case .time:
            guard let text = plainString(), let instant = TimestampParser.parse(text) else {
              return nil
            }
            time = instant
          case .lat:
            guard let x = number() else { return nil }
            latitude = x
          case .lon:
            guard let x = number() else { return nil }
            longitude = x
          case .accuracy:
            guard let x = number() else { return nil }
            accuracy = x
          case .speed:
            guard let x = number() else { return nil }
            speed = x
          case .course:
            guard let x = number() else { return nil }
            course = x
          }
        } else if !skipScalar() {
          return nil
        }
        skipWhitespace()
        if take(UInt8(ascii: ",")) { continue }
        guard take(UInt8(ascii: "}")) else { return nil }
        break
      }
      skipWhitespace()
      let required = Member.device.rawValue | Member.time.rawValue | Member.lat.rawValue
        | Member.lon.rawValue
      guard p == bytes.count, seen & required == required else { return nil }
      return LocationFix(
        device: device, time: time, latitude: latitude, longitude: longitude,
        accuracy: accuracy, speed: speed, course: course)
    }
  }
}
