import FenceEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads fixes from CSV with a header row, field by field from the input buffer.
///
/// Fields follow RFC 4180: a field in double quotes may hold the delimiter, newlines and `""`
/// (a literal quote); it is unescaped in place. A `"` anywhere but at the start of a field is an
/// ordinary byte (``CSVQuoteState``), so a stray quote spoils one field, never the rest of the
/// file. Spaces and tabs around a field are ignored (tabs are kept when they are the delimiter).
/// A quoted field still open at the end of the file makes its record a row error.
/// Empty lines are skipped silently. A missing optional value (empty field) is `nil`.
final class CSVTrackParser: TrackParser {
  private let input: ByteInput
  private let delimiter: UInt8
  private let deviceColumn: Int?
  private let fixedDevice: String
  private let timeColumn: Int
  private let latitudeColumn: Int
  private let longitudeColumn: Int
  private let accuracyColumn: Int?
  private let speedColumn: Int?
  private let courseColumn: Int?
  private let speedUnit: SpeedUnit
  private let neededFields: Int
  private let names: [String]
  /// Field bounds of the current record: starts at even, ends at odd positions. Raw memory
  /// owned by this parser, so the hot loop pays no exclusivity checks or copy-on-write tests.
  private let fieldBounds: UnsafeMutablePointer<Int>
  /// The last device's bytes and string, so consecutive rows of one device share a string.
  private var lastDeviceBytes: UnsafeMutablePointer<UInt8>
  private var lastDeviceCapacity = 64
  private var lastDeviceCount = -1
  private var lastDevice = ""

  init(input: ByteInput, options: TrackReadOptions) throws(TrackReadError) {
    self.input = input
    self.delimiter = options.delimiter
    let path = input.path
    // Header: the first non-empty record.
    var header: [String] = []
    do {
      while let record = try input.nextCSVRecord(delimiter: options.delimiter) {
        var bytes = UnsafeMutableBufferPointer(rebasing: record[...])
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
          bytes = UnsafeMutableBufferPointer(rebasing: bytes[3...])  // UTF-8 byte order mark
        }
        let bounds = UnsafeMutablePointer<Int>.allocate(capacity: 2 * (bytes.count + 1))
        defer { bounds.deallocate() }
        let count = CSVTrackParser.split(bytes, delimiter: options.delimiter, limit: .max, bounds)
        header = (0..<count).map {
          String(
            decoding: UnsafeBufferPointer(rebasing: bytes[bounds[2 * $0]..<bounds[2 * $0 + 1]]),
            as: UTF8.self)
        }
        if header.count > 1 || header.first?.isEmpty == false { break }
      }
    } catch {
      throw error.trackReadError
    }
    guard !header.isEmpty else { throw TrackReadError(file: path, reason: "the file is empty: expected a header row") }
    names = header
    // Echoed in errors, so shortened: a "header" can be a whole file without line ends.
    let headerText = shortenedForMessage(header.joined(separator: String(UnicodeScalar(options.delimiter))))
    let lowered = header.map { $0.lowercased() }

    func column(_ field: String, _ override: String?, _ candidates: [String], required: Bool)
      throws(TrackReadError) -> Int?
    {
      if let override {
        guard let index = lowered.firstIndex(of: override.lowercased()) else {
          throw TrackReadError(
            file: path, line: 1,
            reason: "no column \"\(override)\" for \(field) in the header (\(headerText))")
        }
        return index
      }
      for candidate in candidates {
        if let index = lowered.firstIndex(of: candidate) { return index }
      }
      if required {
        throw TrackReadError(
          file: path, line: 1,
          reason: "no \(field) column: expected one of \(candidates.joined(separator: "|")) in the header (\(headerText))")
      }
      return nil
    }
    let columns = options.columns
    let device = try column(
      "device", columns.device, CSVColumns.deviceCandidates, required: options.device == nil)
    deviceColumn = device
    fixedDevice = options.device ?? ""
    guard let time = try column("time", columns.time, CSVColumns.timeCandidates, required: true),
      let latitude = try column("latitude", columns.latitude, CSVColumns.latitudeCandidates, required: true),
      let longitude = try column("longitude", columns.longitude, CSVColumns.longitudeCandidates, required: true)
    else { preconditionFailure("required columns are found or thrown") }
    timeColumn = time
    latitudeColumn = latitude
    longitudeColumn = longitude
    accuracyColumn = try column("accuracy", columns.accuracy, CSVColumns.accuracyCandidates, required: false)
    speedColumn = try column("speed", columns.speed, CSVColumns.speedCandidates, required: false)
    courseColumn = try column("course", columns.course, CSVColumns.courseCandidates, required: false)
    if let unit = options.speedUnit {
      speedUnit = unit
    } else if let speedColumn, lowered[speedColumn] == "sog" {
      speedUnit = .knots
    } else {
      speedUnit = .metresPerSecond
    }
    let used = [device, time, latitude, longitude, accuracyColumn, speedColumn, courseColumn]
    neededFields = used.compactMap { $0 }.max().map { $0 + 1 } ?? 0
    fieldBounds = .allocate(capacity: 2 * (neededFields + 1))
    lastDeviceBytes = .allocate(capacity: lastDeviceCapacity)
  }

  deinit {
    fieldBounds.deallocate()
    lastDeviceBytes.deallocate()
  }

  /// Splits a record into at most `limit` fields (the rest of the record is not scanned),
  /// unquoting quoted fields in place and trimming spaces; returns the number of fields.
  ///
  /// Field *k* is `record[bounds[2k]..<bounds[2k + 1]]`; `bounds` must have room for
  /// `2 * min(limit, record.count + 1)` values.
  @inline(__always)
  static func split(
    _ record: UnsafeMutableBufferPointer<UInt8>, delimiter: UInt8, limit: Int,
    _ bounds: UnsafeMutablePointer<Int>
  ) -> Int {
    var fields = 0
    let count = record.count
    var i = 0
    while true {
      // Skip leading blanks.
      while i < count, CSVQuoteState.isBlank(record[i], delimiter: delimiter) { i += 1 }
      if i < count, record[i] == 0x22 {
        // Quoted: unescape "" in place; content ends at the closing quote.
        i += 1
        let start = i
        var write = i
        while i < count {
          let byte = record[i]
          if byte == 0x22 {
            if i + 1 < count, record[i + 1] == 0x22 {
              record[write] = 0x22
              write += 1
              i += 2
              continue
            }
            i += 1
            break
          }
          record[write] = byte
          write += 1
          i += 1
        }
        bounds[2 * fields] = start
        bounds[2 * fields + 1] = write
        fields += 1
        // Skip anything up to the delimiter (blanks after the closing quote).
        while i < count, record[i] != delimiter { i += 1 }
      } else {
        let start = i
        while i < count, record[i] != delimiter { i += 1 }
        var end = i
        while end > start, CSVQuoteState.isBlank(record[end - 1], delimiter: delimiter) { end -= 1 }
        bounds[2 * fields] = start
        bounds[2 * fields + 1] = end
        fields += 1
      }
      if i >= count || fields >= limit { return fields }
      i += 1  // the delimiter
      if i == count {
        bounds[2 * fields] = i
        bounds[2 * fields + 1] = i
        return fields + 1
      }
    }
  }

  func next(_ log: inout IssueLog) throws(TrackReadError) -> LocationFix? {
    while true {
      let optionalRecord: UnsafeMutableBufferPointer<UInt8>?
      do {
        optionalRecord = try input.nextCSVRecord(delimiter: delimiter)
      } catch {
        throw error.trackReadError
      }
      guard let record = optionalRecord else { return nil }
      if record.isEmpty { continue }
      let bounds = fieldBounds
      let fieldCount = Self.split(record, delimiter: delimiter, limit: neededFields, bounds)
      if fieldCount == 1, bounds[0] == bounds[1] { continue }  // a blank line
      let line = input.recordLine
      if input.recordHasUnclosedQuote {
        try log.skip(line: line, "a quoted field is not closed before the end of the file")
        continue
      }
      guard fieldCount >= neededFields else {
        try log.skip(
          line: line,
          "expected at least \(neededFields) fields, found \(fieldCount)")
        continue
      }
      let base = UnsafePointer(record.baseAddress)
      @inline(__always) func field(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base.map { $0 + bounds[2 * column] }, count: bounds[2 * column + 1] - bounds[2 * column])
      }
      // Time.
      let timeField = field(timeColumn)
      guard let time = TimestampParser.parse(timeField) else {
        try log.skip(line: line, "column \"\(names[timeColumn])\": expected a time (RFC 3339 or epoch seconds), got \(quotedForMessage(timeField))")
        continue
      }
      let latitudeField = field(latitudeColumn)
      guard let latitude = DecimalNumber.parse(latitudeField) else {
        try log.skip(line: line, "column \"\(names[latitudeColumn])\": expected a latitude in degrees, got \(quotedForMessage(latitudeField))")
        continue
      }
      let longitudeField = field(longitudeColumn)
      guard let longitude = DecimalNumber.parse(longitudeField) else {
        try log.skip(line: line, "column \"\(names[longitudeColumn])\": expected a longitude in degrees, got \(quotedForMessage(longitudeField))")
        continue
      }
      var accuracy: Double?
      var speed: Double?
      var course: Double?
      if let column = accuracyColumn {
        let f = field(column)
        if !f.isEmpty {
          guard let value = DecimalNumber.parse(f) else {
            try log.skip(line: line, "column \"\(names[column])\": expected an accuracy in metres, got \(quotedForMessage(f))")
            continue
          }
          accuracy = value
        }
      }
      if let column = speedColumn {
        let f = field(column)
        if !f.isEmpty {
          guard let value = DecimalNumber.parse(f) else {
            try log.skip(line: line, "column \"\(names[column])\": expected a speed, got \(quotedForMessage(f))")
            continue
          }
          speed = speedUnit.toMetresPerSecond(value)
        }
      }
      if let column = courseColumn {
        let f = field(column)
        if !f.isEmpty {
          guard let value = DecimalNumber.parse(f) else {
            try log.skip(line: line, "column \"\(names[column])\": expected a course in degrees, got \(quotedForMessage(f))")
            continue
          }
          course = value
        }
      }
      let device: String
      if let column = deviceColumn {
        let f = field(column)
        guard !f.isEmpty else {
          try log.skip(line: line, "column \"\(names[column])\": the device is empty")
          continue
        }
        guard let name = deviceString(f) else {
          // Repairing the bytes would merge different ids into one device.
          try log.skip(line: line, "column \"\(names[column])\": the device id is not valid UTF-8")
          continue
        }
        device = name
      } else {
        device = fixedDevice
      }
      return LocationFix(
        device: device, time: time, latitude: latitude, longitude: longitude,
        accuracy: accuracy, speed: speed, course: course)
    }
  }

  /// The device's string, reusing the previous row's when the bytes are the same; `nil` when
  /// the bytes are not valid UTF-8.
  @inline(__always)
  private func deviceString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    let count = bytes.count
    if count == lastDeviceCount, let base = bytes.baseAddress,
      memcmp(base, lastDeviceBytes, count) == 0
    {
      return lastDevice
    }
    if count > lastDeviceCapacity {
      lastDeviceBytes.deallocate()
      lastDeviceCapacity = count
      lastDeviceBytes = .allocate(capacity: count)
    }
    guard let name = UTF8Text.string(bytes) else { return nil }
    if let base = bytes.baseAddress { lastDeviceBytes.update(from: base, count: count) }
    lastDeviceCount = count
    lastDevice = name
    return lastDevice
  }
}
