/// The ids of check-in fences that were removed while a device's record still named them (a
/// zone replaced with other fences, or removed, during or after a stay), by device slot and
/// zone slot.
///
/// A ``ZoneRecord`` names its check-in fence by element slot, which is only good while the
/// slot holds that fence: when a change removes the fence, the record's slot becomes -1 and
/// its id is kept here, for the stay's check-out and dwell and for snapshots. Entries whose
/// record is gone or names a fence by slot again are dropped at the next zone change.
struct DetachedCheckInFences {
  private var ids: [UInt64: String] = [:]

  init() {}

  /// The id kept for device slot `device`'s record of zone slot `zone`, if any.
  subscript(device device: Int, zone zone: Int32) -> String? {
    get { ids.isEmpty ? nil : ids[DeviceZoneKey.make(device: device, zone: zone)] }
    set { ids[DeviceZoneKey.make(device: device, zone: zone)] = newValue }
  }

  /// Removes the entries whose device slot and zone slot pass `isDropped`.
  mutating func removeAll(where isDropped: (_ device: Int, _ zone: Int32) -> Bool) {
    guard !ids.isEmpty else { return }
    ids = ids.filter { key, _ in !isDropped(DeviceZoneKey.device(key), DeviceZoneKey.zone(key)) }
  }

  var count: Int { ids.count }

  var isEmpty: Bool { ids.isEmpty }
}
