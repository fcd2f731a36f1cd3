/// Device tracks for the map, thinned while the run goes on so that memory stays bounded
/// whatever the run's length: each track keeps every ``stride``-th of its points and its last
/// one; when more than twice ``pointBudget`` points are kept, the stride doubles and every
/// other kept point goes.
///
/// The result is what ``MapRenderer`` would draw from the full tracks with that stride, so
/// thinning is deterministic and the same as before for runs within the budget.
struct TrackSampler {
  /// The number of points the map draws at most; twice as many are kept before thinning.
  let pointBudget: Int
  /// Each track keeps its points whose index (in that track) is a multiple of this.
  private(set) var stride = 1
  private var tracks: [MapRenderer.Track] = []
  private var trackIndex: [String: Int] = [:]
  /// Per track: points seen, and the latest point (kept apart so the last one is never lost).
  private var seen: [Int] = []
  private var latest: [(latitude: Double, longitude: Double)] = []
  private var keptCount = 0

  init(pointBudget: Int) {
    precondition(pointBudget >= 1, "TrackSampler point budget \(pointBudget) must be at least 1")
    self.pointBudget = pointBudget
  }

  /// Adds a device's next position.
  mutating func append(device: String, latitude: Double, longitude: Double) {
    let index: Int
    if let known = trackIndex[device] {
      index = known
    } else {
      index = tracks.count
      trackIndex[device] = index
      tracks.append(MapRenderer.Track(device: device))
      seen.append(0)
      latest.append((latitude, longitude))
    }
    if seen[index] % stride == 0 {
      tracks[index].latitudes.append(latitude)
      tracks[index].longitudes.append(longitude)
      keptCount += 1
    }
    seen[index] += 1
    latest[index] = (latitude, longitude)
    if keptCount > 2 * pointBudget { doubleStride() }
  }

  /// The tracks, in order of each device's first point, each with its last point.
  var sampledTracks: [MapRenderer.Track] {
    var result = tracks
    for index in result.indices where (seen[index] - 1) % stride != 0 {
      result[index].latitudes.append(latest[index].latitude)
      result[index].longitudes.append(latest[index].longitude)
    }
    return result
  }

  private mutating func doubleStride() {
    stride *= 2
    keptCount = 0
    for index in tracks.indices {
      // Kept points sit at multiples of the old stride: keep every other one.
      var write = 0
      for read in Swift.stride(from: 0, to: tracks[index].latitudes.count, by: 2) {
        tracks[index].latitudes[write] = tracks[index].latitudes[read]
        tracks[index].longitudes[write] = tracks[index].longitudes[read]
        write += 1
      }
      tracks[index].latitudes.removeLast(tracks[index].latitudes.count - write)
      tracks[index].longitudes.removeLast(tracks[index].longitudes.count - write)
      keptCount += write
    }
  }
}
