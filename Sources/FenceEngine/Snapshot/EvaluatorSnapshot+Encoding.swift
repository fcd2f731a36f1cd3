import FenceGeometry

extension EvaluatorSnapshot {
  /// The four bytes every encoding starts with: `FKES` (FenceKit evaluator snapshot).
  static let magic: [UInt8] = [0x46, 0x4B, 0x45, 0x53]
  /// Magic, version (2 bytes) and total length (8 bytes).
  static let headerSize = 14
  /// The FNV-1a checksum at the end.
  static let trailerSize = 8

  /// The snapshot in the binary format of ``formatVersion`` (little-endian throughout), or of
  /// version 1 when no event of a zone change waits in it.
  ///
  /// Layout: `FKES`, the version (UInt16), the total byte count (UInt64), then the body, then
  /// the 64-bit FNV-1a hash of every byte before it. The body holds the zone fingerprint, the
  /// engine's time, the counters, one table of the zone and fence ids it uses, and the devices
  /// in handle order, then (version 2) the count and the events of zone changes not handed out
  /// yet. Counts and ids are LEB128 varints, times zigzag varints relative to the
  /// engine's time, coordinates and speeds their exact `Double` bits, so a restore is exact.
  /// About 40 bytes per device outside every zone (a 9-character id, a fix without speed and
  /// course), 16 more with speed and course, plus about 12 per zone record.
  public func encoded() -> [UInt8] {
    encoded(searchingZoneIDs: true)
  }

  /// ``encoded()``; with `searchingZoneIDs` false, every id is numbered through one dictionary
  /// (the bytes are the same either way: tests compare the two).
  func encoded(searchingZoneIDs: Bool) -> [UInt8] {
    var writer = SnapshotWriter()
    writer.bytes.append(contentsOf: Self.magic)
    // Version 1 when no event waits: byte for byte what readers of version 1 read.
    writer.fixed(pendingEvents.isEmpty ? 1 : UInt64(Self.formatVersion), byteCount: 2)
    writer.fixed(0, byteCount: 8)  // total length, patched below
    writer.fixed(zoneFingerprint, byteCount: 8)
    let base = time?.microsecondsSinceEpoch ?? 0
    writer.varint(time == nil ? 0 : 1)
    if let time { writer.fixed(UInt64(bitPattern: time.microsecondsSinceEpoch), byteCount: 8) }
    writer.varint(UInt64(acceptedFixCount))
    writer.varint(UInt64(skippedFixCount))
    writer.varint(UInt64(RejectionReason.allCases.count))
    for reason in RejectionReason.allCases { writer.varint(UInt64(rejections[reason])) }
    writer.varint(stayCounter)
    writer.varint(addSequence)

    // One table of the zone and element ids, so that records refer to them by number: the
    // zones' ids first, in the order of `zoneSequences`, then the other ids the devices use
    // (fences', monitored elements'), in the order they first appear.
    //
    // A snapshot's zones are in id order (``ZoneEvaluator/snapshot()``, and what decoding
    // reads back), so a zone's number is found by a binary search and only the other ids are
    // hashed: a dictionary of a million zones' ids was about half of encoding a daemon's
    // snapshot. Zones in any other order are all hashed, as before; the numbers are the same.
    let zoneCount = zoneSequences.count
    let zonesInOrder =
      searchingZoneIDs
      && zoneSequences.indices.dropFirst().allSatisfy {
        zoneSequences[$0 - 1].zone < zoneSequences[$0].zone
      }
    var others: [String] = []
    var number: [String: Int] = [:]
    if !zonesInOrder { number.reserveCapacity(zoneCount) }
    /// The number of a zone's id, or nil when `id` is not a zone's (zones in id order only).
    func zoneNumber(_ id: String) -> Int? {
      var low = 0
      var high = zoneCount
      while low < high {
        let middle = (low + high) / 2
        if zoneSequences[middle].zone < id { low = middle + 1 } else { high = middle }
      }
      return low < zoneCount && zoneSequences[low].zone == id ? low : nil
    }
    func intern(_ id: String) {
      if zonesInOrder, zoneNumber(id) != nil { return }
      let next = (zonesInOrder ? zoneCount : 0) + others.count
      if number.interned(id, next: next) == next { others.append(id) }
    }
    if !zonesInOrder {
      for zone in zoneSequences { intern(zone.zone) }
    }
    for device in devices {
      for record in device.records + device.roaming.map(\.record) {
        intern(record.zone)
        intern(record.checkInFence)
      }
      for element in device.monitored { intern(element) }
    }
    func ref(_ id: String) -> UInt64 {
      if zonesInOrder, let zone = zoneNumber(id) { return UInt64(zone) }
      return UInt64(number[id] ?? 0)
    }
    if zonesInOrder {
      writer.varint(UInt64(zoneCount + others.count))
      for zone in zoneSequences { writer.string(zone.zone) }
    } else {
      writer.varint(UInt64(others.count))
    }
    for id in others { writer.string(id) }
    writer.varint(UInt64(zoneCount))
    for (k, zone) in zoneSequences.enumerated() {
      writer.varint(zonesInOrder ? UInt64(k) : ref(zone.zone))
      writer.varint(zone.addedSequence)
    }

    func write(_ record: Record) {
      writer.varint(ref(record.zone))
      var flags = UInt64(record.presence.rawValue) | UInt64(record.dwell.rawValue) << 2
      if record.willCheckOut { flags |= 1 << 4 }
      if record.windowStart != nil { flags |= 1 << 5 }
      if record.exit?.fix.speed != nil { flags |= 1 << 6 }
      if record.exit?.fix.course != nil { flags |= 1 << 7 }
      writer.varint(flags)
      writer.varint(record.stay)
      writer.time(record.checkInTime, base: base)
      writer.varint(ref(record.checkInFence))
      if record.dwell != .none { writer.time(record.dwellDeadline, base: base) }
      writer.varint(UInt64(record.exit?.count ?? 0))
      if let exit = record.exit { writer.fix(exit.fix, base: base) }
      if let start = record.windowStart { writer.time(start, base: base) }
    }

    writer.varint(UInt64(devices.count))
    for device in devices {
      writer.string(device.name)
      var flags: UInt64 = 0
      if device.lastFix != nil { flags |= 1 }
      if device.lastFix?.speed != nil { flags |= 2 }
      if device.lastFix?.course != nil { flags |= 4 }
      if device.safeDisc != nil { flags |= 8 }
      if !device.tags.isEmpty { flags |= 16 }
      if !device.roaming.isEmpty { flags |= 32 }
      writer.varint(flags)
      if let fix = device.lastFix { writer.fix(fix, base: base) }
      writer.varint(device.lastSequence)
      if let disc = device.safeDisc {
        writer.double(disc.x)
        writer.double(disc.y)
        writer.double(disc.z)
        writer.double(disc.radius)
      }
      if !device.tags.isEmpty {
        writer.varint(UInt64(device.tags.count))
        for tag in device.tags { writer.string(tag) }
      }
      writer.varint(UInt64(device.records.count))
      for record in device.records { write(record) }
      writer.varint(UInt64(device.monitored.count))
      for element in device.monitored { writer.varint(ref(element)) }
      if !device.roaming.isEmpty {
        // Roaming pairs (rules v2): the record's fence is the roaming device's name.
        writer.varint(UInt64(device.roaming.count))
        for pair in device.roaming {
          write(pair.record)
          if pair.record.exit != nil { writer.double(pair.exitDistance) }
        }
      }
    }
    if !pendingEvents.isEmpty {
      writer.varint(UInt64(pendingEvents.count))
      for event in pendingEvents { writer.event(event, base: base) }
    }

    let total = UInt64(writer.bytes.count + Self.trailerSize)
    for i in 0..<8 { writer.bytes[6 + i] = UInt8(truncatingIfNeeded: total >> (8 * UInt64(i))) }
    writer.fixed(snapshotChecksum(writer.bytes[...]), byteCount: 8)
    return writer.bytes
  }

  /// Decodes an encoding made by ``encoded()``.
  ///
  /// - Throws: ``SnapshotError`` for bytes that are too short (`truncated`), do not start with
  ///   the magic (`wrongMagic`), come from another format version (`unsupportedVersion`), were
  ///   changed (`checksumMismatch`), have extra bytes (`trailingBytes`), or hold impossible
  ///   values (`malformed`), with the byte offset. Never traps, whatever the bytes.
  public init(decoding bytes: [UInt8]) throws {
    var reader = SnapshotReader(bytes: bytes)
    let magic = try reader.raw(4)
    guard Array(magic) == Self.magic else {
      throw SnapshotError(.wrongMagic(Array(magic)), offset: 0)
    }
    let version = UInt16(try reader.fixed(byteCount: 2))
    guard version == Self.formatVersion || version == 1 else {
      throw SnapshotError(.unsupportedVersion(version, supported: Self.formatVersion), offset: 4)
    }
    let total = try reader.fixed(byteCount: 8)
    guard total >= UInt64(Self.headerSize + Self.trailerSize) else {
      throw SnapshotError(.malformed("total length \(total) is shorter than a header"), offset: 6)
    }
    guard total <= UInt64(bytes.count) else {
      // A damaged length may be beyond what an Int (and so any array) can count.
      guard let needed = Int(exactly: total) else {
        throw SnapshotError(.malformed("total length \(total) is more than any byte array holds"), offset: 6)
      }
      throw SnapshotError(.truncated(needed: needed, available: bytes.count), offset: 6)
    }
    guard total == UInt64(bytes.count) else {
      throw SnapshotError(.trailingBytes(bytes.count - Int(total)), offset: Int(total))
    }
    let bodyEnd = bytes.count - Self.trailerSize
    var trailer = SnapshotReader(bytes: bytes, offset: bodyEnd)
    let stored = try trailer.fixed(byteCount: 8)
    let computed = snapshotChecksum(bytes[..<bodyEnd])
    guard stored == computed else {
      throw SnapshotError(.checksumMismatch(stored: stored, computed: computed), offset: bodyEnd)
    }
    reader.end = bodyEnd

    let fingerprint = try reader.fixed(byteCount: 8)
    let timeFlags = try reader.varint()
    guard timeFlags <= 1 else { throw reader.malformed("time flags \(timeFlags)") }
    var time: Timestamp?
    if timeFlags == 1 {
      time = Timestamp(microsecondsSinceEpoch: Int64(bitPattern: try reader.fixed(byteCount: 8)))
    }
    let base = time?.microsecondsSinceEpoch ?? 0
    let accepted = try reader.int()
    let skipped = try reader.int()
    let reasonCount = try reader.int()
    guard reasonCount == RejectionReason.allCases.count else {
      throw reader.malformed("\(reasonCount) rejection reasons, expected \(RejectionReason.allCases.count)")
    }
    var rejections = RejectionCounts()
    for reason in RejectionReason.allCases { rejections[reason] = try reader.int() }
    let stayCounter = try reader.varint()
    let addSequence = try reader.varint()

    let tableCount = try reader.count(minimumBytesEach: 1)
    var table: [String] = []
    table.reserveCapacity(tableCount)
    for _ in 0..<tableCount { table.append(try reader.string()) }
    func id() throws -> String {
      let index = try reader.varint()
      guard index < UInt64(table.count) else {
        throw reader.malformed("id number \(index) outside the table of \(table.count)")
      }
      return table[Int(index)]
    }
    let zoneCount = try reader.count(minimumBytesEach: 2)
    var zoneSequences: [ZoneSequence] = []
    zoneSequences.reserveCapacity(zoneCount)
    for _ in 0..<zoneCount {
      zoneSequences.append(ZoneSequence(zone: try id(), addedSequence: try reader.varint()))
    }

    let deviceCount = try reader.count(minimumBytesEach: 5)
    var devices: [Device] = []
    devices.reserveCapacity(deviceCount)
    for _ in 0..<deviceCount {
      let name = try reader.string()
      let flags = try reader.varint()
      guard flags < 64, flags & 1 == 1 || flags & 6 == 0 else {
        throw reader.malformed("device \"\(name)\" flags \(flags)")
      }
      var lastFix: StoredFix?
      if flags & 1 != 0 {
        lastFix = try reader.fix(base: base, hasSpeed: flags & 2 != 0, hasCourse: flags & 4 != 0)
      }
      let lastSequence = try reader.varint()
      var safeDisc: SafeDisc?
      if flags & 8 != 0 {
        safeDisc = SafeDisc(
          x: try reader.double(), y: try reader.double(), z: try reader.double(),
          radius: try reader.double())
      }
      var tags: [String] = []
      if flags & 16 != 0 {
        let tagCount = try reader.count(minimumBytesEach: 1)
        for _ in 0..<tagCount { tags.append(try reader.string()) }
        guard !tags.isEmpty, zip(tags, tags.dropFirst()).allSatisfy({ $0 < $1 }),
          !tags.contains("")
        else { throw reader.malformed("tags of device \"\(name)\" not sorted, unique and non-empty") }
      }
      func readRecord() throws -> Record {
        let zone = try id()
        let flags = try reader.varint()
        guard flags < 256, let presence = Presence(rawValue: UInt8(flags & 3)),
          let dwell = Dwell(rawValue: UInt8(flags >> 2 & 3))
        else { throw reader.malformed("record flags \(flags) of device \"\(name)\"") }
        let stay = try reader.varint()
        let checkInTime = try reader.time(base: base)
        let checkInFence = try id()
        let deadline =
          dwell != .none ? try reader.time(base: base) : Timestamp(microsecondsSinceEpoch: 0)
        let exitCount = try reader.varint()
        guard exitCount <= UInt64(Int32.max) else {
          throw reader.malformed("exit count \(exitCount) of device \"\(name)\"")
        }
        guard exitCount > 0 || flags & 0xC0 == 0 else {
          throw reader.malformed("record flags \(flags) without a pending exit")
        }
        var exit: PendingExit?
        if exitCount > 0 {
          exit = PendingExit(
            count: Int(exitCount),
            fix: try reader.fix(
              base: base, hasSpeed: flags & 0x40 != 0, hasCourse: flags & 0x80 != 0))
        }
        let windowStart = flags & 0x20 != 0 ? try reader.time(base: base) : nil
        return Record(
          zone: zone, presence: presence, stay: stay, checkInTime: checkInTime,
          checkInFence: checkInFence, willCheckOut: flags & 0x10 != 0, dwell: dwell,
          dwellDeadline: deadline, exit: exit, windowStart: windowStart)
      }
      let recordCount = try reader.count(minimumBytesEach: 6)
      var records: [Record] = []
      records.reserveCapacity(recordCount)
      for _ in 0..<recordCount { records.append(try readRecord()) }
      let monitoredCount = try reader.count(minimumBytesEach: 1)
      var monitored: [String] = []
      monitored.reserveCapacity(monitoredCount)
      for _ in 0..<monitoredCount { monitored.append(try id()) }
      var roaming: [RoamingPair] = []
      if flags & 32 != 0 {
        let pairCount = try reader.count(minimumBytesEach: 6)
        guard pairCount > 0 else { throw reader.malformed("no roaming pairs under flag 32") }
        for _ in 0..<pairCount {
          let record = try readRecord()
          let distance = record.exit != nil ? try reader.double() : 0
          roaming.append(RoamingPair(record: record, exitDistance: distance))
        }
      }
      devices.append(
        Device(
          name: name, lastFix: lastFix, lastSequence: lastSequence, safeDisc: safeDisc,
          records: records, monitored: monitored, tags: tags, roaming: roaming))
    }
    var pendingEvents: [ZoneEvent] = []
    if version >= 2 {
      let eventCount = try reader.count(minimumBytesEach: 6)
      pendingEvents.reserveCapacity(eventCount)
      for _ in 0..<eventCount { pendingEvents.append(try reader.event(base: base)) }
    }
    guard reader.offset == reader.end else {
      throw reader.malformed("\(reader.end - reader.offset) bytes left after the last device")
    }
    self.init(
      zoneFingerprint: fingerprint, time: time, acceptedFixCount: accepted,
      skippedFixCount: skipped, rejections: rejections, stayCounter: stayCounter,
      addSequence: addSequence, zoneSequences: zoneSequences, devices: devices,
      pendingEvents: pendingEvents)
  }
}

/// The 64-bit FNV-1a hash of the bytes: the snapshot's checksum.
func snapshotChecksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
  var hash = FNV1a64()
  for byte in bytes { hash.combine(byte: byte) }
  return hash.value
}

/// Appends the snapshot format's values to a byte array.
struct SnapshotWriter {
  var bytes: [UInt8] = []

  mutating func fixed(_ value: UInt64, byteCount: Int) {
    for i in 0..<byteCount { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
  }

  /// LEB128: seven bits per byte, low first, the high bit set on every byte but the last.
  mutating func varint(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  mutating func double(_ value: Double) { fixed(value.bitPattern, byteCount: 8) }

  /// A zigzag varint of the microseconds from `base` (small for times near the engine's).
  mutating func time(_ value: Timestamp, base: Int64) {
    let delta = value.microsecondsSinceEpoch &- base
    varint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
  }

  mutating func string(_ value: String) {
    varint(UInt64(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }

  /// A fix's time, coordinate, then speed and course when present (their presence is in the
  /// caller's flags).
  mutating func fix(_ fix: EvaluatorSnapshot.StoredFix, base: Int64) {
    time(fix.time, base: base)
    double(fix.latitude)
    double(fix.longitude)
    if let speed = fix.speed { double(speed) }
    if let course = fix.course { double(course) }
  }
}

/// Reads the snapshot format's values, throwing ``SnapshotError`` instead of reading past
/// `end`.
struct SnapshotReader {
  let bytes: [UInt8]
  var offset: Int
  var end: Int

  init(bytes: [UInt8], offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
    self.end = bytes.count
  }

  func malformed(_ what: String) -> SnapshotError {
    SnapshotError(.malformed(what), offset: offset)
  }

  mutating func raw(_ count: Int) throws -> ArraySlice<UInt8> {
    guard count <= end - offset else {
      throw SnapshotError(.truncated(needed: offset + count, available: end), offset: offset)
    }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  mutating func fixed(byteCount: Int) throws -> UInt64 {
    var value: UInt64 = 0
    for (i, byte) in try raw(byteCount).enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
    return value
  }

  mutating func varint() throws -> UInt64 {
    let start = offset
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < end else {
        throw SnapshotError(.truncated(needed: offset + 1, available: end), offset: offset)
      }
      let byte = bytes[offset]
      offset += 1
      guard shift < 64, shift < 63 || byte <= 1 else {
        throw SnapshotError(.malformed("varint longer than 64 bits"), offset: start)
      }
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return value }
      shift += 7
    }
  }

  /// A varint that must fit an `Int`.
  mutating func int() throws -> Int {
    let value = try varint()
    guard value <= UInt64(Int.max) else { throw malformed("count \(value) too large") }
    return Int(value)
  }

  /// A count of items that each take at least `minimumBytesEach` bytes: never more than the
  /// bytes left could hold, so that a corrupt count cannot ask for a huge allocation.
  mutating func count(minimumBytesEach: Int) throws -> Int {
    let value = try varint()
    guard value <= UInt64((end - offset) / minimumBytesEach) else {
      throw malformed("count \(value) larger than the \(end - offset) bytes left can hold")
    }
    return Int(value)
  }

  mutating func double() throws -> Double {
    Double(bitPattern: try fixed(byteCount: 8))
  }

  mutating func coordinate() throws -> (latitude: Double, longitude: Double) {
    let latitude = try double()
    let longitude = try double()
    guard Coordinate.isValid(latitude: latitude, longitude: longitude) else {
      throw malformed("coordinate (\(latitude), \(longitude)) out of range")
    }
    return (latitude, longitude)
  }

  mutating func time(base: Int64) throws -> Timestamp {
    let zigzag = try varint()
    let delta = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
    return Timestamp(microsecondsSinceEpoch: base &+ delta)
  }

  /// A fix written by ``SnapshotWriter/fix(_:base:)``, with speed and course as the caller's
  /// flags say.
  mutating func fix(base: Int64, hasSpeed: Bool, hasCourse: Bool) throws
    -> EvaluatorSnapshot.StoredFix
  {
    let fixTime = try time(base: base)
    let (latitude, longitude) = try coordinate()
    return EvaluatorSnapshot.StoredFix(
      time: fixTime, latitude: latitude, longitude: longitude,
      speed: hasSpeed ? try double() : nil, course: hasCourse ? try double() : nil)
  }

  /// A string: its UTF-8 length (never more than the bytes left, so that a corrupt length is
  /// an error rather than an overflow or a huge allocation), then its bytes.
  mutating func string() throws -> String {
    let length = try count(minimumBytesEach: 1)
    let start = offset
    let utf8 = try raw(length)
    guard let text = String(validating: utf8, as: UTF8.self) else {
      throw SnapshotError(.malformed("a string that is not UTF-8"), offset: start)
    }
    return text
  }
}
