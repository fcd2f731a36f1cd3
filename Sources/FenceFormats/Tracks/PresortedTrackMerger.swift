import FenceEngine

/// Streams the fixes of several files that are each already in time order, merged into one
/// time order without holding them in memory (a k-way merge).
///
/// Fixes of equal time come in file order, so the result equals the stable sort of all files
/// whenever each file is sorted. A file that goes back in time is not re-sorted: its fixes are
/// passed on as they come (the engine then rejects them as `outOfOrder` per device), and
/// ``backwardStepCount`` counts such steps.
///
/// Device names are interned as the fixes pass (``devices``, ``nextWithDeviceIndex()``), as in
/// ``FixTable``, so that a caller can resolve something per device once, not per fix.
///
/// - Complexity: O(log *k*) per fix for *k* files, plus one hash lookup of the device name.
public final class PresortedTrackMerger {
  private let readers: [TrackReader]
  /// Everything the merge changes, in one stored property: a fix's step is one access to it,
  /// checked once at run time, where a class's several properties were checked one by one
  /// (about 6 % of a streamed run's whole time).
  private var state: MergeState

  /// Opens every file and reads its first fix.
  public init(paths: [String], options: TrackReadOptions = TrackReadOptions()) throws {
    readers = try paths.map { try TrackReader(path: $0, options: options) }
    state = try MergeState(readers: readers)
  }

  /// Times a file's fix was earlier than the previous fix of the same file.
  public var backwardStepCount: Int { state.backwardStepCount }
  /// Distinct device names in the order of their first fix.
  public var devices: [String] { state.devices }
  /// Rows skipped so far, over all files.
  public var skippedRowCount: Int { readers.reduce(0) { $0 + $1.skippedRowCount } }
  /// The first skipped rows of each file.
  public var issues: [TrackIssue] { readers.flatMap(\.issues) }

  /// The next fix in time order, or `nil` when every file is exhausted.
  public func next() throws -> LocationFix? {
    try nextWithDeviceIndex()?.fix
  }

  /// The next fix in time order with the index of its device in ``devices`` (registered on
  /// its first fix), or `nil` when every file is exhausted. The fix's device name is the
  /// interned string.
  public func nextWithDeviceIndex() throws -> (fix: LocationFix, device: Int)? {
    try state.next(from: readers)
  }
}

/// The state of a ``PresortedTrackMerger``'s merge: each file's next fix, the heap that orders
/// them, and the devices seen.
private struct MergeState {
  /// Per reader: its next fix, or nil when it is exhausted.
  var heads: [LocationFix?] = []
  /// Reader indices ordered as a binary min-heap by (head time, reader index).
  var heap: [Int] = []
  var lastTime: [Timestamp?]
  /// Times a file's fix was earlier than the previous fix of the same file.
  var backwardStepCount = 0
  /// Distinct device names in the order of their first fix.
  var devices: [String] = []
  var deviceIndex: [String: Int] = [:]

  /// Reads every reader's first fix.
  init(readers: [TrackReader]) throws {
    lastTime = Array(repeating: nil, count: readers.count)
    for reader in readers { heads.append(try reader.next()) }
    for index in readers.indices where heads[index] != nil { push(index) }
  }

  /// ``PresortedTrackMerger/nextWithDeviceIndex()``.
  mutating func next(from readers: [TrackReader]) throws -> (fix: LocationFix, device: Int)? {
    guard var fix = try nextFix(from: readers) else { return nil }
    if let index = deviceIndex[fix.device] {
      fix.device = devices[index]
      return (fix, index)
    }
    let index = devices.count
    devices.append(fix.device)
    deviceIndex[fix.device] = index
    return (fix, index)
  }

  private mutating func nextFix(from readers: [TrackReader]) throws -> LocationFix? {
    guard let top = heap.first, let fix = heads[top] else { return nil }
    if let last = lastTime[top], fix.time < last { backwardStepCount += 1 }
    lastTime[top] = fix.time
    heads[top] = try readers[top].next()
    if heads[top] == nil {
      let last = heap.removeLast()
      if !heap.isEmpty {
        heap[0] = last
        siftDown(0)
      }
    } else {
      siftDown(0)
    }
    return fix
  }

  private func precedes(_ a: Int, _ b: Int) -> Bool {
    guard let ta = heads[a]?.time, let tb = heads[b]?.time else { return heads[a] != nil }
    return ta < tb || (ta == tb && a < b)
  }

  private mutating func push(_ reader: Int) {
    heap.append(reader)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard precedes(heap[child], heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      var best = left
      if left + 1 < heap.count, precedes(heap[left + 1], heap[left]) { best = left + 1 }
      guard precedes(heap[best], heap[parent]) else { return }
      heap.swapAt(best, parent)
      parent = best
    }
  }
}
