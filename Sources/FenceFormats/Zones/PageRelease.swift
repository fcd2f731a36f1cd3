import CMemoryHints

/// Gives back the pages of a document's features once they are parsed: each part of a parallel
/// load, every ``interval`` features, hands back the whole pages between where it last did and
/// the end of its last parsed feature. A page shared with the next part (or the document's
/// rest) is kept. A large file's text (130 MB of a million circles, 490 MB of a million
/// polygons) then no longer sits beside every parsed feature at the load's peak.
struct PageRelease: @unchecked Sendable {
  /// The document, owned by the caller, which never reads it again after a successful load.
  let document: UnsafeBufferPointer<UInt8>
  let features: [Range<Int>]

  /// Features parsed between two releases.
  static let interval = 1_024

  /// Where the bytes of feature `index` start: the first `from` of a part.
  func start(ofFeature index: Int) -> UnsafeRawPointer {
    UnsafeRawPointer(document.baseAddress! + features[index].lowerBound)
  }

  /// Gives back the whole pages from `from` to the end of feature `index`; returns the `from`
  /// of the next call.
  func release(from: UnsafeRawPointer, through index: Int) -> UnsafeRawPointer {
    UnsafeRawPointer(
      fencekit_release_pages(from, document.baseAddress! + features[index].upperBound))
  }
}
