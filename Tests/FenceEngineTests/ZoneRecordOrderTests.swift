@testable import FenceEngine
import Testing

/// A device's zone records stay sorted by zone slot as records are inserted anywhere among
/// them (the per-fix step finds them by binary search), and an insertion moves the other
/// records whole: their stay fields, check-in fence slots included, come through unchanged.
@Suite struct ZoneRecordOrderTests {
  /// Records for `zones`, each with a check-in fence slot and a stay number of its own.
  static func records(_ zones: [Int32]) -> [ZoneRecord] {
    zones.map { zone in
      var record = ZoneRecord(zone: zone)
      record.checkInFenceSlot = zone * 3
      record.stay = UInt64(zone) * 10
      return record
    }
  }

  @Test(arguments: [
    (Int32(1), 0), (Int32(4), 1), (Int32(6), 2), (Int32(9), 3), (Int32(20), 4),
  ])
  func anInsertedRecordTakesItsPlaceAndTheOthersMoveWhole(zone: Int32, place: Int) {
    var records = Self.records([3, 5, 7, 10])
    let (index, found) = records.recordIndex(of: zone)
    #expect(!found)
    #expect(index == place)
    #expect(records.ensureRecord(for: zone) == place)
    #expect(records.map(\.zone) == ([3, 5, 7, 10] + [zone]).sorted())
    #expect(records[place].stay == 0)
    #expect(records[place].checkInFenceSlot == ZoneRecord.noFence)
    for record in records where record.zone != zone {
      #expect(record.stay == UInt64(record.zone) * 10)
      #expect(record.checkInFenceSlot == record.zone * 3)
    }
  }

  @Test func manyInsertionsInScrambledOrderKeepTheRecordsSorted() {
    var records: [ZoneRecord] = []
    var zone: Int32 = 17
    for _ in 0..<40 {
      zone = (zone &* 29 &+ 11) % 101
      _ = records.ensureRecord(for: zone)
      // An existing record is found, not inserted again.
      _ = records.ensureRecord(for: zone)
    }
    let zones = records.map(\.zone)
    #expect(zones == Array(Set(zones)).sorted())
    #expect(zones.count == 40)
  }
}
