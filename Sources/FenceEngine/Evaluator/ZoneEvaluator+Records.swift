/// A device's zone records, read and changed through the evaluator's ``RecordPool``.
extension ZoneEvaluator {
  /// Device slot `d`'s records, sorted by zone slot (a copy).
  func records(ofDevice d: Int) -> [ZoneRecord] {
    recordPool.records(of: devices[d].recordRun)
  }

  /// Device slot `d`'s record at index `r`.
  @inline(__always)
  func record(ofDevice d: Int, at r: Int) -> ZoneRecord {
    recordPool[devices[d].recordRun, r]
  }

  /// The index of device slot `d`'s record for zone slot `zone`, or where it would go.
  func recordIndex(ofDevice d: Int, zone: Int32) -> (index: Int, found: Bool) {
    let run = devices[d].recordRun
    var low = 0
    var high = Int(run.count)
    while low < high {
      let mid = (low &+ high) >> 1
      if recordPool[run, mid].zone < zone { low = mid &+ 1 } else { high = mid }
    }
    return (low, low < Int(run.count) && recordPool[run, low].zone == zone)
  }

  /// Changes device slot `d`'s record at index `r`.
  @inline(__always)
  mutating func updateRecord(ofDevice d: Int, at r: Int, _ change: (inout ZoneRecord) -> Void) {
    let run = devices[d].recordRun
    var record = recordPool[run, r]
    change(&record)
    recordPool[run, r] = record
  }

  /// Runs `body` on device slot `d`'s records (taken out as an array, then stored back): for
  /// changes outside the per-fix step, which may insert and remove records.
  mutating func withRecords<Result>(
    ofDevice d: Int, _ body: (inout [ZoneRecord]) throws -> Result
  ) rethrows -> Result {
    var records = recordPool.records(of: devices[d].recordRun)
    defer { recordPool.store(records, in: &devices[d].recordRun) }
    return try body(&records)
  }

  /// Device slot `d`'s records in an array whose storage the evaluator keeps between fixes:
  /// the per-fix step works on them there, and gives them back with
  /// ``putRecords(_:ofDevice:)``.
  @inline(__always)
  mutating func takeRecords(ofDevice d: Int) -> [ZoneRecord] {
    var records: [ZoneRecord] = []
    swap(&records, &scratchRecords)
    recordPool.append(devices[d].recordRun, to: &records)
    return records
  }

  /// Stores `records` (from ``takeRecords(ofDevice:)``) as device slot `d`'s, and keeps the
  /// array's storage for the next fix.
  @inline(__always)
  mutating func putRecords(_ records: inout [ZoneRecord], ofDevice d: Int) {
    recordPool.store(records, in: &devices[d].recordRun)
    records.removeAll(keepingCapacity: true)
    swap(&records, &scratchRecords)
  }
}
