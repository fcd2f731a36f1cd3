/// Every device's zone records, each device's as one run of slots in shared chunks: 56 bytes a
/// record, instead of an array of its own per device (a 32-byte header and the allocator's
/// 8-byte prefix and rounding: 96 bytes for a device's one record).
///
/// A run's capacity is the power of two at or above its count (none for no records), so the
/// run itself is 8 bytes, its start and count (``RecordRun``). Runs of up to ``chunkCapacity``
/// records lie within one chunk of that many slots, placed at a multiple of their capacity;
/// a freed run goes to the free list of its capacity, and the gaps that alignment skips go to
/// the free lists of their sizes. A larger run has a chunk of its own, emptied when it is freed.
/// The chunks are Swift arrays: the pool, and the evaluator holding it, keep value semantics.
///
/// The per-fix step copies a device's records out into a scratch array
/// (``append(_:to:)``) and back (``store(_:in:)``): plain values, so both are copies of a few
/// dozen bytes.
struct RecordPool {
  /// Slots of a chunk, and the largest run that shares one.
  static var chunkCapacity: Int { 4096 }
  private static var chunkShift: UInt32 { 12 }

  private var chunks: [[ZoneRecord]] = []
  /// Free run starts by capacity class (capacity 2^k for class k, up to ``chunkCapacity``).
  private var freeRuns: [[UInt32]] = Array(repeating: [], count: 13)
  /// Chunks of freed large runs, to be used again.
  private var freeLargeChunks: [UInt32] = []
  /// The chunk runs are cut from, and the first slot in it not yet given out (4096 when none).
  private var openChunk: UInt32 = 0
  private var openOffset = RecordPool.chunkCapacity

  init() {}

  /// The capacity class of a run of `count` records (1 or more): the exponent of its capacity.
  @inline(__always)
  private static func capacityClass(_ count: UInt32) -> Int {
    count <= 1 ? 0 : UInt32.bitWidth - (count - 1).leadingZeroBitCount
  }

  @inline(__always)
  private static func chunk(_ start: UInt32) -> Int { Int(start >> chunkShift) }

  @inline(__always)
  private static func offset(_ start: UInt32) -> Int { Int(start & (1 << chunkShift - 1)) }

  /// The record at `index` of `run`.
  subscript(run: RecordRun, index: Int) -> ZoneRecord {
    @inline(__always) get {
      chunks[Self.chunk(run.start)][Self.offset(run.start) + index]
    }
    @inline(__always) set {
      chunks[Self.chunk(run.start)][Self.offset(run.start) + index] = newValue
    }
  }

  /// Appends the records of `run` to `records`.
  @inline(__always)
  func append(_ run: RecordRun, to records: inout [ZoneRecord]) {
    guard run.count > 0 else { return }
    let offset = Self.offset(run.start)
    records.append(contentsOf: chunks[Self.chunk(run.start)][offset..<offset + Int(run.count)])
  }

  /// The address of `run`'s first record, for a prefetch hint only: the chunk's storage may
  /// move when the pool changes, so nothing may be read or written through it.
  @inline(__always)
  func firstRecordAddress(of run: RecordRun) -> UnsafeRawPointer? {
    guard run.count > 0 else { return nil }
    return chunks.withUnsafeBufferPointer { chunks in
      chunks[Self.chunk(run.start)].withUnsafeBufferPointer { chunk in
        UnsafeRawPointer(chunk.baseAddress! + Self.offset(run.start))
      }
    }
  }

  /// The records of `run`, as an array.
  func records(of run: RecordRun) -> [ZoneRecord] {
    var records: [ZoneRecord] = []
    records.reserveCapacity(Int(run.count))
    append(run, to: &records)
    return records
  }

  /// Stores `records` as the run `run`, moving it when its capacity no longer fits (freeing the
  /// old place).
  @inline(__always)
  mutating func store(_ records: [ZoneRecord], in run: inout RecordRun) {
    let count = UInt32(records.count)
    if count == run.count, count == 0 { return }
    if count == 0 || run.count == 0 || Self.capacityClass(count) != Self.capacityClass(run.count) {
      move(&run, toHold: count)
    }
    run.count = count
    guard count > 0 else { return }
    let offset = Self.offset(run.start)
    chunks[Self.chunk(run.start)].withUnsafeMutableBufferPointer { chunk in
      records.withUnsafeBufferPointer { records in
        _ = chunk[offset..<offset + records.count].initialize(fromContentsOf: records)
      }
    }
  }

  /// Frees `run`'s place and gives it one for `count` records (none for 0).
  @inline(never)
  private mutating func move(_ run: inout RecordRun, toHold count: UInt32) {
    if run.count > 0 { free(run) }
    run = RecordRun()
    guard count > 0 else { return }
    run.start = allocate(capacityClass: Self.capacityClass(count))
  }

  private mutating func free(_ run: RecordRun) {
    let k = Self.capacityClass(run.count)
    if k < freeRuns.count {
      freeRuns[k].append(run.start)
    } else {
      chunks[Self.chunk(run.start)] = []
      freeLargeChunks.append(UInt32(Self.chunk(run.start)))
    }
  }

  /// The start of a free run of capacity 2^k.
  private mutating func allocate(capacityClass k: Int) -> UInt32 {
    guard k < freeRuns.count else {
      let blank = [ZoneRecord](repeating: ZoneRecord(zone: -1), count: 1 << k)
      if let reused = freeLargeChunks.popLast() {
        chunks[Int(reused)] = blank
        return reused << Self.chunkShift
      }
      chunks.append(blank)
      return UInt32(chunks.count - 1) << Self.chunkShift
    }
    if let start = freeRuns[k].popLast() { return start }
    let capacity = 1 << k
    // Aligned to its capacity: the slots skipped go to the free lists of their sizes.
    while openOffset % capacity != 0 && openOffset < Self.chunkCapacity {
      let size = openOffset & -openOffset
      freeRuns[size.trailingZeroBitCount].append(openChunk << Self.chunkShift | UInt32(openOffset))
      openOffset += size
    }
    if openOffset + capacity > Self.chunkCapacity {
      releaseRestOfOpenChunk()
      chunks.append([ZoneRecord](repeating: ZoneRecord(zone: -1), count: Self.chunkCapacity))
      openChunk = UInt32(chunks.count - 1)
      openOffset = 0
    }
    let start = openChunk << Self.chunkShift | UInt32(openOffset)
    openOffset += capacity
    return start
  }

  /// Puts the open chunk's slots not given out on the free lists of their sizes.
  private mutating func releaseRestOfOpenChunk() {
    while openOffset < Self.chunkCapacity {
      var size = openOffset & -openOffset
      if openOffset == 0 { size = Self.chunkCapacity }
      while openOffset + size > Self.chunkCapacity { size >>= 1 }
      freeRuns[size.trailingZeroBitCount].append(openChunk << Self.chunkShift | UInt32(openOffset))
      openOffset += size
    }
  }

  /// Slots held by chunks, given out or free (for tests and measurements).
  var slotCount: Int { chunks.reduce(0) { $0 + $1.count } }
}

/// Where a device's zone records are in the evaluator's ``RecordPool``: 8 bytes in its
/// ``DeviceState``.
struct RecordRun: Equatable {
  var start: UInt32 = 0
  var count: UInt32 = 0

  var isEmpty: Bool { count == 0 }
}
