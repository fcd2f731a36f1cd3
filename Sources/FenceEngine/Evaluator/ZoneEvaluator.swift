import FenceGEOS
import FenceGeometry
import FenceIndex

/// Turns a stream of location fixes into check-in, check-out, dwell and monitored-set events,
/// following the project's trigger semantics (`Docs/EventSemantics.md`).
///
/// A plain value with no clock, lock or I/O, used by one thread at a time: feed it fixes with
/// ``process(_:into:)`` (in time order per device) and explicit time with
/// ``advance(to:into:)``; it appends the events they cause. Time only ever comes from fixes and
/// advances, so the same input always gives the same events with the same ids.
///
/// Zones can be added, replaced (same id) and removed between any two fixes; a load is
/// validated completely before anything changes.
///
/// ```swift
/// var evaluator = ZoneEvaluator()
/// try evaluator.add(Zone(id: "depot", fences: [try .circle(id: "gate", center: gate, radius: 50)]))
/// var events: [ZoneEvent] = []
/// for fix in fixes { evaluator.process(fix, into: &events) }
/// evaluator.advance(to: end, into: &events)
/// ```
///
/// With the ``PredicateBackend/geosPrepared`` backend the evaluator holds GEOS prepared
/// geometries, which copies of the value share: use each copy on one thread only. The type is
/// therefore not `Sendable`; hand it over with `sending`, or keep it behind a lock.
///
/// - Complexity: per fix, one R-tree point query and an exact test of the fences whose boxes
///   hold the fix (circles from a flat table, no reference counting), one GEOLINE query over the
///   movement's box when the device moved and GEOLINEs are loaded, and work proportional to the
///   zones the device is in; with proximity monitoring, best-first nearest searches that
///   measure only the regions they reach. Steady-state fixes that cause no event allocate
///   nothing. Loading *n* zones at once is O(*n* log *n*) (one bulk index pass).
public struct ZoneEvaluator {
  /// The configuration this evaluator was made with.
  public let configuration: Configuration

  // MARK: Zones and their elements (fences and GEOLINEs)

  var zoneSlots: [CompiledZone?] = []
  /// Zone slots by id; after a first large load, built on first use (``ZoneIDTable``).
  var zoneSlotByID = ZoneIDTable()
  var freeZoneSlots: [Int32] = []
  /// Per element slot, the fence's or GEOLINE's id when it is not its zone's id ("" for the
  /// others and for a free slot; see ``ElementCore/idIsZoneID`` and ``elementID(at:)``): empty
  /// while every element's id is its zone's, as in a file of one feature per zone (16 MB at a
  /// million). The element tables below are indexed by the same slots and change together. A GEOLINE's public value stays
  /// in its zone's (at its position among the zone's slots); a fence's is rebuilt from these
  /// tables.
  var elementIDs: [String] = []
  /// By element slot, a fence's position among its zone's fences sorted by id (what picks the
  /// check-in fence of a fix inside several): empty while every rank is 0, as in a load of
  /// zones of one fence each (``ElementCore``, 4 bytes a slot less).
  var elementRanks: [Int32] = []
  /// Slots by id of the elements whose id is not their zone's; the others are found through
  /// their zone (``elementSlot(id:)``), 16 MB less at a million one-fence zones.
  var elementSlotByID = IDSlotTable()
  /// How many live elements have their zone's id (``ElementCore/idIsZoneID``): the id table
  /// does not count them.
  var zoneNamedElementCount = 0
  var freeElementSlots: [Int32] = []
  /// Per element slot, what the per-fix tests read.
  var elementCores: [ElementCore] = []
  /// Per zone slot, the rules as the per-fix step reads them (kept in step with `zoneSlots`).
  var zoneCores = ZoneCoreTable()
  /// Per element slot, a polygon fence's shape: empty while no element is a polygon, else as
  /// long as the other element tables (read through `sparseSlot`).
  var polygonFences: [PolygonFence?] = []
  /// Per element slot, a GEOLINE's line: empty while no element is a GEOLINE, else as long as
  /// the other element tables (read through `sparseSlot`).
  var geolineShapes: [GeolineShape?] = []
  /// The names of the fences that have one: with the tables above (a circle's centre is in its
  /// core's ``CircleDegreeTest``, its radius in its detail) they give back each zone's fences
  /// (``fence(at:)``), which the zone table does not keep (a million one-fence arrays held 136
  /// bytes each).
  var fenceNames: [Int32: String] = [:]
  var fenceIndex = RTree()
  var geolineIndex = RTree()
  /// Incremented by every zone added under a new id.
  var addSequence: UInt64 = 0
  /// Incremented by every change of the zones (add, replace, remove): it invalidates every
  /// device's safe radius.
  var zoneGeneration: UInt64 = 0
  /// Created on the first load when the backend is ``PredicateBackend/geosPrepared``.
  var geosContext: GEOSContext?

  // MARK: Rules v2 (see `ZoneEvaluator+Conditions.swift`, `ZoneEvaluator+ZoneClock.swift`)

  /// By zone slot, the conditions of zones that have them.
  var zoneConditions: [Int32: ZoneConditions] = [:]
  /// By zone slot, the speed and course conditions as the per-fix test reads them (grown to the
  /// highest conditioned slot; empty while no zone has conditions).
  var conditionCores: [ConditionCore] = []
  /// How many zones have conditions: while none does, no fix pays for them.
  var conditionedZoneCount = 0
  /// The speed and course of the fix being evaluated, once a condition asked for them.
  var motionCache = MotionCache()
  /// By device slot, the tags of devices that have them (sorted).
  var deviceTags: [Int32: [String]] = [:]
  /// By zone slot, the lifetime and schedule state of zones that have either.
  var zoneTimings: [Int32: ZoneTiming] = [:]
  /// When each timed zone changes next (lifetime or schedule), earliest first.
  var zoneClock = ZoneClockQueue()
  /// Schedule clocks by schedule, shared by the zones that have the same one.
  var scheduleNumbers: [ZoneSchedule: Int32] = [:]
  var scheduleClockList: [ScheduleClock] = []
  /// The last ``ZoneTiming/token`` given out.
  var timingTokens: UInt64 = 0
  /// Roaming zones (`roam`), each with the grid of its carriers (see
  /// `ZoneEvaluator+Roaming.swift`); empty while none is loaded, so no fix pays for them.
  var roaming = RoamingFences()
  /// By target device slot, its states with (roaming zone, carrier) pairs.
  var roamingRecords: [Int32: [RoamingRecord]] = [:]
  /// Pending roaming dwells, and the earliest deadline among them.
  var roamingDwellQueue: [RoamingDwellEntry] = []
  var roamingNextDeadline: Timestamp?
  /// Events of zone changes made without an event list (check-outs of `exitOnRemove` zones),
  /// given out first by the next ``process(_:into:)`` or ``advance(to:into:)``.
  var pendingEvents: [ZoneEvent] = []

  // MARK: Devices and time

  /// Device slots by name, the names read back from `deviceNames` (8-byte buckets: a million
  /// devices' `[String: Int32]` kept a copy of every name, about 40 bytes a device).
  var deviceSlotByName = IDSlotTable()
  /// Whether `deviceSlotByName` holds every name: false after ``registerDevices(named:)``,
  /// which leaves it empty until the first call that needs it to register or find a name by
  /// changing the evaluator (``fileDeviceNames()``); meanwhile a lookup that does not change it
  /// scans the names. A replay that registered its fleet at once and then names its devices
  /// by handle never needs the table: 10.7 MB for a million devices.
  var deviceNamesAreFiled = true
  var devices: [DeviceState] = []
  /// Blocks of one to four zone records for the devices of a large fleet (see
  /// ``ZoneRecordStore``).
  var recordStore = ZoneRecordStore()
  /// By device slot, its block in `recordStore` (the block's bits plus one; 0: its records are
  /// in its state's array). Empty until a record goes to a block; it reaches a device's slot
  /// when that device's records first do.
  var recordBlocks: [UInt32] = []
  /// The fewest devices whose records go to the store's blocks (``ZoneRecordStore/pooledFleet``;
  /// tests set it to 0 to pool a small fleet's records).
  var recordPoolingFleet = ZoneRecordStore.pooledFleet
  /// Whether the per-fix step may take the shorter way for records of plain zones
  /// (``checkOutAndInPlainly(fix:isFirst:device:records:into:)``); tests turn it off to compare
  /// the two ways.
  var takesPlainSteps = true
  /// How many fixes took that shorter way (tests check that it is taken).
  var plainStepCount = 0
  /// Each device's name, parallel to `devices`: a column of its own so that a caller holding
  /// every name in an array can give the array itself (``registerDevices(named:)``) instead of
  /// the evaluator copying each name while the caller's array is still held.
  var deviceNames: [String] = []
  /// One per device, parallel to `devices`, when skipping is on; empty otherwise.
  var safeDiscs: [SafeDisc] = []
  /// Per device slot, its monitored set (proximity monitoring) as element slots sorted
  /// ascending. Filled up to the devices' count by the first set stored; empty (and 8 bytes a
  /// device lighter) without proximity monitoring. Read with ``monitoredSet(of:)``.
  var monitoredSets: [[Int32]] = []
  var dwellQueue = DwellQueue()
  /// The first fixes of pending exits that span fixes (zones with `exitConfirmations` above 1).
  var pendingExits = PendingExitTable()
  /// The ids of check-in fences removed while records still named them.
  var detachedCheckInFences = DetachedCheckInFences()
  var stayCounter: UInt64 = 0

  /// The engine's time: the latest accepted fix time or advance. `nil` before either.
  /// Rejected fixes do not move it.
  public internal(set) var time: Timestamp?
  /// How many fixes were rejected, by reason.
  public internal(set) var rejections = RejectionCounts()
  /// How many fixes were accepted.
  public internal(set) var acceptedFixCount = 0
  /// How many accepted fixes skipped the geometric tests because they could not change anything
  /// (see ``Configuration/skipsUnchangedFixes``).
  public internal(set) var skippedFixCount = 0
  /// How many accepted fixes only fired timers because their device was settled in the cell
  /// of its last full evaluation (see ``settledState(_:cell:testAnswers:records:)``): on with
  /// the cell cache unless ``Configuration/skipsUnchangedFixes`` is (whose safe radius does
  /// that job then). Counted apart from ``skippedFixCount``, and not kept in snapshots.
  public internal(set) var settledFixCount = 0

  /// The safe radius searched for around a device at rest or walking, in metres; faster
  /// devices get up to 32 fixes at their pace, at most 2,000 m (see
  /// ``Configuration/skipsUnchangedFixes``).
  public static let safeRadiusLimit = 250.0

  // MARK: Per-fix scratch buffers, reused so that steady-state fixes allocate nothing

  /// Empty between fixes (each user clears it before putting it back).
  var scratchHits: [Int32] = []
  /// During a batch's call of the per-fix step, the fences its look-ahead found at the fix's
  /// point, when it found them all (see ``FoundAhead``); `fix` -1 otherwise.
  var fencesFoundAhead = FoundAhead()
  var scratchCandidates: [Int32] = []
  var scratchCrossings: [CrossingHit] = []
  var scratchLineCrossings: [GeolineCrossing] = []
  var scratchZones: [Int32] = []
  /// The checked-in stays that the current fix's check-out step ended, with the exit that
  /// ended each (its first fix): their check-outs are stamped with it, and a GEOLINE crossing
  /// of the fix's movement before its time happened while the device was checked in. Emptied
  /// by the check-out step.
  var scratchEndedStays: [(zone: Int32, exit: PendingExit)] = []
  var scratchDue: [DwellEntry] = []
  var scratchNearby: [(distance: Double, element: Int32)] = []
  var scratchMonitored: [Int32] = []
  var scratchNeighbors: [RTree.Neighbor] = []
  var scratchGeolineNeighbors: [RTree.Neighbor] = []
  var nearestScratch = RTree.NearestScratch()
  var scratchCellLists = CellLists()

  /// Fence answers per visited cell (see ``Configuration/cellCacheCapacity``), valid for the
  /// zones of `cellCacheGeneration`.
  var cellCache: ContainmentCellCache
  var cellCacheGeneration: UInt64 = 0
  /// The high 32 bits of the cache's emptyings when the device cell memos were last all
  /// forgotten (see ``startCellMemoEra()``).
  var cellMemoEra: UInt64 = 0
  /// The box holding every GEOLINE, valid for the zones of `geolineExtentGeneration` (see
  /// `movementMayMeetGeolines(_:)`), and, when there are few, every GEOLINE's slot and box
  /// (`listsGeolines`; see `refreshGeolineSummary()`).
  var geolineExtent: BoundingBox?
  var geolineExtentGeneration: UInt64 = .max
  var geolineBoxes: [GeolineBox] = []
  var listsGeolines = false

  /// An evaluator with no zones.
  public init(configuration: Configuration = .default) {
    self.configuration = configuration
    cellCache = ContainmentCellCache(
      capacity: configuration.predicateBackend == .native
        ? min(max(0, configuration.cellCacheCapacity), Configuration.maximumCellCacheCapacity) : 0)
  }

  /// An evaluator loaded with `zones` (all or nothing).
  ///
  /// - Throws: ``ZoneError`` for the first invalid zone.
  public init(configuration: Configuration = .default, zones: consuming [Zone]) throws {
    self.init(configuration: configuration)
    try add(consume zones)
  }

  // MARK: - Devices

  /// A dense handle for a device, so that a caller can skip the name lookup per fix.
  public struct DeviceHandle: Hashable, Sendable {
    /// The device's slot in the evaluator that issued the handle.
    public let slot: Int32
  }

  /// The handle of a device, registering it on first use.
  ///
  /// Handles are valid only in the evaluator that issued them (and its copies).
  public mutating func handle(forDevice name: String) -> DeviceHandle {
    if !deviceNamesAreFiled { fileDeviceNames() }
    let next = Int32(devices.count)
    let slot: Int32
    do {
      // Read through a second reference that ends before `deviceNames` grows (no copy).
      let known = deviceNames
      slot = deviceSlotByName.slot(interning: name, next: next) { known[Int($0)] }
    }
    if slot == next {
      devices.append(DeviceState())
      deviceNames.append(name)
      if configuration.skipsUnchangedFixes { safeDiscs.append(SafeDisc()) }
    }
    return DeviceHandle(slot: slot)
  }

  /// The name of the device behind `device`.
  ///
  /// - Precondition: `device` was issued by this evaluator (``handle(forDevice:)``).
  public func deviceName(_ device: DeviceHandle) -> String {
    precondition(
      device.slot >= 0 && Int(device.slot) < devices.count,
      "Device handle \(device.slot) was not issued by this evaluator (\(devices.count) devices)")
    return deviceNames[Int(device.slot)]
  }

  /// Makes room for `count` devices in all, so that registering them does not grow the
  /// device tables step by step (a caller that knows its fleet, such as a replay of a file).
  public mutating func reserveCapacity(devices count: Int) {
    devices.reserveCapacity(growingTo: count)
    deviceNames.reserveCapacity(growingTo: count)
    if !deviceNamesAreFiled { fileDeviceNames() }
    deviceSlotByName.reserveCapacity(count)
    if configuration.skipsUnchangedFixes { safeDiscs.reserveCapacity(growingTo: count) }
  }

  /// The slot of the device named `name`, if it has one (by a scan of the names while they are
  /// not filed: see ``deviceNamesAreFiled``).
  func deviceSlot(named name: String) -> Int32? {
    guard deviceNamesAreFiled else { return deviceNames.firstIndex(of: name).map { Int32($0) } }
    return deviceNames.withUnsafeBufferPointer { names in
      deviceSlotByName.slot(of: name) { names[Int($0)] }
    }
  }

  /// Files every device name in `deviceSlotByName` (the names are distinct: a bulk
  /// registration checked them).
  @inline(never)
  mutating func fileDeviceNames() {
    var table = IDSlotTable()
    table.reserveCapacity(deviceNames.count)
    for (slot, name) in deviceNames.enumerated() { table.insert(name, slot: Int32(slot)) }
    deviceSlotByName = table
    deviceNamesAreFiled = true
  }

  /// The number of devices seen so far (including devices whose fixes were all rejected).
  public var deviceCount: Int { devices.count }

  // MARK: - Processing

  /// Processes one fix and appends the events it causes, in the spec's order: rejection,
  /// dwells due, check-outs, GEOLINE check-ins in path order, area check-ins, monitored-set
  /// change.
  ///
  /// A rejected fix changes nothing; it is counted in ``rejections`` and, when
  /// ``Configuration/reportsRejections`` is on, appended as a `rejected` event.
  public mutating func process(_ fix: LocationFix, into events: inout [ZoneEvent]) {
    let handle = handle(forDevice: fix.device)
    process(FixReading(fix), slot: Int(handle.slot), into: &events)
  }

  /// Processes one fix of the device behind `device`, skipping the name lookup; `fix.device`
  /// is ignored and the handle's device name is used on events.
  public mutating func process(
    _ fix: LocationFix, device: DeviceHandle, into events: inout [ZoneEvent]
  ) {
    precondition(
      device.slot >= 0 && Int(device.slot) < devices.count,
      "Device handle \(device.slot) was not issued by this evaluator (\(devices.count) devices)")
    process(FixReading(fix), slot: Int(device.slot), into: &events)
  }

  /// Moves the engine's time to `time`, firing every dwell due at or before it (stamped with
  /// its deadline, in deadline order, then zone id, then device id).
  ///
  /// Dwells of devices with a pending exit wait (see `Docs/EventSemantics.md`). An earlier time
  /// than the engine's fires nothing and leaves the engine's time unchanged.
  public mutating func advance(to time: Timestamp, into events: inout [ZoneEvent]) {
    runZoneClock(upTo: time, into: &events)
    fireDueDwells(upTo: time, current: nil, fix: nil, into: &events)
    if !roaming.isEmpty { fireDueRoamingDwells(upTo: time, into: &events) }
    if self.time.map({ time > $0 }) ?? true { self.time = time }
  }
}
