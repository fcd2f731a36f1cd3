import FenceTestSupport
import Testing

@testable import FenceEngine

/// The record pool against a reference (an array of records per device): runs of every size,
/// grown and shrunk at random, read back exactly; freed places are used again, so the pool
/// holds no more slots than the runs alive at their largest need; and a copy of the pool is
/// independent of the original (the evaluator is a value).
@Suite struct RecordPoolTests {
  /// `count` records with zones from `base` (each record's fields tell it apart).
  static func records(_ count: Int, base: Int32) -> [ZoneRecord] {
    (0..<count).map { k in
      var record = ZoneRecord(zone: base + Int32(k))
      record.stay = UInt64(bitPattern: Int64(base)) << 20 | UInt64(k)
      record.checkInFenceSlot = Int32(k) * 7
      record.windowStart = k % 3 == 0 ? nil : Timestamp(microsecondsSinceEpoch: Int64(k))
      return record
    }
  }

  static func same(_ a: [ZoneRecord], _ b: [ZoneRecord]) -> Bool {
    a.count == b.count
      && zip(a, b).allSatisfy {
        $0.zone == $1.zone && $0.stay == $1.stay && $0.checkInFenceSlot == $1.checkInFenceSlot
          && $0.windowStart == $1.windowStart
      }
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func runsMatchAReferenceThroughRandomChanges(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    var pool = RecordPool()
    var runs = [RecordRun](repeating: RecordRun(), count: 300)
    var reference = [[ZoneRecord]](repeating: [], count: 300)
    for step in 0..<6_000 {
      let d = random.int(below: runs.count)
      // Mostly small runs, now and then one larger than a chunk.
      let count =
        random.int(below: 50) == 0
        ? RecordPool.chunkCapacity + random.int(below: 300)
        : random.int(below: 4) == 0 ? random.int(below: 40) : random.int(below: 4)
      let records = Self.records(count, base: Int32(step))
      pool.store(records, in: &runs[d])
      reference[d] = records
      #expect(runs[d].count == UInt32(count))
      if step % 500 == 0 {
        for k in runs.indices {
          #expect(Self.same(pool.records(of: runs[k]), reference[k]), "device \(k) at \(step)")
        }
      }
    }
    for k in runs.indices {
      #expect(Self.same(pool.records(of: runs[k]), reference[k]))
      var appended = Self.records(2, base: -5)
      pool.append(runs[k], to: &appended)
      #expect(Self.same(appended, Self.records(2, base: -5) + reference[k]))
    }
    // Large runs come and go: their chunks are emptied, and no more than a few chunks of
    // small runs are held for 300 devices of at most 64 slots each.
    let small = reference.reduce(0) { $0 + ($1.count <= RecordPool.chunkCapacity ? $1.count : 0) }
    let large = reference.reduce(0) {
      $0 + ($1.count > RecordPool.chunkCapacity ? 1 << (Int.bitWidth - ($1.count - 1).leadingZeroBitCount) : 0)
    }
    #expect(pool.slotCount - large <= 8 * RecordPool.chunkCapacity)
    #expect(small <= pool.slotCount - large)
  }

  @Test func aRunThatKeepsItsCapacityStaysInPlaceAndFreedRunsAreUsedAgain() {
    var pool = RecordPool()
    var a = RecordRun()
    var b = RecordRun()
    pool.store(Self.records(3, base: 0), in: &a)
    let start = a.start
    pool.store(Self.records(4, base: 10), in: &a)
    #expect(a.start == start)  // 3 and 4 records share the capacity 4
    pool.store(Self.records(5, base: 20), in: &a)
    #expect(a.start != start)  // 5 need 8: moved
    #expect(a.start == 8)  // aligned to 8: the slots 4-7 skipped went to the free list of 4s
    pool.store(Self.records(4, base: 30), in: &b)
    #expect(b.start == 4)  // the skipped slots, freed last, are used first
    var c = RecordRun()
    pool.store(Self.records(1, base: 40), in: &c)
    #expect(c.start == 16)  // no free run of 1: cut after a's 8
    pool.store(Self.records(3, base: 50), in: &c)
    #expect(c.start == start)  // a's first place, freed, used again
    pool.store([], in: &a)
    #expect(a == RecordRun())
    #expect(pool.slotCount == RecordPool.chunkCapacity)
    #expect(Self.same(pool.records(of: b), Self.records(4, base: 30)))
    #expect(Self.same(pool.records(of: c), Self.records(3, base: 50)))
  }

  @Test func aCopyOfThePoolIsIndependent() {
    var pool = RecordPool()
    var run = RecordRun()
    pool.store(Self.records(2, base: 0), in: &run)
    let copy = pool
    var record = pool[run, 1]
    record.stay = 99
    pool[run, 1] = record
    #expect(copy[run, 1].stay == Self.records(2, base: 0)[1].stay)
    #expect(pool[run, 1].stay == 99)
  }
}
