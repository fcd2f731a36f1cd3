extension ZoneEvaluator {
  /// How a ``ZoneEvaluator`` accepts fixes, tests fences and monitors nearby regions.
  public struct Configuration: Hashable, Sendable {
    /// Fixes whose `accuracy` is larger than this many metres are rejected (`lowAccuracy`).
    /// Default 100 m.
    public var maximumAccuracy: Double
    /// When set, a fix implying a speed above this many metres per second from the device's
    /// last accepted fix is rejected (`implausibleSpeed`). Default `nil` (no check).
    public var maximumSpeed: Double?
    /// Nearest-N monitoring of fences and GEOLINEs; `nil` (the default) turns it off.
    public var proximity: ProximityMonitoring?
    /// Which code tests polygon fences. Default ``PredicateBackend/native``.
    public var predicateBackend: PredicateBackend
    /// Whether rejected fixes are reported as `rejected` events (diagnostics). Default `false`:
    /// rejections are only counted in ``ZoneEvaluator/rejections``.
    public var reportsRejections: Bool
    /// Whether fixes that provably cannot change anything skip the geometric tests (default
    /// `false`). After each full evaluation the evaluator notes a *safe radius* around the fix:
    /// the distance to the nearest fence boundary or GEOLINE, searched up to
    /// ``ZoneEvaluator/safeRadiusLimit`` (250 m) or, for a faster device, 32 fixes at its pace
    /// (at most 2,000 m); or 0 when an exit is pending, a dwell is waiting, the device is
    /// inside a zone only through its hysteresis, or the radius is no larger than 0.5 m plus
    /// the device's pace (too small to help at that pace). A later fix of the device within
    /// that radius (less a 0.5 m margin; a bound in degrees, else one ECEF distance per fix)
    /// cannot enter, leave or cross anything, so only its dwell timers and last-fix
    /// bookkeeping run. Zone changes invalidate every safe radius. Not used with proximity
    /// monitoring (the monitored order can change anywhere). The events are exactly those of
    /// a full evaluation.
    public var skipsUnchangedFixes: Bool
    /// How many cells (1/1024 degree, about 110 m square) of fence answers the evaluator keeps
    /// for the cells fixes have visited (default 65,536; 0 turns the cache off). The first fix
    /// in a cell sorts the fences whose boxes meet it into those covering the whole cell, those
    /// to test fix by fix and those covering none of it; later fixes in that cell, of any
    /// device, skip the index search and most polygon tests. The cache takes 160 bytes per
    /// cell, starting at 1,024 cells and doubling as cells fill (10.5 MB at the default
    /// capacity), plus the cell tests of polygons crossing visited cells, allocated as made
    /// and bounded by 388 bytes per cell of capacity; it is emptied when full or when a zone
    /// changes, and never changes an answer. Used with the ``PredicateBackend/native`` backend
    /// only (with GEOS every polygon test goes to GEOS).
    public var cellCacheCapacity: Int
    /// Polygon fences of at least this many edges have their tables (latitude stripes, chunk
    /// trees) built when their zone is added, in parallel across the cores, rather than by the
    /// first fix that comes near them (default 5,000; 0 builds them for every polygon, and
    /// `Int.max` for none). A 20,000-edge coastline's tables take about a millisecond to
    /// build, which a fix would otherwise wait for, and about 12 bytes an edge to keep, which
    /// a polygon no fix comes near would otherwise never take. Only the answers' timing
    /// changes, never the answers (decision 0027). Used with the
    /// ``PredicateBackend/native`` backend only.
    public var tablesAheadEdgeCount: Int

    /// A configuration; every parameter defaults to the spec's default.
    public init(
      maximumAccuracy: Double = 100, maximumSpeed: Double? = nil,
      proximity: ProximityMonitoring? = nil, predicateBackend: PredicateBackend = .native,
      reportsRejections: Bool = false, skipsUnchangedFixes: Bool = false,
      cellCacheCapacity: Int = 65_536, tablesAheadEdgeCount: Int = 5_000
    ) {
      self.tablesAheadEdgeCount = tablesAheadEdgeCount
      self.maximumAccuracy = maximumAccuracy
      self.maximumSpeed = maximumSpeed
      self.proximity = proximity
      self.predicateBackend = predicateBackend
      self.reportsRejections = reportsRejections
      self.skipsUnchangedFixes = skipsUnchangedFixes
      self.cellCacheCapacity = cellCacheCapacity
    }

    /// The spec's defaults: 100 m maximum accuracy, no speed check, no proximity monitoring,
    /// native predicates, no diagnostics; no skipping, the default cell cache.
    public static let `default` = Configuration()

    /// The largest ``cellCacheCapacity`` used (16,777,216 cells); a larger one is refused by
    /// ``validate()`` and used as this by an evaluator.
    public static let maximumCellCacheCapacity = 1 << 24

    /// Checks every setting against ``ValidRange``: what a caller that takes settings from
    /// outside (a command line, a config file) calls before making an evaluator.
    ///
    /// An evaluator never traps on settings outside the ranges (it clamps counts and sizes it
    /// allocates by), but its answers for them are not meaningful.
    ///
    /// - Throws: ``ConfigurationError`` naming the first setting out of range.
    public func validate() throws(ConfigurationError) {
      let distance = ValidRange.describe(ValidRange.distance)
      guard maximumAccuracy > 0, ValidRange.distance.contains(maximumAccuracy) else {
        throw ConfigurationError(
          setting: "maximumAccuracy", reason: "must be a number of metres above 0 and \(distance)",
          value: "\(maximumAccuracy)")
      }
      if let maximumSpeed, !(maximumSpeed > 0 && ValidRange.speed.contains(maximumSpeed)) {
        throw ConfigurationError(
          setting: "maximumSpeed",
          reason: "must be a number of metres per second above 0 and \(ValidRange.describe(ValidRange.speed))",
          value: "\(maximumSpeed)")
      }
      if let proximity {
        guard ValidRange.monitoredCount.contains(proximity.count) else {
          throw ConfigurationError(
            setting: "proximity.count",
            reason: "must be a whole number \(ValidRange.describe(ValidRange.monitoredCount))",
            value: "\(proximity.count)")
        }
        guard proximity.radius > 0, ValidRange.distance.contains(proximity.radius) else {
          throw ConfigurationError(
            setting: "proximity.radius", reason: "must be a number of metres above 0 and \(distance)",
            value: "\(proximity.radius)")
        }
      }
      guard tablesAheadEdgeCount >= 0 else {
        throw ConfigurationError(
          setting: "tablesAheadEdgeCount", reason: "must be a whole number of edges from 0",
          value: "\(tablesAheadEdgeCount)")
      }
      guard (0...Self.maximumCellCacheCapacity).contains(cellCacheCapacity) else {
        throw ConfigurationError(
          setting: "cellCacheCapacity",
          reason: "must be a number of cells from 0 to \(Self.maximumCellCacheCapacity)",
          value: "\(cellCacheCapacity)")
      }
    }
  }

  /// Proximity monitoring: after each accepted fix, a device's monitored set is the up to
  /// ``count`` fences and GEOLINEs within ``radius`` metres, nearest first (ties by id).
  public struct ProximityMonitoring: Hashable, Sendable {
    /// The most regions monitored at once (default 20, the iOS limit).
    public var count: Int
    /// Metres; regions farther than this are never monitored (default 1000).
    public var radius: Double
    /// When true, fences and GEOLINEs outside the device's monitored set are invisible to it, as
    /// on a phone that registered only those regions. The set used for a fix is the one
    /// computed at the device's previous accepted fix (on its first fix, the set around that
    /// fix). Default false.
    public var triggersOnlyMonitored: Bool

    /// Monitoring of the nearest `count` regions within `radius` metres.
    public init(count: Int = 20, radius: Double = 1000, triggersOnlyMonitored: Bool = false) {
      self.count = count
      self.radius = radius
      self.triggersOnlyMonitored = triggersOnlyMonitored
    }
  }

  /// Which implementation answers "does this polygon fence cover this position?".
  public enum PredicateBackend: String, Hashable, Sendable, CaseIterable {
    /// FenceGeometry's Swift polygon containment (the default).
    case native
    /// GEOS prepared `covers` for polygon fences (circles stay native). Polygons are prepared
    /// once when their zone is added.
    case geosPrepared
  }
}
