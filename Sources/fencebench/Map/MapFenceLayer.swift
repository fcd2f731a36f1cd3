import FenceEngine
import FenceGeometry

/// The fences a map draws, in picture units, with a label each: the ones nearest the frame
/// first up to a fence budget, polygon rings thinned to a vertex budget, largest first (so the
/// smaller ones are drawn on top and hover finds them first).
///
/// Rings are thinned by radial distance: a vertex is kept when it lies at least the fence's
/// tolerance from the last kept one. Fences that meet the frame get ``nearTolerance`` (a
/// quarter of a unit of a 1000-unit frame, invisible at the zoom the page opens on); farther
/// ones get their distance from the frame times a factor, which starts at ``farFactor`` and
/// doubles until the drawn vertices fit the budget, so a world-wide file stays a few
/// megabytes and still looks right when the page is zoomed out to it. A ring left with fewer
/// than three vertices is not drawn, nor is a polygon whose exterior ring goes.
struct MapFenceLayer {
  struct Item {
    var zoneIndex: Int
    var fence: Fence
    var label: String
    /// Centre and radius in picture units, for a circle.
    var circle: (x: Double, y: Double, radius: Double)?
    /// Closed rings as `[x0, y0, x1, y1, …]`, for a polygon.
    var rings: [[Double]] = []
    /// Where the label goes: a circle's centre, or the middle of the widest stretch of a
    /// polygon's largest part along the horizontal through that part's middle.
    var labelX = 0.0
    var labelY = 0.0
    var minX = 0.0
    var minY = 0.0
    var maxX = 0.0
    var maxY = 0.0
  }

  static let nearTolerance = 0.25
  static let farFactor = 0.002

  /// In drawing order.
  private(set) var items: [Item] = []
  /// Polygon vertices drawn.
  private(set) var vertexCount = 0

  init(
    zones: [Zone], projection p: MapProjection, fenceBudget: Int, vertexBudget: Int = 100_000
  ) {
    struct Candidate {
      var zoneIndex: Int
      var fence: Fence
      /// Picture units from the fence's box to the frame (0 when they meet).
      var distance: Double
    }
    var candidates: [Candidate] = []
    for (zoneIndex, zone) in zones.enumerated() {
      for fence in zone.fences {
        let box: (minX: Double, minY: Double, maxX: Double, maxY: Double)
        switch fence.area {
        case .circle(let circle):
          let x = p.x(circle.center.longitude), y = p.y(circle.center.latitude)
          let r = circle.radius * p.unitsPerMetre
          box = (x - r, y - r, x + r, y + r)
        case .polygon(let multi):
          let b = multi.boundingBox
          let (west, east) = b.crossesAntimeridian ? (-180.0, 180.0) : (b.west, b.east)
          box = (p.x(west), p.y(b.north), p.x(east), p.y(b.south))
        }
        let gapX = max(0, box.minX - p.width, -box.maxX)
        let gapY = max(0, box.minY - p.height, -box.maxY)
        candidates.append(
          Candidate(
            zoneIndex: zoneIndex, fence: fence, distance: (gapX * gapX + gapY * gapY).squareRoot()))
      }
    }
    // Nearest first (stable), up to the budget.
    let chosen = candidates.indices
      .sorted { (candidates[$0].distance, $0) < (candidates[$1].distance, $1) }
      .prefix(max(fenceBudget, 0))
      .sorted()
      .map { candidates[$0] }

    var factor = Self.farFactor
    var attempt = 0
    while true {
      var drawn: [Item] = []
      var vertices = 0
      for candidate in chosen {
        let tolerance = max(Self.nearTolerance, candidate.distance * factor)
        guard
          let item = Self.item(
            candidate.fence, zoneIndex: candidate.zoneIndex, zone: zones[candidate.zoneIndex],
            projection: p, tolerance: tolerance)
        else { continue }
        vertices += item.rings.reduce(0) { $0 + $1.count / 2 }
        drawn.append(item)
      }
      attempt += 1
      if vertices <= vertexBudget || attempt >= 12 {
        items = drawn
        vertexCount = vertices
        break
      }
      factor *= 2
    }
    // Largest first; ties keep zone order.
    items = items.enumerated().sorted {
      let a = ($0.element.maxX - $0.element.minX) * ($0.element.maxY - $0.element.minY)
      let b = ($1.element.maxX - $1.element.minX) * ($1.element.maxY - $1.element.minY)
      return a != b ? a > b : $0.offset < $1.offset
    }.map(\.element)
  }

  /// The text drawn on a fence: its name, else its zone's name, else the first text of the
  /// zone's custom data (a time-zone polygon's tzid), else its id.
  static func label(_ fence: Fence, zone: Zone) -> String {
    if let name = fence.name, !name.isEmpty { return name }
    if let name = zone.name, !name.isEmpty { return name }
    for member in zone.customData.members {
      if case .string(let text) = member.value, !text.isEmpty { return text }
    }
    return fence.id
  }

  /// The drawn form of one fence, or nil when thinning leaves nothing of it.
  static func item(
    _ fence: Fence, zoneIndex: Int, zone: Zone, projection p: MapProjection, tolerance: Double
  ) -> Item? {
    var item = Item(zoneIndex: zoneIndex, fence: fence, label: label(fence, zone: zone))
    switch fence.area {
    case .circle(let circle):
      let x = p.x(circle.center.longitude), y = p.y(circle.center.latitude)
      let r = circle.radius * p.unitsPerMetre
      item.circle = (x, y, r)
      (item.labelX, item.labelY) = (x, y)
      (item.minX, item.minY, item.maxX, item.maxY) = (x - r, y - r, x + r, y + r)
    case .polygon(let multi):
      var largest: (area: Double, rings: ArraySlice<[Double]>)?
      for polygon in multi.polygons {
        guard let exterior = thin(polygon.exterior, projection: p, tolerance: tolerance) else {
          continue
        }
        let first = item.rings.count
        item.rings.append(exterior)
        for hole in polygon.holes {
          if let ring = thin(hole, projection: p, tolerance: tolerance) { item.rings.append(ring) }
        }
        let box = bounds(exterior)
        let area = (box.maxX - box.minX) * (box.maxY - box.minY)
        if largest == nil || area > largest!.area {
          largest = (area, item.rings[first...])
        }
      }
      guard let largest else { return nil }
      var box = bounds(item.rings[0])
      for ring in item.rings.dropFirst() {
        let b = bounds(ring)
        box = (min(box.minX, b.minX), min(box.minY, b.minY), max(box.maxX, b.maxX), max(box.maxY, b.maxY))
      }
      item.minX = box.minX
      item.minY = box.minY
      item.maxX = box.maxX
      item.maxY = box.maxY
      let at = labelPoint(largest.rings)
      item.labelX = at.x
      item.labelY = at.y
    }
    return item
  }

  /// A closed ring in picture units, thinned by radial distance `tolerance`; nil when fewer
  /// than three distinct vertices are left.
  static func thin(_ ring: [Coordinate], projection p: MapProjection, tolerance: Double) -> [Double]? {
    guard ring.count >= 4 else { return nil }
    let squared = tolerance * tolerance
    var out: [Double] = []
    var lastX = p.x(ring[0].longitude), lastY = p.y(ring[0].latitude)
    out.append(lastX)
    out.append(lastY)
    for vertex in ring.dropFirst().dropLast() {
      let x = p.x(vertex.longitude), y = p.y(vertex.latitude)
      let dx = x - lastX, dy = y - lastY
      if dx * dx + dy * dy >= squared {
        out.append(x)
        out.append(y)
        (lastX, lastY) = (x, y)
      }
    }
    guard out.count >= 6 else { return nil }
    out.append(out[0])
    out.append(out[1])
    return out
  }

  /// The middle of the widest inside stretch (even-odd over `rings`) along the horizontal
  /// through the middle of the first ring's box; that box's centre if there is none.
  static func labelPoint(_ rings: ArraySlice<[Double]>) -> (x: Double, y: Double) {
    let box = bounds(rings[rings.startIndex])
    let y = (box.minY + box.maxY) / 2
    var crossings: [Double] = []
    for ring in rings {
      for i in Swift.stride(from: 0, to: ring.count - 2, by: 2) {
        let (x1, y1, x2, y2) = (ring[i], ring[i + 1], ring[i + 2], ring[i + 3])
        if (y1 > y) != (y2 > y) {
          crossings.append(x1 + (y - y1) * (x2 - x1) / (y2 - y1))
        }
      }
    }
    crossings.sort()
    var best: (width: Double, x: Double)?
    for i in Swift.stride(from: 0, to: crossings.count - 1, by: 2) {
      let width = crossings[i + 1] - crossings[i]
      if best == nil || width > best!.width { best = (width, (crossings[i] + crossings[i + 1]) / 2) }
    }
    return (best?.x ?? (box.minX + box.maxX) / 2, y)
  }

  private static func bounds(_ ring: [Double]) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
    var box = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
    for i in Swift.stride(from: 0, to: ring.count, by: 2) {
      box.minX = min(box.minX, ring[i])
      box.maxX = max(box.maxX, ring[i])
      box.minY = min(box.minY, ring[i + 1])
      box.maxY = max(box.maxY, ring[i + 1])
    }
    return box
  }
}
