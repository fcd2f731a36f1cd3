import CMemoryHints
import FenceEngine

/// The zone drafts of one load, in order of first appearance, held in chunks of ``chunkSize``
/// drafts rather than in one array, with their ids' index.
///
/// A million drafts in one array are one 48 MB allocation, and it lives until the last draft
/// is read: while the parallel load joins a later part's drafts into the first part's table,
/// and while the zones are made from the drafts, both that array and what replaces it were
/// alive. In chunks, ``consume(_:)`` gives each chunk back as soon as its drafts are taken,
/// so those steps hold about one chunk (768 KiB) beside what they build.
///
/// The index (``index(of:)``) is an `IDSlotTable`, which reads the ids back from the drafts: 8
/// bytes a bucket where a `[String: Int]` took 24 (a copy of the id beside the index), about 40
/// MB less at a million zones' parse.
struct DraftList: RandomAccessCollection {
  typealias Draft = ZoneLoading.Draft

  /// Drafts per chunk (a power of two: the index splits by shift and mask).
  static let chunkShift = 14
  static let chunkSize = 1 << chunkShift

  private var chunks: [[Draft]] = []
  /// The number of drafts.
  private(set) var count = 0
  /// Each draft's index by its id (dropped by ``dropIndex()``).
  private var ids = IDSlotTable()
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

  /// The id of draft `index`, read in place.
  @inline(__always)
  func id(at index: Int) -> String {
    chunks[index >> Self.chunkShift][index & (Self.chunkSize - 1)].id
  }

  /// Expects `drafts` drafts in all: later chunks are made whole, the chunk table and the
  /// index once.
  mutating func reserveCapacity(_ drafts: Int) {
    chunks.reserveCapacity((drafts + Self.chunkSize - 1) >> Self.chunkShift)
    reservesWholeChunks = drafts > Self.chunkSize
    ids.reserveCapacity(drafts)
  }

  /// The index of the draft of zone `id`, if any.
  func index(of id: String) -> Int? {
    ids.slot(of: id) { self.id(at: Int($0)) }.map(Int.init)
  }

  /// The index of the draft of zone `id`, made empty at the end when there is none (one hash
  /// either way).
  mutating func interning(_ id: String) -> Int {
    let next = count
    // The table is taken out while it reads the drafts' ids (no copy: the property is left
    // empty meanwhile).
    var table = IDSlotTable()
    swap(&table, &ids)
    let found = table.slot(interning: id, next: Int32(truncatingIfNeeded: next)) { self.id(at: Int($0)) }
    swap(&table, &ids)
    if Int(found) == next { appendChunked(Draft(id: id)) }
    return Int(found)
  }

  /// Adds `draft` at the end.
  ///
  /// - Precondition: no draft has its id.
  mutating func append(_ draft: Draft) {
    ids.insert(draft.id, slot: Int32(truncatingIfNeeded: count))
    appendChunked(draft)
  }

  /// Drops the index (nothing looks drafts up after the top-level `zones` member): at a million
  /// zones it is 10.7 MB.
  mutating func dropIndex() { ids = IDSlotTable() }

  private mutating func appendChunked(_ draft: Draft) {
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
    ids = IDSlotTable()
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
