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
    var zones: [Zone] = []
    // Where each id was first seen: the file's index in `paths`, and the zone's in `zones`.
    var zoneFiles: [String: Int] = [:]
    var fenceOwners: [String: (file: Int, zone: Int)] = [:]
    for (fileIndex, path) in paths.enumerated() {
      let loaded = try loadZones(contentsOf: path, options: options)
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
}
