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
    var zones: [Zone] = []
    var zoneFiles: [String: String] = [:]
    var fenceOwners: [String: (file: String, zone: String)] = [:]
    for path in paths {
      let loaded = try loadZones(contentsOf: path, options: options)
      for zone in loaded {
        if let first = zoneFiles[zone.id] {
          throw ZoneLoadError(
            file: path,
            message: "zone \(quoted(zone.id)) is also defined in \(first); zone ids must be unique across the zone files")
        }
        zoneFiles[zone.id] = path
        for id in zone.fences.map(\.id) + zone.geolines.map(\.id) {
          if let owner = fenceOwners[id] {
            throw ZoneLoadError(
              file: path,
              message: "fence or GEOLINE \(quoted(id)) is also defined in \(owner.file) (zone \(quoted(owner.zone))); fence and GEOLINE ids must be unique across the zone files")
          }
          fenceOwners[id] = (path, zone.id)
        }
      }
      zones += loaded
    }
    return zones
  }
}
