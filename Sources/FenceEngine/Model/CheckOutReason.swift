/// Why a check-out happened other than the device leaving (rules v2); written as the event's
/// `reason`. A check-out caused by the device itself has none.
public enum CheckOutReason: String, CaseIterable, Hashable, Sendable, Codable {
  /// The zone's schedule window closed while the device was checked in (stamped with the
  /// closing instant).
  case scheduleClosed
  /// The zone was removed (by a change, by its `validUntil`, or replaced by a zone no fence of
  /// which holds the device) and its rules say `exitOnRemove` (stamped with that instant).
  case zoneRemoved
}
