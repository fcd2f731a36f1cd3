import FenceEngine

extension ZoneSetCoding {
  /// The zone set of `evaluator` in binary form, with its hash: `base` as it is when no zone
  /// changed since it was made (`changes` empty), brought up to date from the changed zones'
  /// ids when some did (``updating(_:changedIDs:zone:)``), encoded whole when there is nothing
  /// to start from (`base` or `changes` nil: none made yet, or every zone replaced).
  static func current(
    base: (bytes: [UInt8], hash: UInt64)?, changes: Set<String>?, of evaluator: ZoneEvaluator
  ) -> (bytes: [UInt8], hash: UInt64) {
    if let base, let changes {
      if changes.isEmpty { return base }
      // Bytes this store made itself always decode; encoding the set whole stays the fallback
      // all the same.
      if let bytes = try? updating(base.bytes, changedIDs: changes, zone: { evaluator.zone(id: $0) }) {
        return (bytes, SQLiteStorage.hash(bytes))
      }
    }
    let bytes = encode(evaluator.zones)
    return (bytes, SQLiteStorage.hash(bytes))
  }

  /// The bytes ``encode(_:)`` gives for the zone set now, made from `old` (its bytes for an
  /// earlier zone set) and the ids of every zone added, replaced or removed since: their
  /// records are made again from `zone` (`nil`: removed), and every other record is copied as
  /// it is.
  ///
  /// The records are in id order (as ``FenceEngine/ZoneEvaluator/zones`` gives them), so one
  /// pass over `old` merges the changed ids, sorted the same way, into it. With a million zones
  /// and a few changed, this is a copy of the bytes instead of every zone made and encoded again
  /// (seconds under the store's lock; `Docs/Daemon.md`, "Snapshots and large zone sets").
  ///
  /// - Precondition: every zone whose value differs from its record in `old`, or that is in one
  ///   and not the other, is named in `changedIDs`. Naming an unchanged zone only costs its
  ///   encoding.
  /// - Throws: ``PayloadError`` when `old` is not bytes of ``encode(_:)``.
  static func updating(
    _ old: [UInt8], changedIDs: Set<String>, zone: (String) -> Zone?
  ) throws(PayloadError) -> [UInt8] {
    guard isBinary(old) else { throw PayloadError(offset: 0, "not a binary zone set") }
    let changed = changedIDs.sorted()
    var reader = ByteReader(old)
    reader.offset = magic.count
    let oldCount = try reader.count(stride: 8)
    var records = ByteWriter()
    records.bytes.reserveCapacity(old.count + old.count / 16)
    var count = 0
    var next = 0
    // Kept records are copied in runs (one copy per run, not per record): the run so far.
    var runStart = reader.offset
    func copyRun(upTo end: Int) {
      if end > runStart { records.bytes.append(contentsOf: old[runStart..<end]) }
    }
    // The changed zones before `id` (all that are left when nil), each where it belongs.
    func appendChanged(before id: String?) {
      while next < changed.count, id.map({ changed[next] < $0 }) ?? true {
        if let zone = zone(changed[next]) {
          appendZone(zone, to: &records)
          count += 1
        }
        next += 1
      }
    }
    for _ in 0..<oldCount {
      let start = reader.offset
      let id = try skipZone(&reader)
      guard next < changed.count, changed[next] <= id else {
        count += 1  // kept, in the current run
        continue
      }
      copyRun(upTo: start)
      appendChanged(before: id)
      if next < changed.count, changed[next] == id {
        if let zone = zone(id) {
          appendZone(zone, to: &records)
          count += 1
        }
        next += 1
        runStart = reader.offset
      } else {
        count += 1
        runStart = start
      }
    }
    guard reader.isAtEnd else {
      throw PayloadError(offset: reader.offset, "bytes after the last zone")
    }
    copyRun(upTo: reader.offset)
    appendChanged(before: nil)
    var writer = ByteWriter()
    writer.bytes.reserveCapacity(magic.count + 10 + records.bytes.count)
    writer.bytes.append(contentsOf: magic)
    writer.varint(UInt64(count))
    writer.bytes.append(contentsOf: records.bytes)
    return writer.bytes
  }

  /// Moves `reader` past one zone's record (``appendZone(_:to:)``); returns the zone's id.
  static func skipZone(_ reader: inout ByteReader) throws(PayloadError) -> String {
    let id = try reader.string()
    let flags = try reader.u8()
    if flags & 1 != 0 { try reader.skipString() }
    if flags & 2 != 0 { try reader.skipString() }
    try reader.skipString()  // custom data
    try reader.skip(8)  // retrigger
    if flags & 4 != 0 { try reader.skip(8) }  // dwell
    try reader.skip(2 + 8 + 8)  // check-out, initial trigger, hysteresis, confirmations
    if flags & 8 != 0 { try reader.skipString() }  // rules v2
    let fenceCount = try reader.count(stride: 3)
    for _ in 0..<fenceCount {
      try reader.skipString()
      try skipName(&reader)
      switch try reader.u8() {
      case 0:
        try reader.skip(24)
      case 1:
        let polygonCount = try reader.count(stride: 1)
        for _ in 0..<polygonCount {
          let ringCount = try reader.count(stride: 1)
          for _ in 0..<ringCount { try skipCoordinates(&reader) }
        }
      case let tag:
        throw PayloadError(offset: reader.offset - 1, "unknown area kind \(tag)")
      }
    }
    let geolineCount = try reader.count(stride: 3)
    for _ in 0..<geolineCount {
      try reader.skipString()
      try skipName(&reader)
      try reader.skip(1)  // direction
      try skipCoordinates(&reader)
    }
    return id
  }

  private static func skipName(_ reader: inout ByteReader) throws(PayloadError) {
    if try reader.u8() != 0 { try reader.skipString() }
  }

  private static func skipCoordinates(_ reader: inout ByteReader) throws(PayloadError) {
    try reader.skip(16 * (try reader.count(stride: 16)))
  }
}
