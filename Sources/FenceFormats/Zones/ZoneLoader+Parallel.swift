import Dispatch
import FenceEngine

extension ZoneLoading {
  /// Files with at least this many features are loaded in parts, one thread each.
  static let parallelFeatureThreshold = 2_048

  /// Threads used for a large file's features: one per processor, at most four (as for large
  /// fix batches).
  static var parallelParts: Int { FixBatchReader.parallelParts }

  /// Loads the features in `features` (tape nodes, in file order) in consecutive parts, one
  /// thread each, then joins the parts in file order into this loading's drafts.
  ///
  /// Each part reads its features exactly as ``loadFeature(_:index:)`` does (shapes built and
  /// validated, GEOS with its own context), into drafts of its own. Joining them gives the
  /// drafts that reading every feature in order gives: zones in order of first appearance, their
  /// fences and GEOLINEs in file order, custom data keys in the order first given, each setting
  /// and custom data key with its first source.
  ///
  /// - Returns: `false`, changing nothing, when any part met an error or the parts conflict (a
  ///   fence id in two parts, a zone setting or custom data key given two values). The caller
  ///   then reads every feature in order, which finds the first fault in the file and words it
  ///   as always; a file with an error costs a second reading, a correct one none. Also `false`
  ///   when there are too few features (or `wanted` processors) for two parts.
  mutating func loadFeaturesInParallel(_ features: [Int], parts wanted: Int = Self.parallelParts)
    -> Bool
  {
    let partCount = min(wanted, max(1, features.count / (Self.parallelFeatureThreshold / 2)))
    guard partCount > 1 else { return false }
    var template = self
    template.drafts = []
    template.draftIndex = [:]
    template.fenceOwners = [:]
    template.geos = nil
    nonisolated(unsafe) let start = template
    nonisolated(unsafe) let parts = UnsafeMutableBufferPointer<ZoneLoading?>.allocate(
      capacity: partCount)
    parts.initialize(repeating: ZoneLoading?.none)
    defer { parts.deinitialize().deallocate() }
    DispatchQueue.concurrentPerform(iterations: partCount) { part in
      var loading = start
      let range = (features.count * part / partCount)..<(features.count * (part + 1) / partCount)
      loading.drafts.reserveCapacity(range.count)
      loading.draftIndex.reserveCapacity(range.count)
      loading.fenceOwners.reserveCapacity(range.count)
      for index in range {
        do {
          try loading.loadFeature(features[index], index: index)
        } catch {
          return
        }
      }
      loading.geos = nil
      parts[part] = loading
    }
    guard var joined = parts[0] else { return false }
    for part in 1..<partCount {
      guard let loading = parts[part], joined.join(loading) else { return false }
    }
    drafts = joined.drafts
    draftIndex = joined.draftIndex
    fenceOwners = joined.fenceOwners
    return true
  }

  /// Adds the drafts of a later part of the file; `false` on a conflict (the state is then of
  /// no use).
  private mutating func join(_ later: ZoneLoading) -> Bool {
    for (id, owner) in later.fenceOwners {
      guard fenceOwners.updateValue(owner, forKey: id) == nil else { return false }
    }
    for draft in later.drafts {
      guard let index = draftIndex[draft.id] else {
        draftIndex[draft.id] = drafts.count
        drafts.append(draft)
        continue
      }
      for (key, setting) in draft.settings {
        if let existing = drafts[index].settings[key] {
          guard existing.value == setting.value else { return false }
        } else {
          drafts[index].settings[key] = setting
        }
      }
      for (key, value) in draft.customData.members {
        if let existing = drafts[index].customData[key] {
          guard existing == value else { return false }
        } else {
          drafts[index].customData[key] = value
          drafts[index].customDataSources[key] = draft.customDataSources[key]
        }
      }
      drafts[index].fences += draft.fences
      drafts[index].geolines += draft.geolines
      drafts[index].hasFeatures = drafts[index].hasFeatures || draft.hasFeatures
    }
    return true
  }
}
