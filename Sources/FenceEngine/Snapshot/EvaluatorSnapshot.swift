/// The per-device state of a ``ZoneEvaluator`` at one moment, independent of the zones' internal
/// slots, to be encoded, stored or moved, and restored into an evaluator with the same zones.
///
/// A snapshot holds the engine's time, its counters (accepted, skipped and rejected fixes), and
/// for every device, in handle order: its name, last accepted fix (time, position, speed,
/// course), its state with each zone (presence, check-in time and fence, pending dwell timer,
/// pending exit confirmation, MRT window), its monitored set and its safe radius. Zones and
/// fences are named by id, so the evaluator it is restored into may have been built in any
/// order; the zones themselves are not in the snapshot, only their ``zoneFingerprint``.
/// The configuration is not in the snapshot either: it is the host's choice on restore.
///
/// Pending dwell timers are the deadlines of the stays whose dwell has not fired (the
/// evaluator's timer queue is rebuilt from them on restore). Events of zone changes made
/// without an event list (the check-outs of `exitOnRemove`, handed out by the next call or by
/// ``ZoneEvaluator/emitZoneChangeEvents(into:)``) are kept whole, and handed out by the
/// restored evaluator instead.
///
/// ```swift
/// let bytes = evaluator.snapshot().encoded()
/// // ... on another process, with the same zones:
/// var resumed = try ZoneEvaluator(zones: zones)
/// try resumed.restore(try EvaluatorSnapshot(decoding: bytes))
/// ```
public struct EvaluatorSnapshot: Hashable, Sendable {
  /// The version of the binary format that ``encoded()`` writes and
  /// ``init(decoding:)`` reads.
  ///
  /// Version 2 added the waiting events of zone changes. A snapshot without any is written as
  /// version 1, as before, and both are read.
  public static let formatVersion: UInt16 = 2

  /// The ``ZoneEvaluator/zoneFingerprint`` of the evaluator the snapshot was taken from; an
  /// evaluator restores the snapshot only when its own fingerprint is the same.
  public let zoneFingerprint: UInt64
  /// The engine's time (see ``ZoneEvaluator/time``).
  public let time: Timestamp?
  /// How many fixes had been accepted.
  public let acceptedFixCount: Int
  /// How many accepted fixes had skipped the geometric tests.
  public let skippedFixCount: Int
  /// How many fixes had been rejected, by reason.
  public let rejections: RejectionCounts

  /// The stay counter (stay tokens identify a stay's dwell timer).
  let stayCounter: UInt64
  /// The evaluator's add sequence, and each zone's sequence at its addition, so that a device
  /// restored into a freshly built evaluator still sees a zone added after its last fix as new
  /// (initial trigger).
  let addSequence: UInt64
  /// Sorted by zone id.
  let zoneSequences: [ZoneSequence]
  /// In handle order.
  let devices: [Device]
  /// Events of zone changes the evaluator had not handed out yet, in their order.
  let pendingEvents: [ZoneEvent]

  /// The number of devices, including devices whose fixes were all rejected.
  public var deviceCount: Int { devices.count }

  /// How many events of zone changes wait in the snapshot, to be handed out by the next call of
  /// the evaluator it is restored into.
  public var pendingEventCount: Int { pendingEvents.count }

  /// The device names in handle order: a device's handle after a restore is its position here.
  public var deviceNames: [String] { devices.map(\.name) }

  init(
    zoneFingerprint: UInt64, time: Timestamp?, acceptedFixCount: Int, skippedFixCount: Int,
    rejections: RejectionCounts, stayCounter: UInt64, addSequence: UInt64,
    zoneSequences: [ZoneSequence], devices: [Device], pendingEvents: [ZoneEvent]
  ) {
    self.zoneFingerprint = zoneFingerprint
    self.time = time
    self.acceptedFixCount = acceptedFixCount
    self.skippedFixCount = skippedFixCount
    self.rejections = rejections
    self.stayCounter = stayCounter
    self.addSequence = addSequence
    self.zoneSequences = zoneSequences
    self.devices = devices
    self.pendingEvents = pendingEvents
  }
}

extension EvaluatorSnapshot {
  /// A zone id and the evaluator's add sequence when that id was added.
  struct ZoneSequence: Hashable, Sendable {
    var zone: String
    var addedSequence: UInt64
  }

  /// One device, with zones and elements named by id.
  struct Device: Hashable, Sendable {
    var name: String
    /// The last accepted fix, if any.
    var lastFix: StoredFix?
    /// The evaluator's add sequence at the device's last accepted fix.
    var lastSequence: UInt64
    /// Where the last full evaluation happened and how far from it nothing can change, when
    /// still valid.
    var safeDisc: SafeDisc?
    /// Sorted by zone id.
    var records: [Record]
    /// Element ids of the monitored set, sorted.
    var monitored: [String]
    /// The device's tags (rules v2), sorted.
    var tags: [String] = []
    /// Its states with roaming pairs (rules v2), sorted by zone id, then roaming device.
    var roaming: [RoamingPair] = []
  }

  /// A target's state with one (roaming zone, roaming device) pair: a record whose
  /// `checkInFence` is the roaming device's name, and the distance of a pending exit's first fix.
  struct RoamingPair: Hashable, Sendable {
    var record: Record
    var exitDistance: Double
  }

  /// An accepted fix as the snapshot keeps it: a device's last, or a pending exit's first.
  struct StoredFix: Hashable, Sendable {
    var time: Timestamp
    var latitude: Double
    var longitude: Double
    var speed: Double?
    var course: Double?
  }

  struct SafeDisc: Hashable, Sendable {
    var x: Double
    var y: Double
    var z: Double
    var radius: Double
  }

  /// Where a device stands with one zone; the raw values are the format's codes.
  enum Presence: UInt8, Hashable, Sendable {
    case outside = 0
    case insideSilently = 1
    case checkedIn = 2
  }

  /// The dwell of one stay; the raw values are the format's codes.
  enum Dwell: UInt8, Hashable, Sendable {
    case none = 0
    case scheduled = 1
    case waiting = 2
    case fired = 3
  }

  /// The first outside fix of a pending exit.
  struct PendingExit: Hashable, Sendable {
    /// Consecutive accepted fixes outside so far (at least 1).
    var count: Int
    /// The check-out is stamped with it.
    var fix: StoredFix
  }

  /// One device's state with one zone.
  struct Record: Hashable, Sendable {
    var zone: String
    var presence: Presence
    var stay: UInt64
    var checkInTime: Timestamp
    var checkInFence: String
    var willCheckOut: Bool
    var dwell: Dwell
    /// Meaningful when `dwell` is not `.none`; 0 otherwise.
    var dwellDeadline: Timestamp
    var exit: PendingExit?
    var windowStart: Timestamp?
  }
}
