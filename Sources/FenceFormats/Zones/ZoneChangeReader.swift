import FenceEngine

/// Reads a zone change file: NDJSON, one change per line, in time order (`Docs/Formats.md`,
/// "Zone change files").
///
/// ```
/// {"time":"2020-01-01T00:00:30Z","change":"add","type":"FeatureCollection","features":[…]}
/// {"time":"2020-01-01T00:00:30Z","change":"remove","ids":["f17","f912"]}
/// {"time":1577836860,"change":"replaceAll","type":"FeatureCollection","features":[…]}
/// ```
///
/// An `add` or `replaceAll` line is itself a GeoJSON FeatureCollection (with `time` and
/// `change` as foreign members, and an optional `zones` member), read by ``ZoneLoader`` with
/// the same options as the zone files, so its zones follow the same rules and errors. Blank
/// lines are skipped. Reading is all or nothing: the first bad line throws.
public enum ZoneChangeReader {
  /// Reads every change of a file (through gzip when its name ends in `.gz`).
  ///
  /// - Throws: ``ZoneChangeError`` naming the line: not a JSON object, a missing or unknown
  ///   `change`, a bad or missing `time`, a time before the previous line's, `ids` that are not
  ///   strings; or, for the zones of an `add` or `replaceAll`, the ``ZoneLoadError`` message
  ///   (feature and property) after the line.
  public static func read(contentsOf path: String, options: ZoneLoadOptions = ZoneLoadOptions())
    throws(ZoneChangeError) -> [ZoneChange]
  {
    let bytes: [UInt8]
    do {
      bytes = try ByteInput(path: path).readAll()
    } catch {
      throw ZoneChangeError(file: path, line: 0, message: "cannot read: \(error.reason)")
    }
    return try read(bytes, file: path, options: options)
  }

  /// Reads the changes of NDJSON text held in memory; `file` names it in messages.
  public static func read(_ bytes: [UInt8], file: String, options: ZoneLoadOptions = ZoneLoadOptions())
    throws(ZoneChangeError) -> [ZoneChange]
  {
    var changes: [ZoneChange] = []
    var lineNumber = 0
    var start = 0
    while start < bytes.count {
      lineNumber += 1
      var end = start
      while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
      let line = bytes[start..<end]
      start = end + 1
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
      let change = try readLine(line, number: lineNumber, file: file, options: options)
      if let previous = changes.last, change.time < previous.time {
        throw ZoneChangeError(
          file: file, line: lineNumber,
          message: "\"time\": \(change.time) is before the previous change's \(previous.time); "
            + "changes must be in time order")
      }
      changes.append(change)
    }
    return changes
  }

  private static func readLine(
    _ line: ArraySlice<UInt8>, number: Int, file: String, options: ZoneLoadOptions
  ) throws(ZoneChangeError) -> ZoneChange {
    func fail(_ message: String) -> ZoneChangeError {
      ZoneChangeError(file: file, line: number, message: message)
    }
    let object: JSONObject
    do {
      guard case .object(let parsed) = try JSONReader.parse(line) else {
        throw fail("expected a JSON object")
      }
      object = parsed
    } catch let error as ZoneChangeError {
      throw error
    } catch {
      throw fail("not JSON: \(error)")
    }
    let time: Timestamp
    switch object["time"] {
    case .string(let text)?:
      guard let parsed = TimestampParser.parse(text) else {
        throw fail("\"time\": expected an RFC 3339 time or epoch seconds, got \(quoted(text))")
      }
      time = parsed
    case .number(let seconds)?:
      guard let parsed = TimestampParser.fromEpochNumber(seconds) else {
        throw fail("\"time\": epoch seconds out of range: \(JSONWriter.numberText(seconds))")
      }
      time = parsed
    case nil:
      throw fail("missing \"time\"")
    default:
      throw fail("\"time\": expected an RFC 3339 time or epoch seconds")
    }
    guard case .string(let kind)? = object["change"] else {
      throw fail("missing \"change\": expected \"add\", \"remove\" or \"replaceAll\"")
    }
    func zones() throws(ZoneChangeError) -> [Zone] {
      do {
        return try ZoneLoader.loadZones(from: line, options: options)
      } catch {
        throw fail("\(error)")
      }
    }
    switch kind {
    case "add":
      return ZoneChange(time: time, operation: .add(try zones()), line: number)
    case "replaceAll":
      return ZoneChange(time: time, operation: .replaceAll(try zones()), line: number)
    case "remove":
      guard case .array(let values)? = object["ids"] else {
        throw fail("\"ids\": expected an array of zone ids")
      }
      var ids: [String] = []
      ids.reserveCapacity(values.count)
      for (index, value) in values.enumerated() {
        guard case .string(let id) = value else { throw fail("\"ids\"[\(index)]: expected a zone id (a string)") }
        ids.append(id)
      }
      return ZoneChange(time: time, operation: .remove(ids), line: number)
    default:
      throw fail("\"change\": expected \"add\", \"remove\" or \"replaceAll\", got \(quoted(kind))")
    }
  }
}
