import CMemoryHints
import Dispatch
import FenceEngine

extension ZoneLoading {
  /// Files with at least this many features are loaded in parts, one thread each.
  static let parallelFeatureThreshold = 2_048

  /// Threads used for a large file's features: one per processor, at most four (as for large
  /// fix batches).
  static var parallelParts: Int { FixBatchReader.parallelParts }

  /// Loads features `0..<count` (in file order; `load` reads feature `index` into the loading
  /// it is given) in consecutive parts, one thread each, then joins the parts in file order
  /// into this loading's drafts.
  ///
  /// With `release`, each part gives back its features' pages as it parses them
  /// (``PageRelease``).
  ///
  /// Each part reads its features exactly as ``loadFeature(_:index:)`` does (shapes built and
  /// validated, GEOS with its own context), into drafts of its own. Joining them gives the
  /// drafts that reading every feature in order gives: zones in order of first appearance, their
  /// fences and GEOLINEs in file order, custom data keys in the order first given, each setting
  /// and custom data key with its first source.
  ///
  /// After it, the fence ids seen are forgotten (``fenceOwners`` is empty): only features read
  /// later would need them.
  ///
  /// - Returns: `false`, changing nothing, when any part met an error or the parts conflict (a
  ///   fence id in two parts, a zone setting or custom data key given two values). The caller
  ///   then reads every feature in order, which finds the first fault in the file and words it
  ///   as always; a file with an error costs a second reading, a correct one none. Also `false`
  ///   when there are too few features (or `wanted` processors) for two parts.
  mutating func loadFeaturesInParallel(
    count: Int, parts wanted: Int = Self.parallelParts, release: PageRelease? = nil,
    load: @escaping @Sendable (inout ZoneLoading, Int) throws -> Void
  ) -> Bool {
    let partCount = min(wanted, max(1, count / (Self.parallelFeatureThreshold / 2)))
    guard partCount > 1 else { return false }
    var template = self
    template.drafts = DraftList()
    template.fenceOwners = [:]
    template.geos = nil
    nonisolated(unsafe) let start = template
    nonisolated(unsafe) let parts = UnsafeMutableBufferPointer<ZoneLoading?>.allocate(
      capacity: partCount)
    parts.initialize(repeating: ZoneLoading?.none)
    defer { parts.deinitialize().deallocate() }
    DispatchQueue.concurrentPerform(iterations: partCount) { part in
      var loading = start
      let range = (count * part / partCount)..<(count * (part + 1) / partCount)
      // The first part's zone id table gets room for every feature: the later parts are
      // joined into it in place (pages not written cost nothing). Drafts are in chunks
      // (``DraftList``), each later part's freed as it is joined.
      loading.reserveCapacity(
        zones: part == 0 ? count : range.count, fences: range.count)
      // Where this part's pages not given back yet start (nil without `release`).
      var unreleased = range.first.flatMap { release?.start(ofFeature: $0) }
      for index in range {
        do {
          try load(&loading, index)
        } catch {
          return
        }
        if let release, let from = unreleased,
          (index - range.lowerBound + 1) % PageRelease.interval == 0
        {
          unreleased = release.release(from: from, through: index)
          fencekit_release_free_memory()
        }
      }
      if let release, let from = unreleased, let last = range.last {
        _ = release.release(from: from, through: last)
      }
      loading.geos = nil
      parts[part] = loading
    }
    // Each part is taken out of `parts` as it is joined, so that the joined tables are not
    // shared (appending to shared tables copied them: a million circles peaked 112 MB higher
    // while joining) and each later part is freed once joined.
    guard var joined = parts[0] else { return false }
    parts[0] = nil
    // A fence or GEOLINE id of a later part must be in no earlier part: looked up in each
    // earlier part's table, not inserted into one joined table (the ids are not needed after
    // the features).
    var earlierOwners = [joined.fenceOwners]
    joined.fenceOwners = [:]
    for part in 1..<partCount {
      guard var loading = parts[part] else { return false }
      parts[part] = nil
      // An id claimed by a zone of its own id (`Draft.selfFeature`) conflicts with the same id
      // in an earlier part's table or claimed by the same zone's earlier draft (`joinDrafts`).
      for id in loading.fenceOwners.keys {
        for owners in earlierOwners where owners[id] != nil { return false }
        if let zone = joined.drafts.index(of: id), joined.drafts[zone].selfFeature >= 0 { return false }
      }
      for draft in loading.drafts where draft.selfFeature >= 0 {
        for owners in earlierOwners where owners[draft.id] != nil { return false }
      }
      if part < partCount - 1 { earlierOwners.append(loading.fenceOwners) }
      loading.fenceOwners = [:]
      // The join looks the part's zones up in the joined index only: the part's own index
      // goes before the joined tables grow.
      loading.drafts.dropIndex()
      guard (try? joined.joinDrafts(&loading.drafts)) != nil else { return false }
    }
    swap(&drafts, &joined.drafts)
    fenceOwners = [:]
    return true
  }

  /// Adds the drafts of a later part of the file, through the same ``set(_:_:zone:source:error:)``
  /// and ``merge(_:zone:source:error:)`` that reading in order uses, emptying `later` chunk by
  /// chunk as it goes.
  ///
  /// - Throws: on a conflict (the state is then of no use; the caller reads in order, which
  ///   words the conflict).
  private mutating func joinDrafts(_ later: inout DraftList) throws {
    let conflict = ZoneLoadError(file: file, message: "parts of the file conflict")
    drafts.reserveCapacity(drafts.count + later.count)
    try later.consume { draft in
      guard let index = drafts.index(of: draft.id) else {
        drafts.append(draft)
        return
      }
      for (key, setting) in draft.settings {
        try set(key, setting.value, zone: index, source: setting.source) { _ in conflict }
      }
      for (key, value) in draft.customData.members {
        guard let source = draft.customDataSources[key] else { throw conflict }
        try merge(JSONObject([(key: key, value: value)]), zone: index, source: source) { _, _ in
          conflict
        }
      }
      if draft.selfFeature >= 0 {
        guard drafts[index].selfFeature < 0 else { throw conflict }
        drafts[index].selfFeature = draft.selfFeature
      }
      drafts[index].fences += draft.fences
      drafts[index].appendGeolines(draft.geolines)
      drafts[index].hasFeatures = drafts[index].hasFeatures || draft.hasFeatures
    }
  }
}
