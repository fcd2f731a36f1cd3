/// Values kept for a few (device slot, zone slot) pairs, beside the devices' records: what most
/// records never need, so that a ``ZoneRecord`` does not carry room for it
/// (``PendingExitTable``, ``DetachedCheckInFences``).
///
/// A dictionary keyed by both slots in one 8-byte word. Its users remove an entry when its
/// record ends or goes, and a zone change drops what is left for removed zones.
struct DeviceZoneTable<Value> {
  private var values: [UInt64: Value] = [:]

  init() {}

  @inline(__always)
  private static func key(device: Int, zone: Int32) -> UInt64 {
    UInt64(UInt32(truncatingIfNeeded: device)) << 32 | UInt64(UInt32(bitPattern: zone))
  }

  /// The value for device slot `device` and zone slot `zone`, if the table holds one.
  subscript(device device: Int, zone zone: Int32) -> Value? {
    get { values.isEmpty ? nil : values[Self.key(device: device, zone: zone)] }
    set { values[Self.key(device: device, zone: zone)] = newValue }
  }

  /// Removes and returns the value for device slot `device` and zone slot `zone`.
  @discardableResult
  mutating func remove(device: Int, zone: Int32) -> Value? {
    guard !values.isEmpty else { return nil }
    return values.removeValue(forKey: Self.key(device: device, zone: zone))
  }

  /// Removes the values whose device slot and zone slot pass `isDropped` (zone changes, outside
  /// the per-fix step).
  mutating func removeAll(where isDropped: (_ device: Int, _ zone: Int32) -> Bool) {
    guard !values.isEmpty else { return }
    values = values.filter { key, _ in
      !isDropped(Int(key >> 32), Int32(bitPattern: UInt32(truncatingIfNeeded: key)))
    }
  }

  var count: Int { values.count }

  var isEmpty: Bool { values.isEmpty }
}
