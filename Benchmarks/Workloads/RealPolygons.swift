import FenceEngine
import FenceFormats
import FenceGeometry
import Foundation

/// Real polygon sets, read with FenceFormats' zone loader (invalid polygons repaired by GEOS
/// MakeValid, as the loader's `repair` option does), or `nil` when the file is not there.
public enum RealPolygons {
  /// The shared data folder: `$FENCEKIT_DATA`, else `/work/shared/data`.
  public static var dataFolder: String {
    ProcessInfo.processInfo.environment["FENCEKIT_DATA"] ?? "/work/shared/data"
  }

  /// The repository's `Fixtures/` folder, found from this file's path.
  public static func fixturePath(_ name: String, filePath: String = #filePath) -> String {
    // This file is Benchmarks/Workloads/RealPolygons.swift: the root is three levels up.
    let root = filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    return "/\(root)/Fixtures/\(name)"
  }

  /// The 27,743 tz_world time-zone polygons (shared data), or `nil`.
  public static func tzWorld() -> [(name: String, shape: MultiPolygon)]? {
    load("\(dataFolder)/fences/tz-world.geojson.gz")
  }

  /// The five NYC boroughs (shared data, else the copy in `Fixtures/zones`), or `nil`.
  public static func nycBoroughs() -> [(name: String, shape: MultiPolygon)]? {
    load("\(dataFolder)/fences/nyc-boroughs.geojson")
      ?? load(fixturePath("zones/nyc-boroughs.geojson"))
  }

  /// The polygon fences of a GeoJSON file, or `nil` when it does not exist.
  ///
  /// A file that exists but does not load stops the benchmark: its numbers would be meaningless.
  public static func load(_ path: String) -> [(name: String, shape: MultiPolygon)]? {
    guard FileManager.default.fileExists(atPath: path) else {
      FileHandle.standardError.write(Data("note: \(path) not found, skipping\n".utf8))
      return nil
    }
    let zones: [Zone]
    do {
      zones = try ZoneLoader.loadZones(contentsOf: path, options: ZoneLoadOptions(repair: true))
    } catch {
      preconditionFailure("\(path) does not load: \(error)")
    }
    var shapes: [(name: String, shape: MultiPolygon)] = []
    for zone in zones {
      for fence in zone.fences {
        if case .polygon(let shape) = fence.area { shapes.append((fence.id, shape)) }
      }
    }
    return shapes
  }
}
