extension ContainmentCellCache {
  /// Fixes per window over which the cache judges whether it pays.
  static let bypassWindow = 16_384
  /// Windows skipped once the cache did not pay, before it is tried again for one window.
  static let bypassWindows = 16
  /// Above this many fences the cache is always used, unless the index answers points from
  /// its grid (``FenceIndex/RTree/answersPointsFromGrid``): a walk of a large tree costs cache
  /// misses on every level, and filing paid even when few fixes hit (a million circles with
  /// every fix on new ground: 0.6 % hits, yet 20 % quicker with the cache than the walk); a
  /// grid's answer costs about what a cell of the cache does.
  static let bypassableFences = 65_536

  /// Whether the next fixes will ask the index directly (the cache is off, or in a run of
  /// bypassed windows): what a batch's look-ahead checks before it searches the index for a
  /// fix to come (see ``ZoneEvaluator/process(_:devices:into:)-(ArraySlice<LocationFix>,_,_)``).
  var asksIndexDirectly: Bool { !isOn || bypassLeft > 0 }

  /// Whether this fix should skip the cache and ask the index directly.
  ///
  /// Decided per window of ``bypassWindow`` fixes: when fewer than a quarter of the fixes of two
  /// windows in a row were hits (device memo, cell or parent) and the index's point search is
  /// cheap (`searchIsCheap`: at most ``bypassableFences`` fences, or a point grid), the next
  /// ``bypassWindows`` windows go straight to the index; then the cache gets a window again
  /// (one more such window bypasses again).
  ///
  /// Fixes that keep reaching new ground over a small fence set (a million devices over 100
  /// circles: 86 % first visits; 10,000 circles with every fix 3 km from the last) paid the
  /// admission probe and the filing for nothing, and ran 1.2-2.4x slower than with no cache at
  /// all; a device dwelling in its cell hits its memo and keeps the cache on.
  ///
  /// Counts only, no clock: the same fixes take the same path on every run. The answer is the
  /// same either way; only where it comes from changes.
  @inline(__always)
  mutating func bypasses(searchIsCheap: Bool) -> Bool {
    if bypassLeft > 0 {
      bypassLeft -= 1
      bypassedFixes += 1
      return true
    }
    windowFixes += 1
    if windowFixes >= Self.bypassWindow {
      let paid = !searchIsCheap || (hits - windowStartHits) * 4 >= windowFixes
      lowWindows = paid ? 0 : lowWindows + 1
      // Two windows in a row: the first window of a run has no hits yet (every device's first
      // fixes reach new cells), whatever comes after.
      if lowWindows >= 2 { bypassLeft = Self.bypassWindow * Self.bypassWindows }
      windowFixes = 0
      windowStartHits = hits
    }
    return false
  }
}
