extension MapRenderer {
  /// One device's positions, split into parts wherever the device went unheard for longer
  /// than the map's gap (``TrackSampler/gapSeconds``), so that the map draws no straight line
  /// across the places it was not seen in.
  struct Track {
    var device: String
    /// In time order; never empty once the device has a position.
    var parts: [TrackPart] = []

    /// The number of positions over all parts.
    var pointCount: Int { parts.reduce(0) { $0 + $1.times.count } }
  }

  /// A run of positions with no gap between consecutive ones: three parallel arrays.
  struct TrackPart: Equatable {
    var latitudes: [Double] = []
    var longitudes: [Double] = []
    /// Seconds since 1970-01-01T00:00:00Z.
    var times: [Double] = []

    mutating func append(latitude: Double, longitude: Double, time: Double) {
      latitudes.append(latitude)
      longitudes.append(longitude)
      times.append(time)
    }

    /// Every `stride`-th position and the last one (the whole part when `stride` is 1).
    func thinned(stride: Int) -> TrackPart {
      guard stride > 1 else { return self }
      var result = TrackPart()
      for i in times.indices where i % stride == 0 || i == times.count - 1 {
        result.append(latitude: latitudes[i], longitude: longitudes[i], time: times[i])
      }
      return result
    }
  }
}
