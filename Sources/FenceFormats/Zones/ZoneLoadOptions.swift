import FenceEngine
import FenceGeometry

/// How to turn GeoJSON into zones.
public struct ZoneLoadOptions: Hashable, Sendable {
  /// The radius of point fences (Points without `radius`), metres; default 100.
  public var pointRadius: Double
  /// Rules for zones that do not set them: a rule set by a feature's properties or by the
  /// top-level `zones` member wins, every other rule comes from here.
  public var defaults: ZoneRules
  /// Whether invalid polygons are repaired with GEOS MakeValid instead of rejected.
  public var repair: Bool
  /// Whether polygons skip GEOS topology validation (their structure is still checked in
  /// Swift). Only for GeoJSON this library wrote itself from zones it had validated, such as
  /// `FenceStore`'s snapshots and command log, where validating again would only repeat GEOS's
  /// work (about 2 s for the 27,743 polygons of tz-world); never for input from users, where an
  /// invalid polygon would then give wrong answers instead of an error. Default `false`.
  public var trustsTopology = false

  public init(
    pointRadius: Double = Circle.defaultPointRadius, defaults: ZoneRules = .default,
    repair: Bool = false
  ) {
    self.pointRadius = pointRadius
    self.defaults = defaults
    self.repair = repair
  }
}
