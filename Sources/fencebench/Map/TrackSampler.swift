import FenceGeometry

/// Device tracks for the map, split at gaps and thinned while the run goes on, so that memory
/// stays bounded whatever the run's length.
///
/// A device's positions form one part until two consecutive ones are more than ``gapSeconds``
/// apart (either way in time), or, with a ``maximumSpeed``, farther apart than that speed
/// covers in the time between them; then the part ends and the next position starts a new
/// one. Breaks are judged on every position, not only the kept ones, so thinning never hides
/// or invents one.
///
/// Each part keeps its first position, every ``stride``-th after it and its last one; when more
/// than twice ``pointBudget`` positions are kept, the stride doubles and every other kept
/// position goes (a finished part keeps its last one). The result is what ``MapRenderer``
/// would draw from the full parts with that stride, so thinning is deterministic and changes
/// nothing for runs within the budget.
struct TrackSampler {
  /// The default of ``gapSeconds``: 15 minutes, five times the usual 3-minute interval of the
  /// harbor week's AIS positions (97 % of them come within 5 minutes; see fencebench.md,
  /// "Maps").
  static let defaultGapSeconds = 900.0

  /// The number of positions the map draws at most; twice as many are kept before thinning.
  let pointBudget: Int
  /// The longest silence a part bridges with a straight line.
  let gapSeconds: Double
  /// Metres per second: a faster jump between consecutive positions starts a new part (nil:
  /// never).
  let maximumSpeed: Double?
  /// Each part keeps its positions whose index (in that part) is a multiple of this.
  private(set) var stride = 1
  private var tracks: [MapRenderer.Track] = []
  private var trackIndex: [String: Int] = [:]
  /// Per track: positions seen in its last part, and the latest position (kept apart so that
  /// a part's last one is never lost).
  private var seen: [Int] = []
  private var latest: [(latitude: Double, longitude: Double, time: Double)] = []
  private var keptCount = 0

  init(pointBudget: Int, gapSeconds: Double = defaultGapSeconds, maximumSpeed: Double? = nil) {
    precondition(pointBudget >= 1, "TrackSampler point budget \(pointBudget) must be at least 1")
    precondition(gapSeconds > 0, "TrackSampler gap \(gapSeconds) s must be more than 0")
    self.pointBudget = pointBudget
    self.gapSeconds = gapSeconds
    self.maximumSpeed = maximumSpeed
  }

  /// Adds a device's next position; `time` is in seconds since the epoch.
  mutating func append(device: String, latitude: Double, longitude: Double, time: Double) {
    let index: Int
    if let known = trackIndex[device] {
      index = known
      if breaks(from: latest[index], to: (latitude, longitude, time)) { closeLastPart(of: index) }
    } else {
      index = tracks.count
      trackIndex[device] = index
      tracks.append(MapRenderer.Track(device: device, parts: [MapRenderer.TrackPart()]))
      seen.append(0)
      latest.append((latitude, longitude, time))
    }
    if seen[index] % stride == 0 {
      tracks[index].parts[tracks[index].parts.count - 1].append(
        latitude: latitude, longitude: longitude, time: time)
      keptCount += 1
    }
    seen[index] += 1
    latest[index] = (latitude, longitude, time)
    if keptCount > 2 * pointBudget { doubleStride() }
  }

  /// The tracks, in order of each device's first position, each part with its last position.
  var sampledTracks: [MapRenderer.Track] {
    var result = tracks
    for index in result.indices where (seen[index] - 1) % stride != 0 {
      let point = latest[index]
      result[index].parts[result[index].parts.count - 1].append(
        latitude: point.latitude, longitude: point.longitude, time: point.time)
    }
    return result
  }

  /// Whether a track going from `a` to `b` (consecutive positions) starts a new part at `b`.
  private func breaks(
    from a: (latitude: Double, longitude: Double, time: Double),
    to b: (latitude: Double, longitude: Double, time: Double)
  ) -> Bool {
    let seconds = abs(b.time - a.time)
    if seconds > gapSeconds { return true }
    guard let maximumSpeed else { return false }
    let metres = WGS84.distance(
      Coordinate(uncheckedLatitude: a.latitude, longitude: a.longitude),
      Coordinate(uncheckedLatitude: b.latitude, longitude: b.longitude))
    return metres > maximumSpeed * seconds
  }

  /// Ends track `index`'s last part with its latest position and opens an empty one.
  private mutating func closeLastPart(of index: Int) {
    if (seen[index] - 1) % stride != 0 {
      let point = latest[index]
      tracks[index].parts[tracks[index].parts.count - 1].append(
        latitude: point.latitude, longitude: point.longitude, time: point.time)
      keptCount += 1
    }
    tracks[index].parts.append(MapRenderer.TrackPart())
    seen[index] = 0
  }

  private mutating func doubleStride() {
    stride *= 2
    keptCount = 0
    for index in tracks.indices {
      let last = tracks[index].parts.count - 1
      for p in tracks[index].parts.indices {
        // Kept positions sit at multiples of the old stride: keep every other one, and the
        // last one of a finished part.
        var part = tracks[index].parts[p]
        tracks[index].parts[p] = MapRenderer.TrackPart()  // so that `part` is not copied
        let count = part.times.count
        var write = 0
        for read in 0..<count where read % 2 == 0 || (p != last && read == count - 1) {
          part.latitudes[write] = part.latitudes[read]
          part.longitudes[write] = part.longitudes[read]
          part.times[write] = part.times[read]
          write += 1
        }
        part.latitudes.removeLast(count - write)
        part.longitudes.removeLast(count - write)
        part.times.removeLast(count - write)
        tracks[index].parts[p] = part
        keptCount += write
      }
    }
  }
}
