import Dispatch
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

  /// Each file's zones or error: the largest file (by its size on disk) read on this thread,
  /// the others meanwhile, one after the other, on another.
  ///
  /// A file's own load is partly serial (a compressed file's inflation, a feature whose
  /// polygons GEOS nodes for a long time), so reading the files one after the other left a
  /// processor idle: on the harbor week's four files the five boroughs' validation now overlaps
  /// the time zones' inflation. Each file is still read exactly as alone (a large one in parts,
  /// one thread per processor), and the caller takes the results in file order. (Reading every
  /// file on a thread of its own through `concurrentPerform` was slower: a large file's parts,
  /// nested in it, then ran one after the other.)
  static func loadEach(_ paths: [String], options: ZoneLoadOptions) -> [Result<[Zone], any Error>] {
    let sizes = paths.map { path -> Int in
      var status = stat()
      return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }
    let largest = sizes.indices.max { sizes[$0] < sizes[$1] } ?? 0
    nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result<[Zone], any Error>?>
      .allocate(capacity: paths.count)
    results.initialize(repeating: nil)
    defer { results.deinitialize().deallocate() }
    let others = DispatchGroup()
    DispatchQueue.global().async(group: others) {
      for index in paths.indices where index != largest {
        results[index] = Result { try loadZones(contentsOf: paths[index], options: options) }
      }
    }
    results[largest] = Result { try loadZones(contentsOf: paths[largest], options: options) }
    others.wait()
    return results.map { $0! }
  }
}
