import FenceEngine

/// Reads fixes from GPX 1.1 `trk`/`trkseg`/`trkpt` elements with a small streaming XML scanner.
///
/// Foundation's `XMLParser` would pull in FoundationXML (and libxml2) on Linux for a format
/// this simple, so the scanner here reads bytes as they come: start and end tags with their
/// attributes, text with the five predefined entities and numeric character references, CDATA
/// sections; comments, processing instructions and the DOCTYPE are skipped. It does not
/// validate the document beyond what it needs.
///
/// - The device of a point is its track's `<name>` (which GPX places before the segments), else
///   ``TrackReadOptions/device``, else the file name without its extensions.
/// - `<time>` is required (RFC 3339). Speed and course are taken from any `speed` and `course`
///   element inside the point, whatever its namespace prefix: GPX 1.0's `<speed>`/`<course>`,
///   `<extensions><speed>`, Garmin's `gpxtpx:speed`/`gpxtpx:course`; speed is in m/s.
final class GPXTrackParser: TrackParser {
  private let input: ByteInput
  private let fallbackDevice: String
  /// Local names of the open elements.
  private var stack: [String] = []
  /// Text of the current element, at most ``maximumTextLength`` bytes (the values read are
  /// short; a longer text is cut, which makes a time or number invalid and a name shorter).
  private var text: [UInt8] = []
  /// The element or attribute name being read, reused from tag to tag.
  private var nameBytes: [UInt8] = []
  private static let maximumTextLength = 1 << 16
  private var trackName: String?
  /// The local name of the document's first element, once read: it must be `gpx`.
  private var rootName: String?
  // The point being read.
  private var pointLine = 0
  private var pointLatitude: [UInt8]?
  private var pointLongitude: [UInt8]?
  private var pointTime: [UInt8]?
  private var pointSpeed: [UInt8]?
  private var pointCourse: [UInt8]?

  init(input: ByteInput, options: TrackReadOptions) {
    self.input = input
    self.fallbackDevice = options.device ?? baseName(of: input.path)
  }

  private func byte() throws(TrackReadError) -> UInt8? {
    do { return try input.nextByte() } catch { throw error.trackReadError }
  }

  private func xmlError(_ reason: String) -> TrackReadError {
    TrackReadError(file: input.path, line: input.lineNumber, reason: "malformed XML: \(reason)")
  }

  func next(_ log: inout IssueLog) throws(TrackReadError) -> LocationFix? {
    while let b = try byte() {
      if b != UInt8(ascii: "<") {
        if b == UInt8(ascii: "&") {
          try appendEntity()
        } else if text.count < Self.maximumTextLength {
          text.append(b)
        }
        continue
      }
      guard let first = try byte() else { throw xmlError("unexpected end of input after '<'") }
      switch first {
      case UInt8(ascii: "?"):
        try skip(past: Array("?>".utf8))
      case UInt8(ascii: "!"):
        try markupDeclaration()
      case UInt8(ascii: "/"):
        let name = try endTag()
        if let fix = try close(name, &log) { return fix }
      default:
        let selfClosed = try startTag(first: first)
        if let rootName, rootName != "gpx" {
          throw TrackReadError(
            file: input.path, line: input.lineNumber,
            reason: "not a GPX document: the first element is <\(rootName)>, expected <gpx>")
        }
        if let selfClosed, let fix = try close(selfClosed, &log) { return fix }
      }
    }
    // The end of the input: a document cut short must not read as a shorter track.
    guard rootName != nil else {
      throw TrackReadError(
        file: input.path, line: input.lineNumber,
        reason: "not a GPX document: no <gpx> element (is the file in another format?)")
    }
    if !stack.isEmpty {
      throw xmlError(
        "unexpected end of input inside <\(stack.joined(separator: "> <"))> (the file is truncated)")
    }
    return nil
  }

  // MARK: Elements

  private func open(_ name: String, attributes: [(String, [UInt8])]) {
    text.removeAll(keepingCapacity: true)
    if rootName == nil { rootName = name }
    switch name {
    case "trk":
      trackName = nil
    case "trkpt":
      pointLine = input.lineNumber
      pointLatitude = attributes.first { $0.0 == "lat" }?.1
      pointLongitude = attributes.first { $0.0 == "lon" }?.1
      pointTime = nil
      pointSpeed = nil
      pointCourse = nil
    default:
      break
    }
  }

  private func close(_ name: String, _ log: inout IssueLog) throws(TrackReadError) -> LocationFix? {
    guard let index = stack.lastIndex(of: name) else {
      throw xmlError("end tag </\(name)> without a start tag")
    }
    stack.removeSubrange(index...)
    let parent = stack.last
    defer { text.removeAll(keepingCapacity: true) }
    switch name {
    case "name" where parent == "trk":
      // The name is the device id of every point of the track: repairing invalid bytes would
      // merge different ids into one device.
      guard let name = String(validating: trimmed(text), as: UTF8.self) else {
        throw xmlError("the track <name> is not valid UTF-8")
      }
      trackName = name
    case "time" where parent == "trkpt":
      pointTime = trimmed(text)
    case "speed" where stack.contains("trkpt"):
      pointSpeed = trimmed(text)
    case "course" where stack.contains("trkpt"):
      pointCourse = trimmed(text)
    case "trkpt":
      return try point(&log)
    default:
      break
    }
    return nil
  }

  private func point(_ log: inout IssueLog) throws(TrackReadError) -> LocationFix? {
    /// `(true, nil)` when absent, `(false, nil)` when not a number.
    func number(_ bytes: [UInt8]?) -> (isValid: Bool, value: Double?) {
      guard let bytes else { return (true, nil) }
      let value = bytes.withUnsafeBufferPointer { DecimalNumber.parse($0) }
      return (value != nil, value)
    }
    guard let latitudeBytes = pointLatitude,
      let latitude = latitudeBytes.withUnsafeBufferPointer({ DecimalNumber.parse($0) })
    else {
      try log.skip(line: pointLine, "trkpt: attribute \"lat\": expected a latitude in degrees, got \(describe(pointLatitude))")
      return nil
    }
    guard let longitudeBytes = pointLongitude,
      let longitude = longitudeBytes.withUnsafeBufferPointer({ DecimalNumber.parse($0) })
    else {
      try log.skip(line: pointLine, "trkpt: attribute \"lon\": expected a longitude in degrees, got \(describe(pointLongitude))")
      return nil
    }
    guard let timeBytes = pointTime,
      let time = timeBytes.withUnsafeBufferPointer({ TimestampParser.parse($0) })
    else {
      try log.skip(line: pointLine, "trkpt: <time>: expected an RFC 3339 time, got \(describe(pointTime))")
      return nil
    }
    let speed = number(pointSpeed)
    guard speed.isValid else {
      try log.skip(line: pointLine, "trkpt: <speed>: expected metres per second, got \(describe(pointSpeed))")
      return nil
    }
    let course = number(pointCourse)
    guard course.isValid else {
      try log.skip(line: pointLine, "trkpt: <course>: expected degrees, got \(describe(pointCourse))")
      return nil
    }
    let device = trackName.flatMap { $0.isEmpty ? nil : $0 } ?? fallbackDevice
    return LocationFix(
      device: device, time: time, latitude: latitude, longitude: longitude, speed: speed.value,
      course: course.value)
  }

  private func describe(_ bytes: [UInt8]?) -> String {
    guard let bytes else { return "nothing" }
    return bytes.withUnsafeBufferPointer { quotedForMessage($0) }
  }

  private func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    var start = 0
    var end = bytes.count
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    return Array(bytes[start..<end])
  }

  // MARK: Scanner

  @inline(__always)
  private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

  private func isNameByte(_ b: UInt8) -> Bool {
    !isSpace(b) && b != UInt8(ascii: ">") && b != UInt8(ascii: "/") && b != UInt8(ascii: "=")
  }

  /// The local name of a qualified name (`gpxtpx:speed` gives `speed`).
  private func localName(_ bytes: [UInt8]) -> String {
    let start = bytes.lastIndex(of: UInt8(ascii: ":")).map { $0 + 1 } ?? 0
    return String(decoding: bytes[start...], as: UTF8.self)
  }

  private func skip(past terminator: [UInt8]) throws(TrackReadError) {
    var matched = 0
    while let b = try byte() {
      if b == terminator[matched] {
        matched += 1
        if matched == terminator.count { return }
      } else {
        matched = b == terminator[0] ? 1 : 0
      }
    }
    throw xmlError("unexpected end of input: expected \"\(String(decoding: terminator, as: UTF8.self))\"")
  }

  /// `<!--…-->`, `<![CDATA[…]]>` (its text is kept) or `<!DOCTYPE…>`.
  private func markupDeclaration() throws(TrackReadError) {
    var head: [UInt8] = []
    while head.count < 7, let b = try byte() {
      head.append(b)
      if head == Array("--".utf8) {
        try skip(past: Array("-->".utf8))
        return
      }
      if head == Array("[CDATA[".utf8) {
        var matched = 0
        let end = Array("]]>".utf8)
        var content: [UInt8] = []
        while let c = try byte() {
          if content.count < Self.maximumTextLength { content.append(c) }
          if c == end[matched] {
            matched += 1
            if matched == 3 {
              text.append(contentsOf: content.dropLast(content.count < Self.maximumTextLength ? 3 : 0))
              return
            }
          } else {
            matched = c == end[0] ? 1 : 0
          }
        }
        throw xmlError("unterminated CDATA section")
      }
      if b == UInt8(ascii: ">") { return }
    }
    // A DOCTYPE or other declaration: skip to its '>', over an internal subset in brackets.
    var depth = head.filter { $0 == UInt8(ascii: "[") }.count
    while let b = try byte() {
      if b == UInt8(ascii: "[") { depth += 1 }
      if b == UInt8(ascii: "]") { depth -= 1 }
      if b == UInt8(ascii: ">") && depth <= 0 { return }
    }
    throw xmlError("unterminated declaration")
  }

  private func endTag() throws(TrackReadError) -> String {
    nameBytes.removeAll(keepingCapacity: true)
    while let b = try byte() {
      if b == UInt8(ascii: ">") { return localName(nameBytes) }
      if !isSpace(b) { nameBytes.append(b) }
    }
    throw xmlError("unterminated end tag")
  }

  /// Reads a start tag after its first name byte and opens the element; returns its name when
  /// the tag closes itself (`<trkpt …/>`), so the caller closes it too.
  private func startTag(first: UInt8) throws(TrackReadError) -> String? {
    nameBytes.removeAll(keepingCapacity: true)
    nameBytes.append(first)
    var attributes: [(String, [UInt8])] = []
    var b = try byte()
    while let c = b, isNameByte(c) {
      nameBytes.append(c)
      b = try byte()
    }
    let elementName = localName(nameBytes)
    while true {
      guard var c = b else { throw xmlError("unterminated start tag <\(elementName)") }
      if isSpace(c) {
        b = try byte()
        continue
      }
      if c == UInt8(ascii: ">") {
        stack.append(elementName)
        open(elementName, attributes: attributes)
        return nil
      }
      if c == UInt8(ascii: "/") {
        guard try byte() == UInt8(ascii: ">") else { throw xmlError("expected '>' after '/' in <\(elementName)") }
        stack.append(elementName)
        open(elementName, attributes: attributes)
        return elementName
      }
      // Attribute name.
      nameBytes.removeAll(keepingCapacity: true)
      while isNameByte(c) {
        nameBytes.append(c)
        guard let n = try byte() else { throw xmlError("unterminated start tag <\(elementName)") }
        c = n
      }
      while isSpace(c) {
        guard let n = try byte() else { throw xmlError("unterminated start tag <\(elementName)") }
        c = n
      }
      guard c == UInt8(ascii: "=") else {
        throw xmlError("expected '=' after attribute \(String(decoding: nameBytes, as: UTF8.self)) in <\(elementName)>")
      }
      var quote = try byte()
      while let q = quote, isSpace(q) { quote = try byte() }
      guard let q = quote, q == 0x22 || q == 0x27 else {
        throw xmlError("expected a quoted attribute value in <\(elementName)>")
      }
      let saved = text
      text.removeAll(keepingCapacity: true)
      while true {
        guard let v = try byte() else { throw xmlError("unterminated attribute value in <\(elementName)>") }
        if v == q { break }
        if v == UInt8(ascii: "&") {
          try appendEntity()
        } else if text.count < Self.maximumTextLength {
          text.append(v)
        }
      }
      attributes.append((localName(nameBytes), trimmed(text)))
      text = saved
      b = try byte()
    }
  }

  /// Decodes an entity or character reference after `&` into `text`.
  private func appendEntity() throws(TrackReadError) {
    var name: [UInt8] = []
    while let b = try byte() {
      if b == UInt8(ascii: ";") {
        let entity = String(decoding: name, as: UTF8.self)
        switch entity {
        case "amp": text.append(UInt8(ascii: "&"))
        case "lt": text.append(UInt8(ascii: "<"))
        case "gt": text.append(UInt8(ascii: ">"))
        case "quot": text.append(0x22)
        case "apos": text.append(0x27)
        default:
          var value: UInt32?
          if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
            value = UInt32(entity.dropFirst(2), radix: 16)
          } else if entity.hasPrefix("#") {
            value = UInt32(entity.dropFirst())
          }
          guard let value, let scalar = Unicode.Scalar(value) else {
            throw xmlError("unknown entity &\(entity);")
          }
          UTF8.encode(scalar) { text.append($0) }
        }
        return
      }
      name.append(b)
      if name.count > 32 { break }
    }
    throw xmlError("unterminated entity reference")
  }
}
