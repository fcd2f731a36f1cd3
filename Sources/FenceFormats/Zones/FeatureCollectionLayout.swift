/// Where the features of a GeoJSON FeatureCollection lie in its bytes, found by a structural
/// scan (strings, brackets, commas) that parses nothing.
///
/// Large zone files are read feature by feature from these ranges, each feature parsed on its
/// own (``ZoneLoading/loadSplit(_:file:options:)``), instead of as one document whose parsed
/// form holds every feature at once. The scan checks only what it needs to cut the document;
/// whatever it does not understand (an escape in a top-level key, a second `features` member,
/// deep nesting, a document cut short) makes it give up, and the document is then parsed
/// whole, which reports any fault in its usual words.
struct FeatureCollectionLayout {
  /// The bytes of the `features` member's array, brackets included.
  var featuresArray: Range<Int>
  /// Each element of that array, without the whitespace around it.
  var features: [Range<Int>]

  /// Nesting beyond this depth inside a feature makes the scan give up (the whole-document
  /// parser then applies its own limit with the feature's true depth).
  static let maximumDepth = 256

  /// The layout of `bytes`, or `nil` when the scan gives up.
  init?(_ bytes: UnsafeBufferPointer<UInt8>) {
    var scanner = Scanner(bytes: bytes)
    scanner.skipWhitespace()
    guard scanner.take(UInt8(ascii: "{")) else { return nil }
    var featuresArray: Range<Int>?
    var features: [Range<Int>] = []
    scanner.skipWhitespace()
    if scanner.take(UInt8(ascii: "}")) { return nil }
    while true {
      scanner.skipWhitespace()
      guard let key = scanner.plainKey() else { return nil }
      scanner.skipWhitespace()
      guard scanner.take(UInt8(ascii: ":")) else { return nil }
      scanner.skipWhitespace()
      let isFeatures = key.elementsEqual("features".utf8)
      if isFeatures, scanner.peek == UInt8(ascii: "[") {
        guard featuresArray == nil else { return nil }
        let start = scanner.position
        scanner.position += 1
        scanner.skipWhitespace()
        if !scanner.take(UInt8(ascii: "]")) {
          while true {
            scanner.skipWhitespace()
            let elementStart = scanner.position
            guard scanner.skipValue() else { return nil }
            features.append(elementStart..<scanner.position)
            scanner.skipWhitespace()
            if scanner.take(UInt8(ascii: ",")) { continue }
            guard scanner.take(UInt8(ascii: "]")) else { return nil }
            break
          }
        }
        featuresArray = start..<scanner.position
      } else {
        guard !isFeatures || featuresArray == nil, scanner.skipValue() else { return nil }
      }
      scanner.skipWhitespace()
      if scanner.take(UInt8(ascii: ",")) { continue }
      guard scanner.take(UInt8(ascii: "}")) else { return nil }
      break
    }
    scanner.skipWhitespace()
    guard scanner.position == bytes.count, let featuresArray else { return nil }
    self.featuresArray = featuresArray
    self.features = features
  }

  /// A cursor over the bytes.
  private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func take(_ byte: UInt8) -> Bool {
      guard position < bytes.count, bytes[position] == byte else { return false }
      position += 1
      return true
    }

    mutating func skipWhitespace() {
      while position < bytes.count {
        switch bytes[position] {
        case 0x20, 0x0A, 0x0D, 0x09: position += 1
        default: return
        }
      }
    }

    /// A key without escapes (its bytes between the quotes), past its closing quote.
    mutating func plainKey() -> UnsafeBufferPointer<UInt8>? {
      guard take(UInt8(ascii: "\"")) else { return nil }
      let start = position
      while position < bytes.count {
        switch bytes[position] {
        case UInt8(ascii: "\""):
          let key = UnsafeBufferPointer(rebasing: bytes[start..<position])
          position += 1
          return key
        case UInt8(ascii: "\\"), 0..<0x20: return nil
        default: position += 1
        }
      }
      return nil
    }

    /// Skips a string, from its opening quote to past its closing one.
    mutating func skipString() -> Bool {
      position += 1
      while position < bytes.count {
        switch bytes[position] {
        case UInt8(ascii: "\""):
          position += 1
          return true
        case UInt8(ascii: "\\"): position += 2
        default: position += 1
        }
      }
      return false
    }

    /// Skips one value: a string, an object or array (to its matching bracket, strings
    /// inside skipped as strings), or a scalar (to the next delimiter). Brackets are only
    /// counted, not matched by kind: the value is parsed properly afterwards.
    mutating func skipValue() -> Bool {
      guard let first = peek else { return false }
      switch first {
      case UInt8(ascii: "\""):
        return skipString()
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        var depth = 0
        while position < bytes.count {
          switch bytes[position] {
          case UInt8(ascii: "\""):
            guard skipString() else { return false }
            continue
          case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            guard depth <= FeatureCollectionLayout.maximumDepth else { return false }
          case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            if depth == 0 {
              position += 1
              return true
            }
          default: break
          }
          position += 1
        }
        return false
      case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"):
        return false
      default:
        let start = position
        while position < bytes.count {
          switch bytes[position] {
          case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09:
            return position > start
          default: position += 1
          }
        }
        return position > start
      }
    }
  }
}
