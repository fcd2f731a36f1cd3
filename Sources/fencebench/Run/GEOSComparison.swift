import FenceEngine
import FenceGEOS
import FenceGeometry

/// `fencebench run --compare-geos`: the plain GEOS loop (``GEOSContainmentLoop``) timed on the
/// same fixes as the engine, and a check that FenceKit and GEOS find the same fences for every
/// fix.
///
/// Fixes queue up as the engine evaluates them (``add(_:latency:)``); for each pass of
/// ``passSize`` fixes, ``run(_:latency:)`` first counts every fix's fences with FenceKit's
/// index and predicates (``NativeContainmentLoop``, untimed), then times the GEOS loop over the
/// same fixes, one clock reading between fixes when `latency` is on, as
/// for the engine. A fix agrees when both sides find the same number of fences and the same
/// checksum of their ids; fixes with an invalid coordinate are skipped by both.
struct GEOSComparison {
  /// A fix on which the two sides disagree, with the fence ids each found (sorted).
  struct Disagreement {
    var fix: LocationFix
    var fenceKit: [String]
    var geos: [String]
  }

  /// The most disagreements kept for the report.
  static let keptDisagreements = 10

  private let fenceIDs: [String]
  private let native: NativeContainmentLoop
  private let geos: GEOSContainmentLoop
  private var nativeCounts: [Int] = []
  private var nativeChecksums: [UInt64] = []

  /// Time spent in the GEOS loop, nanoseconds (the clock readings between fixes included).
  private(set) var geosNanoseconds: UInt64 = 0
  /// Time spent building the GEOS tree and preparing polygons, nanoseconds.
  let buildNanoseconds: UInt64
  private(set) var histogram = LatencyHistogram()
  private(set) var fixes = 0
  private(set) var fenceKitContainments = 0
  private(set) var geosContainments = 0
  private(set) var disagreeingFixes = 0
  private(set) var disagreements: [Disagreement] = []

  /// Builds both loops over every fence of `zones` (GEOLINEs are not areas and take no part).
  init(zones: [Zone]) throws(GEOSError) {
    let fences = zones.flatMap(\.fences)
    fenceIDs = fences.map(\.id)
    native = NativeContainmentLoop(fences: fences)
    let start = MonotonicClock.nanoseconds()
    geos = try GEOSContainmentLoop(fences: fences)
    buildNanoseconds = MonotonicClock.nanoseconds() &- start
  }

  /// Fixes the engine has evaluated and the GEOS loop has not yet run.
  private var pending: [LocationFix] = []

  /// Fixes per GEOS pass when the comparison runs between engine batches (`--presorted`), so
  /// that each side is timed after the other has filled the processor's caches only a few times
  /// per run (see ``Replay``). Bounds the memory the comparison holds (about 6 MB) whatever the
  /// stream's length.
  static let passSize = 65_536

  /// Queues fixes the engine has evaluated (a batch, or a whole table), running a pass each
  /// time ``passSize`` fixes wait.
  mutating func add(_ fixes: some Sequence<LocationFix>, latency: Bool) throws(GEOSError) {
    for fix in fixes {
      pending.append(fix)
      if pending.count == Self.passSize { try finish(latency: latency) }
    }
  }

  /// Runs the waiting fixes (call once more after the last batch).
  mutating func finish(latency: Bool) throws(GEOSError) {
    guard !pending.isEmpty else { return }
    try run(pending[...], latency: latency)
    pending.removeAll(keepingCapacity: true)
  }

  /// Counts, times and checks one pass of fixes.
  private mutating func run(_ batch: ArraySlice<LocationFix>, latency: Bool) throws(GEOSError) {
    // Local copies, so that calls through them do not copy the loops out of `self` per fix.
    var native = self.native
    let geos = self.geos
    nativeCounts.removeAll(keepingCapacity: true)
    nativeChecksums.removeAll(keepingCapacity: true)
    for fix in batch {
      var count = 0
      var checksum: UInt64 = 0
      if Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) {
        native.forEachFence(containing: fix.latitude, longitude: fix.longitude) { id in
          count += 1
          checksum &+= Self.mix(id)
        }
      }
      nativeCounts.append(count)
      nativeChecksums.append(checksum)
    }

    var geosCounts = nativeCounts
    var geosChecksums = nativeChecksums
    let start = MonotonicClock.nanoseconds()
    var previous = start
    for (offset, fix) in batch.enumerated() {
      var count = 0
      var checksum: UInt64 = 0
      if Coordinate.isValid(latitude: fix.latitude, longitude: fix.longitude) {
        try geos.forEachFence(containing: fix.latitude, longitude: fix.longitude) { id in
          count += 1
          checksum &+= Self.mix(id)
        }
      }
      geosCounts[offset] = count
      geosChecksums[offset] = checksum
      if latency {
        let now = MonotonicClock.nanoseconds()
        histogram.record(now &- previous)
        previous = now
      }
    }
    geosNanoseconds &+= (latency ? previous : MonotonicClock.nanoseconds()) &- start

    fixes += batch.count
    for (offset, fix) in batch.enumerated() {
      fenceKitContainments += nativeCounts[offset]
      geosContainments += geosCounts[offset]
      guard nativeCounts[offset] != geosCounts[offset]
        || nativeChecksums[offset] != geosChecksums[offset]
      else { continue }
      disagreeingFixes += 1
      if disagreements.count < Self.keptDisagreements {
        disagreements.append(try disagreement(at: fix))
      }
    }
  }

  /// The summary's figures, given the engine's evaluation time.
  func summary(engineSeconds: Double) -> RunSummary.GEOSComparison {
    let seconds = Double(geosNanoseconds) / 1e9
    var result = RunSummary.GEOSComparison(
      buildSeconds: Double(buildNanoseconds) / 1e9, evaluationSeconds: seconds,
      fixes: fixes, fenceKitContainments: fenceKitContainments,
      geosContainments: geosContainments, disagreeingFixes: disagreeingFixes)
    result.speedup = engineSeconds > 0 && seconds > 0 ? seconds / engineSeconds : 0
    if histogram.count > 0 {
      result.latencyMicroseconds = RunSummary.Latency(histogram)
    }
    return result
  }

  /// Both sides' fences for one fix, by id.
  private func disagreement(at fix: LocationFix) throws(GEOSError) -> Disagreement {
    var fenceKit: [String] = []
    var geosIDs: [String] = []
    var native = self.native
    native.forEachFence(containing: fix.latitude, longitude: fix.longitude) {
      fenceKit.append(fenceIDs[Int($0)])
    }
    try geos.forEachFence(containing: fix.latitude, longitude: fix.longitude) {
      geosIDs.append(fenceIDs[Int($0)])
    }
    return Disagreement(fix: fix, fenceKit: fenceKit.sorted(), geos: geosIDs.sorted())
  }

  /// A fence id scrambled (SplitMix64's finaliser), so that a sum of ids tells sets apart.
  private static func mix(_ id: Int32) -> UInt64 {
    var z = UInt64(UInt32(bitPattern: id)) &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
