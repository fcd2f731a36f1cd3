import FenceEngine

/// One durable command: what changes the engine, in the order the store committed it.
///
/// Every change of a ``FenceStore``'s engine is one of these, written to the command log in the
/// same transaction as every event it produced, so that recovery (latest snapshot, then the
/// later commands replayed) rebuilds exactly the engine that answered.
public enum StoreCommand: Hashable, Sendable {
  /// Fixes, processed in this order.
  case fixes([LocationFix])
  /// Moves the engine's time (dwells due by then fire).
  case advance(Timestamp)
  /// Adds zones, replacing zones with the same ids, all or nothing.
  case addZones([Zone])
  /// Makes the zone set exactly these zones.
  case replaceAllZones([Zone])
  /// Removes one zone (its device state dropped without events, or checked out with
  /// `exitOnRemove`).
  case removeZone(String)
  /// Sets a device's tags (rules v2 `deviceTags` conditions), replacing its previous ones.
  case setDeviceTags(device: String, tags: [String])

  /// The code stored in the log's `kind` column.
  public var kindCode: Int {
    switch self {
    case .fixes: 1
    case .advance: 2
    case .addZones: 3
    case .replaceAllZones: 4
    case .removeZone: 5
    case .setDeviceTags: 6
    }
  }

  /// A name for logs and metrics.
  public var kindName: String {
    switch self {
    case .fixes: "fixes"
    case .advance: "advance"
    case .addZones: "addZones"
    case .replaceAllZones: "replaceAllZones"
    case .removeZone: "removeZone"
    case .setDeviceTags: "setDeviceTags"
    }
  }
}
