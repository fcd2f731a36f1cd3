import FenceEngine
import FenceGeometry

/// A brute-force model of ``FenceEngine/ZoneEvaluator`` for the rules it can state exactly,
/// written from `Docs/EventSemantics.md` alone: zones of fences (no GEOLINEs) with any minimum
/// retrigger time, exit confirmations and initial trigger, check-out on, no dwell and no exit
/// hysteresis; no proximity monitoring; zones loaded once, before the first fix.
///
/// It keeps no index, no cache and no safe radius: every accepted fix tests every fence of
/// every zone with ``FenceGeometry/Area/contains(_:)``, and a device's state per zone is its
/// stay (checked in with a fence and time, or silent), its pending exit and its retrigger
/// window. The differential fuzz target feeds the same fixes to
/// both and requires the same check-ins, check-outs and rejection counts, whatever the
/// evaluator's configuration (cell cache, skipping, predicate backend, snapshot and restore).
public struct ReferenceEvaluator {
  /// The parts of an event the model decides.
  public struct Event: Hashable, Sendable, CustomStringConvertible {
    public var kind: ZoneEvent.Kind
    public var device: String
    public var zone: String?
    public var fence: String?
    public var time: Timestamp
    public var checkInTime: Timestamp?

    public init(
      kind: ZoneEvent.Kind, device: String, zone: String?, fence: String?, time: Timestamp,
      checkInTime: Timestamp?
    ) {
      self.kind = kind
      self.device = device
      self.zone = zone
      self.fence = fence
      self.time = time
      self.checkInTime = checkInTime
    }

    /// The same parts of an engine event.
    public init(_ event: ZoneEvent) {
      self.init(
        kind: event.kind, device: event.device, zone: event.zone, fence: event.fence,
        time: event.time, checkInTime: event.checkInTime)
    }

    public var description: String {
      var text = "\(kind.rawValue) \(device) \(zone ?? "-")/\(fence ?? "-") at \(time.microsecondsSinceEpoch)"
      if let checkInTime { text += " (in at \(checkInTime.microsecondsSinceEpoch))" }
      return text
    }
  }

  /// A device's state with one zone.
  private struct Record {
    /// The check-in of a checked-in stay; `nil` for a silent stay or outside.
    var checkIn: (fence: String, time: Timestamp)?
    var isInside = false
    /// Consecutive accepted fixes outside during a stay, and the first one's time.
    var exitCount = 0
    var firstExitTime = Timestamp(microsecondsSinceEpoch: 0)
    /// The start of the retrigger window (the last check-out), if any.
    var windowStart: Timestamp?
  }

  private struct Device {
    var lastTime: Timestamp
    var lastCoordinate: Coordinate
    /// By zone id.
    var records: [String: Record] = [:]
  }

  /// Sorted by id, each with its fences sorted by id.
  private let zones: [Zone]
  private let maximumAccuracy: Double
  private let maximumSpeed: Double?
  private var devices: [String: Device] = [:]
  /// Rejected fixes by reason.
  public private(set) var rejections: [RejectionReason: Int] = [:]
  /// Fixes accepted so far.
  public private(set) var acceptedFixCount = 0

  /// A model of an evaluator with `configuration`'s accuracy and speed limits, loaded with
  /// `zones`, which must be within the model's rules.
  public init(zones: [Zone], configuration: ZoneEvaluator.Configuration) {
    precondition(configuration.proximity == nil, "the model has no proximity monitoring")
    for zone in zones {
      let rules = zone.rules
      precondition(
        zone.geolines.isEmpty && rules.dwell == nil && rules.checkOut && rules.exitHysteresis == 0,
        "zone \(zone.id) is outside the model")
    }
    self.zones = zones.sorted { $0.id < $1.id }.map { zone in
      var sorted = zone
      sorted.fences.sort { $0.id < $1.id }
      return sorted
    }
    maximumAccuracy = configuration.maximumAccuracy
    maximumSpeed = configuration.maximumSpeed
  }

  /// The events of one fix: check-outs by zone id, then check-ins by zone id; none for a
  /// rejected fix, which changes nothing but its count.
  public mutating func process(_ fix: LocationFix) -> [Event] {
    if let reason = rejectionReason(fix) {
      rejections[reason, default: 0] += 1
      return []
    }
    acceptedFixCount += 1
    let coordinate = Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude)
    let position = Position(coordinate)
    let isFirstFix = devices[fix.device] == nil
    var device = devices[fix.device] ?? Device(lastTime: fix.time, lastCoordinate: coordinate)
    var checkOuts: [Event] = []
    var checkIns: [Event] = []
    for zone in zones {
      let covering = zone.fences.first { $0.area.contains(position) }
      var record = device.records[zone.id] ?? Record()
      if record.isInside {
        if covering != nil {
          record.exitCount = 0
        } else {
          record.exitCount += 1
          if record.exitCount == 1 { record.firstExitTime = fix.time }
          if record.exitCount >= zone.rules.exitConfirmations {
            // The stay ends, stamped with its first outside fix.
            if let checkIn = record.checkIn {
              checkOuts.append(
                Event(
                  kind: .checkOut, device: fix.device, zone: zone.id, fence: checkIn.fence,
                  time: record.firstExitTime, checkInTime: checkIn.time))
              record.windowStart = record.firstExitTime
            }
            record = Record(windowStart: record.windowStart)
          }
        }
      } else if let fence = covering {
        record.isInside = true
        let window = zone.rules.minimumRetriggerTime
        let suppressed =
          window > 0
          && record.windowStart.map { fix.time < $0.adding(seconds: window) } ?? false
        if !(isFirstFix && !zone.rules.initialTrigger) && !suppressed {
          record.checkIn = (fence.id, fix.time)
          checkIns.append(
            Event(
              kind: .checkIn, device: fix.device, zone: zone.id, fence: fence.id, time: fix.time,
              checkInTime: nil))
        }
      }
      device.records[zone.id] = record
    }
    device.lastTime = fix.time
    device.lastCoordinate = coordinate
    devices[fix.device] = device
    return checkOuts + checkIns
  }

  /// The spec's rejection reasons, first match wins.
  private func rejectionReason(_ fix: LocationFix) -> RejectionReason? {
    guard Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) else {
      return .invalidCoordinate
    }
    if fix.latitude == 0 && fix.longitude == 0 { return .nullIsland }
    let last = devices[fix.device]
    if let last {
      if fix.time < last.lastTime { return .outOfOrder }
      if fix.time == last.lastTime { return .duplicate }
    }
    if let accuracy = fix.accuracy, !(accuracy >= 0 && accuracy <= maximumAccuracy) {
      return .lowAccuracy
    }
    if let last, let maximumSpeed {
      let metres = WGS84.distance(
        last.lastCoordinate, Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude))
      if metres / fix.time.seconds(since: last.lastTime) > maximumSpeed { return .implausibleSpeed }
    }
    return nil
  }
}
