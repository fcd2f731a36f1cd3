/// The ids of check-in fences that were removed while a device's record still named them (a
/// zone replaced with other fences, or removed, during or after a stay), by device slot and
/// zone slot (decision 0019).
///
/// A ``ZoneRecord`` names its check-in fence by element slot, which is only good while the
/// slot holds that fence: when a change removes the fence, the record's slot becomes
/// ``ZoneRecord/detachedFence`` and its id is kept here, for the stay's check-out and dwell and
/// for snapshots. Entries whose record is gone or names a fence by slot again are dropped at the
/// next zone change.
typealias DetachedCheckInFences = DeviceZoneTable<String>
