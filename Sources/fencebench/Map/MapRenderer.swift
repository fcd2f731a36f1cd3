import FenceEngine
import FenceGeometry

/// Draws fences, GEOLINEs, device tracks and events as one self-contained picture: an HTML page
/// (canvas, pan and zoom, labels, hover details, layer toggles, a time window) or a static SVG.
///
/// The output never references the network (no scripts, fonts or tiles from elsewhere), so it
/// opens offline. Both open on ``MapFrame`` (the tracks, else the fences). Large inputs are
/// thinned to budgets: at most ``pointBudget`` track points (each part of a track keeps every
/// k-th point and its last one), ``fenceBudget`` fences (the nearest the frame) with
/// ``fenceVertexBudget`` polygon vertices (see ``MapFenceLayer``) and ``eventBudget`` events;
/// the legend says how many were drawn out of how many.
struct MapRenderer {
  var zones: [Zone]
  /// Split into parts at gaps already (see ``TrackSampler``).
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
  var fenceVertexBudget = 100_000
  var eventBudget = 10_000
  /// The stride the tracks were already thinned with (see ``TrackSampler``): the legend's
  /// "every Nth point" is this times ``trackStride``.
  var sampledTrackStride = 1
  /// The gap the tracks were split at, for the legend.
  var gapSeconds = TrackSampler.defaultGapSeconds
  /// The speed above which the tracks were split, for the legend (see ``TrackSampler``).
  var maximumSpeed: Double?

  /// The box the map opens on.
  var frame: MapFrame { MapFrame(tracks: tracks, zones: zones) }

  /// The stride that keeps the drawn track points within ``pointBudget``.
  var trackStride: Int {
    let total = tracks.reduce(0) { $0 + $1.pointCount }
    return max(1, (total + pointBudget - 1) / max(pointBudget, 1))
  }

  /// The tracks as drawn: each part thinned by ``trackStride``.
  var drawnTracks: [Track] {
    let stride = trackStride
    guard stride > 1 else { return tracks }
    return tracks.map { Track(device: $0.device, parts: $0.parts.map { $0.thinned(stride: stride) }) }
  }

  /// The fences to draw in projection `p`.
  func fenceLayer(_ p: MapProjection) -> MapFenceLayer {
    MapFenceLayer(zones: zones, projection: p, fenceBudget: fenceBudget, vertexBudget: fenceVertexBudget)
  }

  /// The events to draw: all of them, or an even sample (every k-th) of at most
  /// ``eventBudget``.
  var drawnEvents: [ZoneEvent] {
    guard events.count > eventBudget else { return events }
    let stride = (events.count + eventBudget - 1) / max(eventBudget, 1)
    return Swift.stride(from: 0, to: events.count, by: stride).map { events[$0] }
  }

  /// The kinds of the drawn events that have a position (those the legend lists), in
  /// declaration order.
  var drawnKinds: [ZoneEvent.Kind] {
    let present = Set(drawnEvents.filter { $0.latitude != nil && $0.longitude != nil }.map(\.kind))
    return ZoneEvent.Kind.allCases.filter { present.contains($0) }
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
