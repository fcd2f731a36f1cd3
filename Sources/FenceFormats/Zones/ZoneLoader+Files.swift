import CMemoryHints
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif
import FenceEngine

extension ZoneLoader {
  /// Loads the zones of several files, in file order, as one zone set: all of them or an error.
  ///
  /// Zone ids, and fence and GEOLINE ids, must be unique across the files as within one (the
  /// engine refuses them otherwise, without knowing the files); a repeat is a ``ZoneLoadError``
  /// on the later file that names the earlier one.
  ///
  /// - Throws: ``ZoneLoadError`` naming the file (and, for a repeat, both files).
  public static func loadZones(contentsOf paths: [String], options: ZoneLoadOptions = ZoneLoadOptions())
    throws -> [Zone]
  {
    // One file checks its own ids (and the engine checks them again): nothing to compare.
    if paths.count == 1 { return try loadZones(contentsOf: paths[0], options: options) }
    let results = loadEach(paths, options: options)
    var zones: [Zone] = []
    // Where each id was first seen: the file's index in `paths`, and the zone's in `zones`.
    var zoneFiles: [String: Int] = [:]
    var fenceOwners: [String: (file: Int, zone: Int)] = [:]
    for (fileIndex, path) in paths.enumerated() {
      // The first file in order that failed: the error reading them one by one would give.
      let loaded = try results[fileIndex].get()
      let isLast = fileIndex == paths.count - 1
      if !isLast {
        zoneFiles.reserveCapacity(zoneFiles.count + loaded.count)
        fenceOwners.reserveCapacity(fenceOwners.count + loaded.count)
      }
      for zone in loaded {
        if let first = zoneFiles[zone.id] {
          throw ZoneLoadError(
            file: path,
            message: "zone \(quoted(zone.id)) is also defined in \(paths[first]); zone ids must be unique across the zone files")
        }
        func claim(_ id: String) throws {
          if let owner = fenceOwners[id] {
            throw ZoneLoadError(
              file: path,
              message: "fence or GEOLINE \(quoted(id)) is also defined in \(paths[owner.file]) (zone \(quoted(zones[owner.zone].id))); fence and GEOLINE ids must be unique across the zone files")
          }
          // The last file's ids are only compared with the earlier files', not kept.
          if !isLast { fenceOwners[id] = (fileIndex, zones.count) }
        }
        for fence in zone.fences { try claim(fence.id) }
        for geoline in zone.geolines { try claim(geoline.id) }
        if !isLast { zoneFiles[zone.id] = fileIndex }
        zones.append(zone)
      }
    }
    return zones
  }

  /// Each file's zones or error: the other files one after the other, then the largest (by its
  /// size on disk), each read as alone (a large one in parts, one thread per processor).
  ///
  /// The largest comes last because what a load holds for a while adds up with what is already
  /// resident: a small file's repair can take tens of megabytes of GEOS work for a moment (the
  /// boroughs' coastlines through MakeValid, about 50 MB), which beside the time zones' 47 MB of
  /// text, or beside their parsed polygons, made the harbor week's peak. (The largest file was
  /// read on this thread while the others loaded on another: 126-137 MiB at the peak against
  /// about 100 read in turn, for about 0.2 s more load; decision 0017.) Memory freed by each
  /// file is given back before the next, and the caller takes the results in file order.
  static func loadEach(_ paths: [String], options: ZoneLoadOptions) -> [Result<[Zone], any Error>] {
    let sizes = paths.map { path -> Int in
      var status = stat()
      return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }
    let largest = sizes.indices.max { sizes[$0] < sizes[$1] } ?? 0
    var results = [Result<[Zone], any Error>?](repeating: nil, count: paths.count)
    for index in paths.indices where index != largest {
      results[index] = Result { try loadZones(contentsOf: paths[index], options: options) }
      fencekit_release_free_memory()
    }
    results[largest] = Result { try loadZones(contentsOf: paths[largest], options: options) }
    return results.map { $0! }
  }
}
