#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where one device's zone records are kept, sorted by zone slot: nowhere (no record), in a
/// block of the evaluator's ``ZoneRecordStore`` (one to ``ZoneRecordStore/pooledLimit``
/// records), or in an array of its own (more). 8 bytes in the ``DeviceState``, like the array
/// it replaces.
///
/// A device is inside a few fences at a time. An array of its own cost such a device a heap
/// block with a 32-byte header, the allocator's 8 bytes and rounding, and the array's spare
/// capacity: 96 bytes for one 56-byte record, 160 for two. A block of the store holds just the
/// records.
enum RecordHome {
  case none
  /// A block of ``ZoneRecordStore``: its record count less one in the top two bits, its index
  /// among the blocks of that size in the others.
  case pooled(UInt32)
  /// More than ``ZoneRecordStore/pooledLimit`` records.
  case many([ZoneRecord])
}

/// Blocks of one to four ``ZoneRecord``s for the devices that hold that many, and the scratch
/// array that a device's records are worked on in.
///
/// The per-fix step takes a device's records out into an array (``take(_:)``), works on the
/// array as before, and puts them back (``put(_:into:)``): up to ``pooledLimit`` records go to
/// a block of their count (the free block last freed first: the one they came from when the
/// count did not change), and the array back to the scratch; more stay in the array, which
/// becomes the device's own. In steady state nothing is allocated.
///
/// A value type: blocks are in chunks (arrays of ``blocksPerChunk`` blocks, added as they fill
/// and never moved, so the store grows without the transient double size of one growing
/// array), copied on write like the rest of the evaluator.
struct ZoneRecordStore {
  /// The most records kept in a block; a device with more has an array of its own.
  static let pooledLimit = 4
  /// The fewest devices whose records go to blocks: a smaller fleet keeps each device's
  /// records in an array of its own, which the per-fix step takes out and puts back without
  /// copying (copying them in and out of a block cost the harbor week's 1,200 vessels about a
  /// tenth of their evaluation, and saves them nothing worth having).
  static let pooledFleet = 65_536
  static let blocksPerChunkShift = 12
  static var blocksPerChunk: Int { 1 << blocksPerChunkShift }
  private static let indexBits: UInt32 = 30
  private static var indexMask: UInt32 { (1 << indexBits) - 1 }

  /// The blocks of one size.
  private struct Pool {
    let blockSize: Int
    var chunks: [[ZoneRecord]] = []
    /// Blocks given back, reused last first.
    var freeBlocks: [UInt32] = []

    init(blockSize: Int) { self.blockSize = blockSize }

    var count: Int {
      chunks.isEmpty
        ? 0
        : (chunks.count - 1) * ZoneRecordStore.blocksPerChunk
          + chunks[chunks.count - 1].count / blockSize - freeBlocks.count
    }

    @inline(__always)
    func place(of block: UInt32) -> (chunk: Int, offset: Int) {
      (
        Int(block >> UInt32(ZoneRecordStore.blocksPerChunkShift)),
        Int(block & UInt32(ZoneRecordStore.blocksPerChunk - 1)) * blockSize
      )
    }

    /// A block holding `records` (exactly ``blockSize`` of them).
    @inline(__always)
    mutating func store(_ records: UnsafeBufferPointer<ZoneRecord>) -> UInt32 {
      if let block = freeBlocks.popLast() {
        write(records, to: block)
        return block
      }
      return append(records)
    }

    /// Writes `records` (exactly ``blockSize`` of them) into `block`.
    @inline(__always)
    mutating func write(_ records: UnsafeBufferPointer<ZoneRecord>, to block: UInt32) {
      let (c, o) = place(of: block)
      chunks[c].withUnsafeMutableBufferPointer { chunk in
        for k in 0..<blockSize { chunk[o &+ k] = records[k] }
      }
    }

    @inline(never)
    mutating func append(_ records: UnsafeBufferPointer<ZoneRecord>) -> UInt32 {
      if chunks.isEmpty
        || chunks[chunks.count - 1].count == ZoneRecordStore.blocksPerChunk * blockSize
      {
        precondition(
          chunks.count < Int(ZoneRecordStore.indexMask) >> ZoneRecordStore.blocksPerChunkShift,
          "more zone records than blocks")
        var chunk: [ZoneRecord] = []
        chunk.reserveCapacity(ZoneRecordStore.blocksPerChunk * blockSize)
        chunks.append(chunk)
      }
      let c = chunks.count - 1
      let block = chunks[c].count / blockSize
      chunks[c].append(contentsOf: records)
      return UInt32(c << ZoneRecordStore.blocksPerChunkShift | block)
    }

    @inline(__always)
    func withBlock<Result>(
      _ block: UInt32, _ body: (UnsafeBufferPointer<ZoneRecord>) throws -> Result
    ) rethrows -> Result {
      let (c, o) = place(of: block)
      // Through the chunk table's buffer: `chunks[c]` would copy (retain) the chunk.
      return try chunks.withUnsafeBufferPointer { chunks in
        try chunks[c].withUnsafeBufferPointer {
          try body(UnsafeBufferPointer(start: $0.baseAddress! + o, count: blockSize))
        }
      }
    }

    /// The address of a block, read without retaining its chunk (for prefetches).
    @inline(__always)
    func address(of block: UInt32) -> UnsafeRawPointer {
      let (c, o) = place(of: block)
      let buffer = chunks.withUnsafeBufferPointer {
        UnsafeRawPointer($0.baseAddress! + c).load(as: UnsafeRawPointer.self)
      }
      return buffer + ZoneRecordStore.arrayHeaderBytes + o * MemoryLayout<ZoneRecord>.stride
    }
  }

  /// Pools of blocks of 1, 2, 3 and 4 records.
  private var pools = (1...ZoneRecordStore.pooledLimit).map { Pool(blockSize: $0) }
  /// The array a device's records are taken into when it has no array of its own (empty,
  /// keeping its capacity).
  private var scratch: [ZoneRecord] = []
  /// The block the records last taken out came from (its ``RecordHome/pooled(_:)`` bits): still the device's until they are put back, so that records put
  /// back as many as they were go back to it with no free list in between.
  private var takenBlock: UInt32?

  init() {}

  /// The number of blocks in use, by record count (index 0: one record).
  var blockCounts: [Int] { pools.map(\.count) }

  @inline(__always)
  private static func split(_ bits: UInt32) -> (count: Int, block: UInt32) {
    (Int(bits >> indexBits) &+ 1, bits & indexMask)
  }

  // MARK: - Reading in place

  /// The number of records at `home`.
  @inline(__always)
  func count(_ home: borrowing RecordHome) -> Int {
    switch home {
    case .none: return 0
    case .pooled(let bits): return Self.split(bits).count
    case .many(let records): return records.count
    }
  }

  /// Calls `body` with the records at `home`, read in place.
  @inline(__always)
  func withRecords<Result>(
    _ home: borrowing RecordHome, _ body: (UnsafeBufferPointer<ZoneRecord>) throws -> Result
  ) rethrows -> Result {
    switch home {
    case .none:
      return try body(UnsafeBufferPointer(start: nil, count: 0))
    case .pooled(let bits):
      let (count, block) = Self.split(bits)
      return try pools[count &- 1].withBlock(block, body)
    case .many(let records):
      return try records.withUnsafeBufferPointer(body)
    }
  }

  /// A copy of the records at `home` (outside the per-fix step: it allocates).
  func records(_ home: borrowing RecordHome) -> [ZoneRecord] {
    withRecords(home) { Array($0) }
  }

  /// Where the records at `home` are, read without retaining anything (for prefetches): the
  /// array's buffer (`nil` for a block), the first record, and the count. An array's buffer is
  /// its header (object header, count, capacity; ``arrayHeaderBytes``) and then its elements;
  /// a block is found through its chunk's buffer, read as bits from the chunk table.
  @inline(__always)
  func addresses(
    _ home: borrowing RecordHome
  ) -> (header: UnsafeRawPointer?, first: UnsafeRawPointer?, count: Int) {
    switch home {
    case .none:
      return (nil, nil, 0)
    case .pooled(let bits):
      let (count, block) = Self.split(bits)
      let first = pools.withUnsafeBufferPointer { $0[count &- 1].address(of: block) }
      return (nil, first, count)
    case .many(let records):
      let buffer = unsafeBitCast(records, to: UnsafeRawPointer.self)
      let count = buffer.load(fromByteOffset: 16, as: Int.self)
      assert(count == records.count, "array header layout")
      return (buffer, buffer + Self.arrayHeaderBytes, count)
    }
  }

  /// The bytes of an array buffer's header before its first element (checked in debug builds
  /// by ``addresses(_:)``).
  static var arrayHeaderBytes: Int { 32 }

  // MARK: - Taking out and putting back

  /// Moves the records at `home` out into an array (the scratch, or the device's own array),
  /// leaving `home` empty until ``put(_:into:pooling:)``.
  ///
  /// The paths of a block are kept out of line: inlined into the per-fix step, they doubled its
  /// uniqueness checks and reference counting in code that a small fleet never runs, and the
  /// harbor week's evaluation took about 4 % longer.
  @inline(__always)
  mutating func take(_ home: inout RecordHome) -> [ZoneRecord] {
    var taken = RecordHome.none
    swap(&taken, &home)
    switch consume taken {
    case .none:
      // The empty array, with no buffer: a record added to it allocates, as it did before the
      // store (taking the scratch here cost a million devices' fixes over 100 circles, most of
      // them in no zone, about 5 % of their evaluation).
      return []
    case .pooled(let bits):
      return takeBlock(bits)
    case .many(let records):
      return records
    }
  }

  /// The records of the block `bits`, in the scratch; the block is held until they are put back.
  @inline(never)
  private mutating func takeBlock(_ bits: UInt32) -> [ZoneRecord] {
    let (count, block) = Self.split(bits)
    var records = takeScratch()
    // Through the pool table's buffer: `pools[k]` would copy (retain) the pool's arrays.
    pools.withUnsafeBufferPointer { pools in
      pools[count &- 1].withBlock(block) { taken in
        for k in 0..<count { records.append(taken[k]) }
      }
    }
    releaseTakenBlock()
    takenBlock = bits
    return records
  }

  /// Puts `records` (sorted by zone slot) at `home`, which must be empty: in a block when
  /// `pooling` and there are at most ``pooledLimit``, else as the device's array. `records` is
  /// left empty.
  @inline(__always)
  mutating func put(_ records: inout [ZoneRecord], into home: inout RecordHome, pooling: Bool) {
    let count = records.count
    if takenBlock == nil && (!pooling || count > Self.pooledLimit) {
      // No block involved: none held, none wanted.
      guard count > 0 else { return }
      // Moved, not copied: `home = .many(records)` then `records = []` retained and released
      // the array at every fix.
      var moved: [ZoneRecord] = []
      swap(&moved, &records)
      home = .many(moved)
      return
    }
    putWithBlocks(&records, into: &home, pooling: pooling)
  }

  /// ``put(_:into:pooling:)`` when a block is held or wanted.
  @inline(never)
  private mutating func putWithBlocks(
    _ records: inout [ZoneRecord], into home: inout RecordHome, pooling: Bool
  ) {
    let count = records.count
    if count == 0 {
      releaseTakenBlock()
      if records.capacity > 0 { recycle(&records) }
    } else if pooling && count <= Self.pooledLimit {
      let block: UInt32
      if let taken = takenBlock, Self.split(taken).count == count {
        // Back to the block they came from, written only when changed: a device on familiar
        // ground finds its records as they were, marks included, and a write costs the
        // uniqueness checks of three arrays.
        block = Self.split(taken).block
        takenBlock = nil
        let unchanged = records.withUnsafeBufferPointer { records in
          pools.withUnsafeBufferPointer { pools in
            pools[count &- 1].withBlock(block) { stored in
              memcmp(
                stored.baseAddress!, records.baseAddress!,
                count * MemoryLayout<ZoneRecord>.stride) == 0
            }
          }
        }
        if !unchanged {
          records.withUnsafeBufferPointer { pools[count &- 1].write($0, to: block) }
        }
      } else {
        releaseTakenBlock()
        block = records.withUnsafeBufferPointer { pools[count &- 1].store($0) }
      }
      home = .pooled(UInt32(count &- 1) << Self.indexBits | block)
      records.removeAll(keepingCapacity: true)
      recycle(&records)
    } else {
      releaseTakenBlock()
      var moved: [ZoneRecord] = []
      swap(&moved, &records)
      home = .many(moved)
    }
  }

  /// Frees the block of the records last taken out, when they were not put back into it.
  @inline(__always)
  private mutating func releaseTakenBlock() {
    guard let taken = takenBlock else { return }
    let (count, block) = Self.split(taken)
    pools[count &- 1].freeBlocks.append(block)
    takenBlock = nil
  }

  /// Takes the records at `home` out, calls `body` with them, and puts them back.
  mutating func modify<Result>(
    _ home: inout RecordHome, pooling: Bool, _ body: (inout [ZoneRecord]) throws -> Result
  ) rethrows -> Result {
    var records = take(&home)
    defer { put(&records, into: &home, pooling: pooling) }
    return try body(&records)
  }

  /// The home of `records` (sorted by zone slot), stored now (a restored snapshot's devices).
  mutating func home(of records: consuming [ZoneRecord], pooling: Bool) -> RecordHome {
    var records = records
    var home = RecordHome.none
    put(&records, into: &home, pooling: pooling)
    return home
  }

  @inline(__always)
  private mutating func takeScratch() -> [ZoneRecord] {
    var records: [ZoneRecord] = []
    swap(&records, &scratch)
    return records
  }

  /// Keeps the emptied `records` as the scratch when it holds more than the scratch does.
  @inline(__always)
  private mutating func recycle(_ records: inout [ZoneRecord]) {
    if records.capacity > scratch.capacity { swap(&records, &scratch) }
    records = []
  }
}

extension ZoneEvaluator {
  /// A copy of device slot `d`'s records (outside the per-fix step).
  func records(ofDevice d: Int) -> [ZoneRecord] {
    recordStore.records(devices[d].recordHome)
  }

  /// The number of records device slot `d` holds.
  func recordCount(ofDevice d: Int) -> Int {
    recordStore.count(devices[d].recordHome)
  }

  /// Device slot `d`'s records, moved out for the per-fix step (see ``ZoneRecordStore``).
  @inline(__always)
  mutating func takeRecords(ofDevice d: Int) -> [ZoneRecord] {
    recordStore.take(&devices[d].recordHome)
  }

  /// Puts `records` back as device slot `d`'s (whose records must have been taken out).
  @inline(__always)
  mutating func putRecords(_ records: inout [ZoneRecord], device d: Int) {
    recordStore.put(
      &records, into: &devices[d].recordHome,
      pooling: devices.count >= recordPoolingFleet)
  }

  /// Calls `body` with device slot `d`'s records to change them (outside the per-fix step).
  mutating func modifyRecords<Result>(
    ofDevice d: Int, _ body: (inout [ZoneRecord]) throws -> Result
  ) rethrows -> Result {
    try recordStore.modify(
      &devices[d].recordHome, pooling: devices.count >= recordPoolingFleet, body)
  }

  /// Calls `body` with the records of every device that holds any, to change them (zone
  /// changes and clocks).
  mutating func modifyEveryDevicesRecords(_ body: (_ device: Int, inout [ZoneRecord]) -> Void) {
    for d in devices.indices where recordCount(ofDevice: d) > 0 {
      modifyRecords(ofDevice: d) { body(d, &$0) }
    }
  }
}
