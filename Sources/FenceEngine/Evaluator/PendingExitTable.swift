/// The first fix of a stay's pending exit: the fix outside that a later confirmation stamps the
/// check-out with (its time, position and motion, as the zone's events report them).
struct PendingExit: Equatable {
  var time: Timestamp
  var latitude: Double
  var longitude: Double
  var speed: Double?
  var course: Double?
}

/// The first fixes of the pending exits that outlive the fix that opened them, by device slot
/// and zone slot.
///
/// Only a zone that asks for more than one fix outside (`exitConfirmations` above 1) leaves an
/// exit pending between fixes; an exit confirmed by its first fix is stamped with that fix and
/// never enters the table. Keeping these 40 bytes out of every ``ZoneRecord`` makes the record
/// 72 bytes instead of 120: a million devices inside a million circles hold over a million
/// records.
///
/// Invariant: between fixes, a fixed zone's record has an entry here exactly when its
/// `exitCount` is above 0. Entries are removed when the exit is confirmed or the device is found
/// inside again, when a zone change closes the stay, and when the record is dropped.
struct PendingExitTable {
  private var exits: [UInt64: PendingExit] = [:]

  init() {}

  @inline(__always)
  private static func key(device: Int, zone: Int32) -> UInt64 {
    DeviceZoneKey.make(device: device, zone: zone)
  }

  /// The pending exit of device slot `device` with zone slot `zone`, if the table holds one.
  subscript(device device: Int, zone zone: Int32) -> PendingExit? {
    get { exits[Self.key(device: device, zone: zone)] }
    set { exits[Self.key(device: device, zone: zone)] = newValue }
  }

  /// Removes and returns the pending exit of device slot `device` with zone slot `zone`.
  @discardableResult
  mutating func remove(device: Int, zone: Int32) -> PendingExit? {
    guard !exits.isEmpty else { return nil }
    return exits.removeValue(forKey: Self.key(device: device, zone: zone))
  }

  /// Removes every pending exit whose device slot and zone slot pass `isDropped` (zone and
  /// device changes outside the per-fix step).
  mutating func removeAll(where isDropped: (_ device: Int, _ zone: Int32) -> Bool) {
    guard !exits.isEmpty else { return }
    exits = exits.filter { key, _ in
      !isDropped(DeviceZoneKey.device(key), DeviceZoneKey.zone(key))
    }
  }

  /// How many exits are pending.
  var count: Int { exits.count }

  var isEmpty: Bool { exits.isEmpty }
}

/// One device slot and one zone slot as one 8-byte key (of ``PendingExitTable`` and
/// ``DetachedCheckInFences``).
enum DeviceZoneKey {
  @inline(__always)
  static func make(device: Int, zone: Int32) -> UInt64 {
    UInt64(UInt32(truncatingIfNeeded: device)) << 32 | UInt64(UInt32(bitPattern: zone))
  }

  static func device(_ key: UInt64) -> Int { Int(key >> 32) }

  static func zone(_ key: UInt64) -> Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: key)) }
}
