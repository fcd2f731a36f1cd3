extension ContainmentCellCache {
  /// Fixes per window over which the cache judges whether it pays.
  static let bypassWindow = 16_384
  /// Fixes of the window that tries the cache again after a run of bypassed windows: a
  /// quarter of ``bypassWindow``. A try finds out whether the fixes came back to ground the
  /// cache holds, and on ground that stays new it costs what the cache costs there (filing the
  /// cells fixes reach a second time: about 9 % of the constant-density cold tracks at 10,000
  /// circles, most of it in these tries and the first two windows).
  static let trialWindow = 4_096
  /// Windows skipped once the cache did not pay, before it is tried again for one window;
  /// doubled each time that window does not pay either, up to ``longestBypass``.
  static let bypassWindows = 16
  /// The most windows skipped in one run (4,194,304 fixes).
  static let longestBypass = 256
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

  /// Windows in a row whose cells were filed for more than one fix in ``fillShare`` over
  /// circles alone, before the cache is bypassed (see ``bypasses(searchIsCheap:fencesAreCircles:)``).
  static let fillWindows = 4
  /// The share of a window's fixes (one in this many) above which filing is too frequent to
  /// pay over circles alone.
  static let fillShare = 16

  /// Whether this fix should skip the cache and ask the index directly.
  ///
  /// Decided per window of ``bypassWindow`` fixes, when the index's point search is cheap
  /// (`searchIsCheap`: at most ``bypassableFences`` fences, or a point grid); the next
  /// ``bypassWindows`` windows go straight to the index after
  /// - two windows in a row where fewer than a quarter of the fixes were hits (device memo,
  ///   cell or parent): fixes that keep reaching new ground paid the admission probe and the
  ///   filing for nothing (a million devices over 100 circles: 86 % first visits; 10,000
  ///   circles with every fix 3 km from the last) and ran 1.2-2.4x slower than with no cache;
  /// - or, when every fence is a circle (`fencesAreCircles`), ``fillWindows`` windows in a row
  ///   that filed more than one cell (or parent) per ``fillShare`` fixes. A hit then saves
  ///   only the chord tests of the circles that cover the cell, about what the grid's answer
  ///   costs, while each filing sorts every circle near a parent: a million circles with
  ///   10,000 devices walking among them file 8 % of their fixes' cells even though 92 % are
  ///   hits, and evaluate a third quicker without the cache (100,000 circles: 3.5 %, about
  ///   even; 10,000: 1.9 %, the cache 20 % quicker). The first windows of a run, which file
  ///   nearly every fix's cell whatever comes next, are fewer than ``fillWindows``. Polygons
  ///   keep the cache, whose cell tests spare them the stripe index.
  ///
  /// Then the cache gets a shorter window, of ``trialWindow`` fixes (windows stay that short
  /// from a run's end until one pays); one more such window bypasses again, for twice as many
  /// windows (up to ``longestBypass``): each try files the cells the fixes reached
  /// meanwhile (a million circles warm filed 59,000 cells with a fixed run of 16 windows, and
  /// 47,000 with doubling runs). A window that pays starts over at ``bypassWindows``. A
  /// device dwelling in its cell hits its memo and keeps the cache on.
  ///
  /// Counts only, no clock: the same fixes take the same path on every run. The answer is the
  /// same either way; only where it comes from changes.
  @inline(__always)
  mutating func bypasses(searchIsCheap: Bool, fencesAreCircles: Bool) -> Bool {
    if bypassLeft > 0 {
      bypassLeft -= 1
      bypassedFixes += 1
      return true
    }
    windowFixes += 1
    if windowFixes >= (bypassRuns > 0 ? Self.trialWindow : Self.bypassWindow) {
      let fewHits = (hits - windowStartHits) * 4 < windowFixes
      let manyFills = fencesAreCircles && (fills - windowStartFills) * Self.fillShare > windowFixes
      // Two windows in a row: the first window of a run has no hits yet (every device's first
      // fixes reach new cells), whatever comes after.
      lowWindows = searchIsCheap && fewHits ? lowWindows + 1 : 0
      fillingWindows = searchIsCheap && manyFills ? fillingWindows + 1 : 0
      if lowWindows >= 2 || fillingWindows >= Self.fillWindows {
        bypassLeft = Self.bypassWindow * min(Self.bypassWindows << bypassRuns, Self.longestBypass)
        bypassRuns = min(bypassRuns + 1, Self.longestBypass.trailingZeroBitCount)
      } else if lowWindows == 0 && fillingWindows == 0 {
        bypassRuns = 0
      }
      windowFixes = 0
      windowStartHits = hits
      windowStartFills = fills
    }
    return false
  }
}
