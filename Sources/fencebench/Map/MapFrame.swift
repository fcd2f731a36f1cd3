import FenceEngine
import FenceGeometry

/// The box, in degrees, that a map opens on and scales its picture units to: the tracks when
/// any position is drawn (so a world-wide zones file does not shrink a harbor to a dot), else
/// the fences and GEOLINEs.
///
/// The box is widened to at least ``minimumSpan`` degrees each way (about 1 km), about its
/// middle, then grown by ``margin`` of its height and width on each side. It does not wrap the
/// antimeridian: a fence across it stretches the box from -180 to 180.
struct MapFrame: Equatable {
  /// What the box was fitted to.
  enum Subject: String {
    case tracks, fences
  }

  var south: Double
  var west: Double
  var north: Double
  var east: Double
  var subject: Subject

  /// The fraction of the box's size added on each side.
  static let margin = 0.05
  /// The smallest height and width, in degrees, before the margin.
  static let minimumSpan = 0.01

  init(tracks: [MapRenderer.Track], zones: [Zone]) {
    var box = Accumulator()
    for track in tracks {
      for part in track.parts {
        for i in part.times.indices { box.include(part.latitudes[i], part.longitudes[i]) }
      }
    }
    subject = .tracks
    if box.isEmpty {
      subject = .fences
      for zone in zones {
        for fence in zone.fences {
          let bounds = fence.area.boundingBox
          if bounds.crossesAntimeridian {
            box.include(bounds.south, -180)
            box.include(bounds.north, 180)
          } else {
            box.include(bounds.south, bounds.west)
            box.include(bounds.north, bounds.east)
          }
        }
        for line in zone.geolines {
          for v in line.line.vertices { box.include(v.latitude, v.longitude) }
        }
      }
    }
    if box.isEmpty { box = Accumulator(south: -1, west: -1, north: 1, east: 1) }
    var (s, w, n, e) = (box.south, box.west, box.north, box.east)
    if n - s < Self.minimumSpan {
      let middle = (s + n) / 2
      (s, n) = (middle - Self.minimumSpan / 2, middle + Self.minimumSpan / 2)
    }
    if e - w < Self.minimumSpan {
      let middle = (w + e) / 2
      (w, e) = (middle - Self.minimumSpan / 2, middle + Self.minimumSpan / 2)
    }
    let padLatitude = (n - s) * Self.margin
    let padLongitude = (e - w) * Self.margin
    south = max(s - padLatitude, -90)
    north = min(n + padLatitude, 90)
    west = max(w - padLongitude, -180)
    east = min(e + padLongitude, 180)
  }

  /// The projection that fits this box into a `size` × `size` picture, edge to edge.
  func projection(size: Double = 1000) -> MapProjection {
    MapProjection(south: south, west: west, north: north, east: east, size: size, padding: 0)
  }

  /// A running south-west / north-east box of valid positions (null island excluded).
  private struct Accumulator {
    var south = Double.infinity
    var west = Double.infinity
    var north = -Double.infinity
    var east = -Double.infinity

    var isEmpty: Bool { south > north }

    mutating func include(_ latitude: Double, _ longitude: Double) {
      guard Coordinate.isValid(latitude: latitude, longitude: longitude),
        !(latitude == 0 && longitude == 0)
      else { return }
      south = min(south, latitude)
      north = max(north, latitude)
      west = min(west, longitude)
      east = max(east, longitude)
    }
  }
}
