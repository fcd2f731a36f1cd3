#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Blocks of one to four ``ZoneRecord``s for the devices of a large fleet that hold that many,
/// and the scratch array that a block's records are worked on in.
///
/// A device's records are sorted by zone slot and kept in one of two places: its
/// ``DeviceState/records`` array, or, in a fleet of ``pooledFleet`` devices or more, a block of
/// exactly their count here, named by the device's entry in ``ZoneEvaluator/recordBlocks``
/// (then its array is empty). An array costs its 32-byte header, the allocator's 8 bytes and
/// rounding, and spare capacity: 96 bytes for one 56-byte record, 160 for two; a block holds
/// just the records.
///
/// The per-fix step takes a device's records out into an array (the device's own, or this
/// store's scratch filled from the block; ``ZoneEvaluator/takeRecords(ofDevice:)``), works on
/// the array, and puts them back (``ZoneEvaluator/putRecords(_:device:)``): up to
/// ``pooledLimit`` records in a large fleet go to a block of their count (the one they came
/// from when the count did not change, written only when their bytes changed), the rest to the
/// device's array. A small fleet's step swaps its arrays in and out as before the store, and
/// never reaches a block's code. In steady state nothing is allocated.
///
/// A value type: blocks are in chunks (arrays of ``blocksPerChunk`` blocks, added as they fill
/// and never moved, so the store grows without the transient double size of one growing
/// array), copied on write like the rest of the evaluator.
struct ZoneRecordStore {
  /// The most records kept in a block; a device with more keeps its array.
  static let pooledLimit = 4
  /// The fewest devices whose records go to blocks: a smaller fleet keeps each device's
  /// records in its array, which the per-fix step takes out and puts back without copying
  /// (copying them in and out of a block cost the harbor week's 1,200 vessels a few percent of
  /// their evaluation, and saves them nothing worth having).
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
  /// The array a block's records are taken into (empty, keeping its capacity).
  private var scratch: [ZoneRecord] = []
  /// The block the records last taken out came from (its bits): still the device's until they
  /// are put back, so that records put back as many as they were go back to it with no free
  /// list in between.
  private var takenBlock: UInt32?

  init() {}

  /// The number of blocks in use, by record count (index 0: one record).
  var blockCounts: [Int] { pools.map(\.count) }

  /// Whether a large fleet keeps `count` records in a block (one to ``pooledLimit``) rather than
  /// in the device's array.
  @inline(__always)
  static func fitsBlock(_ count: Int) -> Bool { count >= 1 && count <= pooledLimit }

  /// A block's record count (1 to ``pooledLimit``) and its index among the blocks of that size.
  @inline(__always)
  static func split(_ bits: UInt32) -> (count: Int, block: UInt32) {
    (Int(bits >> indexBits) &+ 1, bits & indexMask)
  }

  /// The bytes of an array buffer's header before its first element (checked in debug builds
  /// by ``ZoneEvaluator/recordAddresses(ofDevice:in:)``).
  static var arrayHeaderBytes: Int { 32 }

  // MARK: - Reading in place

  /// Calls `body` with the records of block `bits`, read in place.
  @inline(__always)
  func withBlock<Result>(
    _ bits: UInt32, _ body: (UnsafeBufferPointer<ZoneRecord>) throws -> Result
  ) rethrows -> Result {
    let (count, block) = Self.split(bits)
    // Through the pool table's buffer: `pools[k]` would copy (retain) the pool's arrays.
    return try pools.withUnsafeBufferPointer { try $0[count &- 1].withBlock(block, body) }
  }

  /// The address of block `bits`'s first record, read without retaining anything (for
  /// prefetches): through its chunk's buffer, read as bits from the chunk table.
  @inline(__always)
  func address(ofBlock bits: UInt32) -> UnsafeRawPointer {
    let (count, block) = Self.split(bits)
    return pools.withUnsafeBufferPointer { $0[count &- 1].address(of: block) }
  }

  // MARK: - Taking out and putting back

  /// The records of block `bits`, in the scratch; the block is held until they are put back
  /// (``putInBlock(_:)``, or ``releaseTakenBlock()``).
  @inline(never)
  mutating func takeBlock(_ bits: UInt32) -> [ZoneRecord] {
    var records: [ZoneRecord] = []
    swap(&records, &scratch)
    withBlock(bits) { taken in
      for k in taken.indices { records.append(taken[k]) }
    }
    releaseTakenBlock()
    takenBlock = bits
    return records
  }

  /// Puts `records` (one to ``pooledLimit``, sorted by zone slot) in a block of their count and
  /// returns its bits: the block they were taken from when the count is the same (written only
  /// if their bytes changed: a device on familiar ground finds its records as they were, marks
  /// included), else a free one. `records` is left empty, its buffer kept as the scratch when
  /// larger.
  @inline(never)
  mutating func putInBlock(_ records: inout [ZoneRecord]) -> UInt32 {
    let count = records.count
    precondition(Self.fitsBlock(count), "a block holds one to four records")
    let block: UInt32
    if let taken = takenBlock, Self.split(taken).count == count {
      block = Self.split(taken).block
      takenBlock = nil
      let unchanged = records.withUnsafeBufferPointer { records in
        withBlock(taken) { stored in
          memcmp(
            stored.baseAddress!, records.baseAddress!,
            count * MemoryLayout<ZoneRecord>.stride) == 0
        }
      }
      if !unchanged {
        records.withUnsafeBufferPointer { pools[count &- 1].write($0, to: block) }
      }
    } else {
      releaseTakenBlock()
      block = records.withUnsafeBufferPointer { pools[count &- 1].store($0) }
    }
    records.removeAll(keepingCapacity: true)
    if records.capacity > scratch.capacity { swap(&records, &scratch) }
    records = []
    return UInt32(count &- 1) << Self.indexBits | block
  }

  /// Frees the block of the records last taken out, when they are not put back into a block.
  @inline(__always)
  mutating func releaseTakenBlock() {
    guard let taken = takenBlock else { return }
    let (count, block) = Self.split(taken)
    pools[count &- 1].freeBlocks.append(block)
    takenBlock = nil
  }

  /// A block holding `records` (one to ``pooledLimit``), made now (a restored snapshot's
  /// devices).
  mutating func block(of records: [ZoneRecord]) -> UInt32 {
    var records = records
    releaseTakenBlock()
    return putInBlock(&records)
  }
}

extension ZoneEvaluator {
  /// The bits of device slot `d`'s block, or `nil` when its records are in its array.
  @inline(__always)
  func recordBlock(ofDevice d: Int) -> UInt32? {
    d < recordBlocks.count && recordBlocks[d] != 0 ? recordBlocks[d] &- 1 : nil
  }

  /// Whether the records put back now go to blocks (a fleet of
  /// ``ZoneRecordStore/pooledFleet`` devices or more; ``recordPoolingFleet`` in tests).
  @inline(__always)
  var poolsRecords: Bool { devices.count >= recordPoolingFleet }

  /// A copy of device slot `d`'s records (outside the per-fix step: it allocates).
  func records(ofDevice d: Int) -> [ZoneRecord] {
    withRecords(ofDevice: d) { Array($0) }
  }

  /// The number of records device slot `d` holds.
  func recordCount(ofDevice d: Int) -> Int {
    if let bits = recordBlock(ofDevice: d) { return ZoneRecordStore.split(bits).count }
    return devices[d].records.count
  }

  /// Calls `body` with device slot `d`'s records, read in place.
  @inline(__always)
  func withRecords<Result>(
    ofDevice d: Int, _ body: (UnsafeBufferPointer<ZoneRecord>) throws -> Result
  ) rethrows -> Result {
    if let bits = recordBlock(ofDevice: d) { return try recordStore.withBlock(bits, body) }
    return try devices[d].records.withUnsafeBufferPointer(body)
  }

  /// Device slot `d`'s records, moved out for the per-fix step: its array, or its block's
  /// records in the store's scratch (see ``ZoneRecordStore``).
  @inline(__always)
  mutating func takeRecords(ofDevice d: Int) -> [ZoneRecord] {
    var records: [ZoneRecord] = []
    swap(&records, &devices[d].records)
    if let bits = recordBlock(ofDevice: d) {
      recordBlocks[d] = 0
      records = recordStore.takeBlock(bits)
    }
    return records
  }

  /// Puts `records` back as device slot `d`'s (whose records must have been taken out): in a
  /// block when the fleet pools its records and they are one to four, else in its array.
  @inline(__always)
  mutating func putRecords(_ records: inout [ZoneRecord], device d: Int) {
    if poolsRecords, ZoneRecordStore.fitsBlock(records.count) {
      putInBlock(&records, device: d)
    } else {
      recordStore.releaseTakenBlock()
      swap(&records, &devices[d].records)
    }
  }

  /// ``putRecords(_:device:)`` into a block.
  @inline(never)
  mutating func putInBlock(_ records: inout [ZoneRecord], device d: Int) {
    let bits = recordStore.putInBlock(&records)
    if recordBlocks.count <= d {
      recordBlocks.append(contentsOf: repeatElement(0, count: devices.count - recordBlocks.count))
    }
    recordBlocks[d] = bits &+ 1
  }

  /// Calls `body` with device slot `d`'s records to change them (outside the per-fix step).
  mutating func modifyRecords<Result>(
    ofDevice d: Int, _ body: (inout [ZoneRecord]) throws -> Result
  ) rethrows -> Result {
    var records = takeRecords(ofDevice: d)
    defer { putRecords(&records, device: d) }
    return try body(&records)
  }

  /// Calls `body` with the records of every device that holds any, taken out, to change them
  /// (zone changes and clocks), and puts them back. `body` gets the evaluator too, to change
  /// other tables meanwhile (pending exits, the dwell queue).
  mutating func modifyEveryDevicesRecords(
    _ body: (_ evaluator: inout ZoneEvaluator, _ device: Int, _ records: inout [ZoneRecord]) -> Void
  ) {
    for d in devices.indices where recordCount(ofDevice: d) > 0 {
      var records = takeRecords(ofDevice: d)
      body(&self, d, &records)
      putRecords(&records, device: d)
    }
  }

  /// Where device slot `d`'s records may be, read without retaining anything and without
  /// reading the records' own memory (for prefetching it): a block's first record and count, or
  /// an array's buffer (its header) and first element with a `nil` count, the count being in
  /// that header, whose read is what a prefetch waits for otherwise. The empty array's buffer
  /// is the shared empty one; asking for lines past an array's end is harmless in a prefetch.
  @inline(__always)
  func recordLines(
    ofDevice d: Int, in devices: UnsafeBufferPointer<DeviceState>
  ) -> (header: UnsafeRawPointer?, first: UnsafeRawPointer?, count: Int?) {
    if let bits = recordBlock(ofDevice: d) {
      return (nil, recordStore.address(ofBlock: bits), ZoneRecordStore.split(bits).count)
    }
    precondition(MemoryLayout<[ZoneRecord]>.size == MemoryLayout<UnsafeRawPointer>.size)
    let state = UnsafeRawPointer(devices.baseAddress! + d)
    let header = (state + MemoryLayout<DeviceState>.offset(of: \.records)!)
      .load(as: UnsafeRawPointer.self)
    return (header, header + ZoneRecordStore.arrayHeaderBytes, nil)
  }

  /// Where device slot `d`'s records are, read without retaining anything (for the batch's
  /// prefetches; `devices` is the device table's buffer): the array's buffer (`nil` for a
  /// block), the first record, and the count. An array's buffer is its header (object header,
  /// count, capacity) and then its elements; the array is read from the state as bits, since
  /// reading it would read the count in that header and retain it: ``recordLines(ofDevice:in:)``
  /// and, for an array, the count read from its header.
  @inline(__always)
  func recordAddresses(
    ofDevice d: Int, in devices: UnsafeBufferPointer<DeviceState>
  ) -> (header: UnsafeRawPointer?, first: UnsafeRawPointer?, count: Int) {
    let (header, first, blockCount) = recordLines(ofDevice: d, in: devices)
    if let blockCount { return (nil, first, blockCount) }
    let count = header!.load(fromByteOffset: 16, as: Int.self)
    assert(count == devices[d].records.count, "array header layout")
    return (header, first, count)
  }
}
