import FenceEngine

extension ZoneLoading {
  /// Documents at least this large are read feature by feature (``loadSplit(_:file:options:)``).
  static let splitThreshold = 1 << 20

  /// The zones of a FeatureCollection read feature by feature: the document's
  /// ``FeatureCollectionLayout`` cuts out each feature, which is parsed on its own (on several
  /// threads when there are many) and read by ``loadFeature(_:index:)``; the rest of the
  /// document is parsed with `[]` in place of the features.
  ///
  /// The parsed form of a whole document holds every feature at once (several times the
  /// file's size for a million circles); here only the features being read are held. The
  /// zones are the same as reading the whole document.
  ///
  /// With `releasingParsed`, the document's pages are given back to the system as the parts
  /// parse their features (``PageRelease``): the document then reads as zeros where it was
  /// parsed, and a caller that gets `nil` must read it again.
  ///
  /// - Returns: `nil` when the layout scan gives up or anything is wrong (a JSON error in a
  ///   feature, a bad feature, a conflict): the caller then reads the whole document, which
  ///   reports the first fault in its usual words.
  static func loadSplit(
    _ bytes: UnsafeBufferPointer<UInt8>, file: String?, options: ZoneLoadOptions,
    releasingParsed: Bool = false
  ) -> [Zone]? {
    guard let layout = FeatureCollectionLayout(bytes) else { return nil }
    var outline: [UInt8] = []
    outline.reserveCapacity(bytes.count - layout.featuresArray.count + 2)
    outline.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<layout.featuresArray.lowerBound]))
    outline.append(contentsOf: "[]".utf8)
    outline.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[layout.featuresArray.upperBound...]))
    guard let outlineTape = try? JSONReader.tape(outline),
      var loading = try? ZoneLoading(tape: outlineTape, file: file, options: options),
      (try? loading.checkCollection()) != nil
    else { return nil }
    let features = layout.features
    nonisolated(unsafe) let document = bytes
    let load: @Sendable (inout ZoneLoading, Int) throws -> Void = { loading, index in
      loading.tape = try JSONReader.tape(UnsafeBufferPointer(rebasing: document[features[index]]))
      try loading.loadFeature(0, index: index)
    }
    let release = releasingParsed ? PageRelease(document: bytes, features: features) : nil
    if features.count < parallelFeatureThreshold
      || !loading.loadFeaturesInParallel(count: features.count, release: release, load: load)
    {
      loading.reserveCapacity(features: features.count)
      do {
        for index in features.indices { try load(&loading, index) }
      } catch {
        return nil
      }
    }
    loading.tape = outlineTape
    return try? loading.finish()
  }
}
