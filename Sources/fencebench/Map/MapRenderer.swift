import FenceEngine
import FenceGeometry

/// Draws fences, GEOLINEs, device tracks and events as one self-contained picture: an HTML page
/// (canvas, pan and zoom, event details on hover and click) or a static SVG.
///
/// The output never references the network (no scripts, fonts or tiles from elsewhere), so it
/// opens offline. Large inputs are thinned to budgets: at most ``pointBudget`` track points
/// (each track keeps every k-th point and its last one), ``fenceBudget`` fences and
/// ``eventBudget`` events; the legend says how many were drawn out of how many.
struct MapRenderer {
  /// One device's positions in time order, as (latitude, longitude) degrees.
  struct Track {
    var device: String
    var latitudes: [Double] = []
    var longitudes: [Double] = []
  }

  var zones: [Zone]
  var tracks: [Track]
  /// The events that may be drawn (for a long run, a sample: see ``EventReservoir``).
  var events: [ZoneEvent]
  /// Every event of the run by kind, drawn or not, for the legend.
  var eventCounts: [ZoneEvent.Kind: Int]
  /// The JSON text shown for an event (one NDJSON line of `fencebench run --events`).
  var eventText: (ZoneEvent) -> String
  var title = "fencebench map"
  /// The default of ``pointBudget``.
  static let defaultPointBudget = 200_000

  var pointBudget = defaultPointBudget
  var fenceBudget = 20_000
  var eventBudget = 20_000
  /// The stride the tracks were already thinned with (see ``TrackSampler``): the legend's
  /// "every Nth point" is this times ``trackStride``.
  var sampledTrackStride = 1

  /// The projection that holds every drawn fence, GEOLINE and event, and also every track
  /// point unless `focusOnZones` (then tracks are clipped to the zones' surroundings).
  func makeProjection(focusOnZones: Bool = false) -> MapProjection {
    var south = Double.infinity, west = Double.infinity
    var north = -Double.infinity, east = -Double.infinity
    func include(_ lat: Double, _ lon: Double) {
      guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180,
        !(lat == 0 && lon == 0)
      else { return }
      south = min(south, lat); north = max(north, lat)
      west = min(west, lon); east = max(east, lon)
    }
    for zone in zones {
      for fence in zone.fences {
        let box = fence.area.boundingBox
        if box.crossesAntimeridian {
          include(box.south, -180); include(box.north, 180)
        } else {
          include(box.south, box.west); include(box.north, box.east)
        }
      }
      for line in zone.geolines {
        for v in line.line.vertices { include(v.latitude, v.longitude) }
      }
    }
    if !focusOnZones || south > north {
      for track in tracks {
        for i in track.latitudes.indices { include(track.latitudes[i], track.longitudes[i]) }
      }
    }
    for event in drawnEvents {
      if let lat = event.latitude, let lon = event.longitude { include(lat, lon) }
    }
    return MapProjection(
      south: south, west: west, north: north, east: east, padding: focusOnZones ? 0.08 : 0.04)
  }

  /// The stride that keeps the drawn track points within ``pointBudget``.
  var trackStride: Int {
    let total = tracks.reduce(0) { $0 + $1.latitudes.count }
    return max(1, (total + pointBudget - 1) / max(pointBudget, 1))
  }

  /// The fences to draw, in zone order, at most ``fenceBudget``.
  var drawnFences: [(zone: Zone, fence: Fence)] {
    var result: [(zone: Zone, fence: Fence)] = []
    outer: for zone in zones {
      for fence in zone.fences {
        if result.count >= fenceBudget { break outer }
        result.append((zone, fence))
      }
    }
    return result
  }

  /// The events to draw: all of them, or an even sample (every k-th) of at most
  /// ``eventBudget``.
  var drawnEvents: [ZoneEvent] {
    guard events.count > eventBudget else { return events }
    let stride = (events.count + eventBudget - 1) / max(eventBudget, 1)
    return Swift.stride(from: 0, to: events.count, by: stride).map { events[$0] }
  }

  /// Every event of the run, drawn or not.
  var eventTotal: Int { eventCounts.values.reduce(0, +) }

  var fenceCount: Int { zones.reduce(0) { $0 + $1.fences.count } }
  var geolineCount: Int { zones.reduce(0) { $0 + $1.geolines.count } }

  /// A colour for the `index`-th device: hues a golden angle apart.
  static func deviceColor(_ index: Int) -> String {
    let hue = (Double(index) * 137.508).truncatingRemainder(dividingBy: 360)
    return "hsl(\(Int(hue)),70%,42%)"
  }

  /// The colour of an event marker by kind.
  static func eventColor(_ kind: ZoneEvent.Kind) -> String {
    switch kind {
    case .checkIn: return "#1a9641"
    case .checkOut: return "#d7191c"
    case .dwell: return "#f28e00"
    case .monitoredSetChanged: return "#7b3294"
    case .rejected: return "#444444"
    }
  }
}
