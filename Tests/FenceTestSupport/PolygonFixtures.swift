import FenceGeometry
import Foundation

/// A polygon fence read from a GeoJSON fixture: its name and its area.
public struct PolygonFeature: Sendable, CustomStringConvertible {
  /// The feature's `id` followed by its name property, such as `"tz-21 America/Phoenix"`.
  public let name: String
  /// The feature's geometry (a Polygon becomes a one-part multipolygon).
  public let shape: MultiPolygon

  public var description: String { name }
}

/// A fixture file that could not be read, with the file and what went wrong.
public struct PolygonFixtureError: Error, CustomStringConvertible {
  public let path: String
  public let message: String
  public var description: String { "\(path): \(message)" }
}

/// A small GeoJSON reader for the polygon fixtures and the shared real data sets.
///
/// Reads a FeatureCollection and keeps its Polygon and MultiPolygon features; other geometry
/// types are skipped. Coordinates are `[longitude, latitude]` as in RFC 7946. Files ending in
/// `.gz` are decompressed with `gzip -dc`. Meant for tests: it is simple, not fast.
public enum PolygonFixtures {
  /// The polygon features of a GeoJSON file, in file order.
  ///
  /// - Parameters:
  ///   - path: a `.geojson` file, or a gzip-compressed `.geojson.gz`.
  ///   - nameProperty: the property appended to the feature id to name it (`"name"`, `"tzid"`).
  ///   - including: which features to convert, by index in the file (all by default); parsing
  ///     still reads the whole file, but skipping conversion saves most of the time.
  public static func read(
    path: String, nameProperty: String, including: (Int) -> Bool = { _ in true }
  ) throws -> [PolygonFeature] {
    let data: Data
    if path.hasSuffix(".gz") {
      data = try gunzip(path)
    } else {
      guard let contents = FileManager.default.contents(atPath: path) else {
        throw PolygonFixtureError(path: path, message: "cannot read the file")
      }
      data = contents
    }
    do {
      return try read(data: data, nameProperty: nameProperty, including: including)
    } catch let error as PolygonFixtureError {
      throw PolygonFixtureError(path: path, message: error.message)
    }
  }

  /// The polygon features of a GeoJSON FeatureCollection held in memory.
  public static func read(
    data: Data, nameProperty: String, including: (Int) -> Bool = { _ in true }
  ) throws -> [PolygonFeature] {
    // Parse only the features asked for: locating them is far cheaper than parsing them all.
    let features: [Any]
    if let ranges = featureRanges(data) {
      features = try ranges.enumerated().map { index, range in
        including(index) ? try JSONSerialization.jsonObject(with: data[range]) : NSNull()
      }
    } else {
      let root = try JSONSerialization.jsonObject(with: data)
      guard let collection = root as? [String: Any], let all = collection["features"] as? [Any]
      else {
        throw PolygonFixtureError(path: "<data>", message: "not a GeoJSON FeatureCollection")
      }
      features = all
    }
    var result: [PolygonFeature] = []
    for (index, item) in features.enumerated() where including(index) {
      guard let feature = item as? [String: Any],
        let geometry = feature["geometry"] as? [String: Any],
        let type = geometry["type"] as? String
      else {
        throw PolygonFixtureError(path: "<data>", message: "feature \(index) has no geometry type")
      }
      let properties = feature["properties"] as? [String: Any] ?? [:]
      let name = [feature["id"], properties[nameProperty]]
        .compactMap { $0.map { "\($0)" } }
        .joined(separator: " ")
      let label = name.isEmpty ? "feature \(index)" : name
      func fail(_ message: String) -> PolygonFixtureError {
        PolygonFixtureError(path: "<data>", message: "feature \(index) (\(label)): \(message)")
      }
      let polygons: [Any]
      switch type {
      case "Polygon": polygons = [geometry["coordinates"] as Any]
      case "MultiPolygon":
        guard let parts = geometry["coordinates"] as? [Any] else {
          throw fail("MultiPolygon coordinates are not an array")
        }
        polygons = parts
      default: continue
      }
      var parts: [Polygon] = []
      for polygon in polygons {
        guard let rings = polygon as? [Any], !rings.isEmpty else {
          throw fail("a polygon is not a non-empty array of rings")
        }
        var coordinates: [[Coordinate]] = []
        for ring in rings {
          guard let positions = ring as? [Any] else { throw fail("a ring is not an array") }
          var ringCoordinates: [Coordinate] = []
          ringCoordinates.reserveCapacity(positions.count)
          for position in positions {
            guard let pair = position as? [Any], pair.count >= 2,
              let longitude = (pair[0] as? NSNumber)?.doubleValue,
              let latitude = (pair[1] as? NSNumber)?.doubleValue
            else { throw fail("a position is not [longitude, latitude]") }
            ringCoordinates.append(
              try Coordinate(latitude: latitude, longitude: longitude, shape: label))
          }
          coordinates.append(ringCoordinates)
        }
        parts.append(
          try Polygon(exterior: coordinates[0], holes: Array(coordinates.dropFirst()), name: label))
      }
      result.append(PolygonFeature(name: label, shape: try MultiPolygon(parts, name: label)))
    }
    return result
  }

  /// The byte ranges of the elements of the top-level `"features"` array, found by tracking
  /// nesting depth and strings; nil when the data does not look like a FeatureCollection.
  static func featureRanges(_ data: Data) -> [Range<Data.Index>]? {
    data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [Range<Data.Index>]? in
      let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
      let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
      let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
      let key = Array("features".utf8)
      var ranges: [Range<Data.Index>] = []
      var depth = 0
      var inFeatures = false
      var lastString = 0..<0
      var elementStart = 0
      var i = 0
      while i < bytes.count {
        let c = bytes[i]
        if c == quote {
          // Skip the string, escapes included.
          let start = i + 1
          i += 1
          while i < bytes.count, bytes[i] != quote {
            i += bytes[i] == backslash ? 2 : 1
          }
          lastString = start..<min(i, bytes.count)
        } else if c == openBrace || c == openBracket {
          if inFeatures, depth == 2, c == openBrace {
            elementStart = i
          } else if c == openBracket, depth == 1, !inFeatures,
            lastString.count == key.count, bytes[lastString].elementsEqual(key)
          {
            inFeatures = true
          }
          depth += 1
        } else if c == closeBrace || c == closeBracket {
          depth -= 1
          if inFeatures, depth == 2, c == closeBrace {
            ranges.append((data.startIndex + elementStart)..<(data.startIndex + i + 1))
          } else if inFeatures, depth == 1 {
            return ranges
          }
        }
        i += 1
      }
      return nil
    }
  }

  /// The decompressed contents of a gzip file, read through `gzip -dc`.
  private static func gunzip(_ path: String) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["gzip", "-dc", path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw PolygonFixtureError(
        path: path, message: "gzip -dc exited with status \(process.terminationStatus)")
    }
    return data
  }
}
