import CMemoryHints

/// The zone drafts of one load, in file order, held in chunks of ``chunkSize`` drafts rather
/// than in one array.
///
/// A million drafts in one array are one 48 MB allocation, and it lives until the last draft
/// is read: while the parallel load joins a later part's drafts into the first part's table,
/// and while the zones are made from the drafts, both that array and what replaces it were
/// alive. In chunks, ``consume(_:)`` gives each chunk back as soon as its drafts are taken,
/// so those steps hold about one chunk (768 KiB) beside what they build.
struct DraftList: RandomAccessCollection {
  typealias Draft = ZoneLoading.Draft

  /// Drafts per chunk (a power of two: the index splits by shift and mask).
  static let chunkShift = 14
  static let chunkSize = 1 << chunkShift

  private var chunks: [[Draft]] = []
  /// The number of drafts.
  private(set) var count = 0
  /// Whether chunks after the first are made with room for ``chunkSize`` drafts at once (a
  /// load that expects many zones); a small load's one chunk grows as it fills.
  private var reservesWholeChunks = false

  init() {}

  var startIndex: Int { 0 }
  var endIndex: Int { count }

  subscript(index: Int) -> Draft {
    get { chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)] }
    _modify { yield &chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)] }
  }

  /// Expects `drafts` drafts in all: later chunks are made whole, and the chunk table once.
  mutating func reserveCapacity(_ drafts: Int) {
    chunks.reserveCapacity((drafts + Self.chunkSize - 1) >> Self.chunkShift)
    reservesWholeChunks = drafts > Self.chunkSize
  }

  mutating func append(_ draft: Draft) {
    if count & (Self.chunkSize - 1) == 0 {
      var chunk: [Draft] = []
      if reservesWholeChunks { chunk.reserveCapacity(Self.chunkSize) }
      chunks.append(chunk)
    }
    chunks[chunks.count - 1].append(draft)
    count += 1
  }

  /// Empties the list, calling `body` with each draft in order; each chunk is freed once its
  /// drafts were given. When `body` throws, the drafts not given yet are dropped.
  ///
  /// Chunks live among the fences' own small allocations, so a freed chunk stays resident
  /// until the allocator is asked to give free pages back: every ``chunksPerRelease`` chunks it
  /// is (``fencekit_release_free_memory()``).
  mutating func consume(_ body: (Draft) throws -> Void) rethrows {
    var taken = chunks
    chunks = []
    count = 0
    for k in taken.indices {
      let chunk = taken[k]
      taken[k] = []
      for draft in chunk { try body(draft) }
      if k % Self.chunksPerRelease == Self.chunksPerRelease - 1 { fencekit_release_free_memory() }
    }
  }

  /// Chunks consumed between two requests to give free pages back.
  static let chunksPerRelease = 8
}
