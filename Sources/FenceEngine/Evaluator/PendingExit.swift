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
/// and zone slot (decision 0019).
///
/// Only a zone that asks for more than one fix outside (`exitConfirmations` above 1) leaves an
/// exit pending between fixes; an exit confirmed by its first fix is stamped with that fix and
/// never enters the table. Keeping these 40 bytes out of every ``ZoneRecord`` lets a million
/// devices inside a million circles hold a small record each.
///
/// Invariant: between fixes, a fixed zone's record has an entry here exactly when its
/// `exitCount` is above 0. Entries are removed when the exit is confirmed or the device is found
/// inside again, when a zone change closes the stay, and when the record is dropped.
typealias PendingExitTable = DeviceZoneTable<PendingExit>
