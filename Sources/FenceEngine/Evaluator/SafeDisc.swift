import FenceGeometry

/// Where a device's last full evaluation happened, and how far from there nothing can change:
/// the state behind skipping unchanged fixes (``ZoneEvaluator/Configuration/skipsUnchangedFixes``).
///
/// Kept in a table of its own beside the devices, one per device, only when skipping is on:
/// 64 bytes a device that an evaluator without skipping (a million devices: 64 MB) does not
/// carry.
struct SafeDisc {
  /// The centre's ECEF vector and the radius in metres (0 when unknown), valid while the
  /// evaluator's zone generation is `generation`.
  var center = ECEFPosition(x: 0, y: 0, z: 0)
  var radius = 0.0
  var generation: UInt64 = 0
  /// The centre in degrees, and an upper bound on metres per degree of longitude anywhere
  /// within the disc, for the skip test without trigonometry (NaN when unknown, e.g. after a
  /// snapshot restore: the test then measures in ECEF).
  var latitude = Double.nan
  var longitude = Double.nan
  var metresPerDegreeLongitude = Double.nan
}
